// Owns the webhook pages: the account's webhooks, creating one (its secret shown once),
// deleting, sending a test event, and each webhook's delivery log with every attempt.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createWebhookFor } from '../../actions.js';
import { ApiError } from '../../api/problem.js';
import type { ServiceContext } from '../../context.js';
import { sendTestEvent } from '../../delivery/test-event.js';
import type { WebhookRecord } from '../../store/store.js';
import { field, notFound, userOf } from '../plugin.js';

/** Deliveries shown on a webhook's page, newest first. */
const LOG_SIZE = 100;

export async function webhookPages(app: FastifyInstance, { ctx }: { ctx: ServiceContext }): Promise<void> {
  const { store } = ctx;

  async function ownWebhook(request: FastifyRequest): Promise<WebhookRecord> {
    const { id } = request.params as { id: string };
    const webhook = await store.getWebhook(userOf(request).id, id);
    if (!webhook) throw notFound('webhook with this id');
    return webhook;
  }

  async function renderList(request: FastifyRequest, reply: FastifyReply, extra: Record<string, unknown> = {}) {
    const webhooks = await store.listWebhooks(userOf(request).id);
    return reply.page('webhooks', { title: 'Webhooks', nav: 'webhooks', webhooks, form: {}, created: null, test: null, ...extra });
  }

  app.get('/webhooks', async (request, reply) => renderList(request, reply, { notice: (request.query as { done?: string }).done === 'deleted' ? 'Deleted the webhook and its pending deliveries.' : null }));

  app.post('/webhooks', async (request, reply) => {
    const form = { url: field(request, 'url'), catchAll: field(request, 'catchAll') === '1' };
    try {
      const created = await createWebhookFor(ctx, userOf(request), form);
      return renderList(request, reply.code(201), { created });
    } catch (error) {
      if (error instanceof ApiError) return renderList(request, reply.code(error.status), { form, error: error.detail });
      throw error;
    }
  });

  app.post('/webhooks/:id/delete', async (request, reply) => {
    const webhook = await ownWebhook(request);
    await store.deleteWebhook(userOf(request).id, webhook.id);
    return reply.redirect('/webhooks?done=deleted', 303);
  });

  app.post('/webhooks/:id/test', async (request, reply) => {
    const webhook = await ownWebhook(request);
    const result = await sendTestEvent(ctx, webhook);
    return renderList(request, reply, { test: { url: webhook.url, ok: result.delivered, statusCode: result.statusCode, error: result.error, durationMs: result.durationMs } });
  });

  app.get('/webhooks/:id', async (request, reply) => {
    const webhook = await ownWebhook(request);
    const deliveries = await store.listDeliveries(webhook.id, LOG_SIZE);
    return reply.page('webhook', { title: webhook.url, nav: 'webhooks', webhook, deliveries });
  });
}
