// Owns the webhook pages: the account's webhooks, creating one (its secret shown once),
// deleting (after a confirmation page), sending a test event (its outcome shown after a
// redirect, so a reload does not send another), and each webhook's delivery log with every attempt.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createWebhookFor } from '../../actions.js';
import { ApiError } from '../../api/problem.js';
import type { ServiceContext } from '../../context.js';
import { sendTestEvent } from '../../delivery/test-event.js';
import type { WebhookRecord } from '../../store/store.js';
import { field, notFound, userOf } from '../plugin.js';

/** Deliveries shown on a webhook's page, newest first. */
const LOG_SIZE = 100;

/** The test event's type, as its delivery records it. */
const TEST_EVENT = 'webhook.test';

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

  /** The outcome of the webhook's latest test event, from its delivery log (after `?tested=<id>`). */
  async function lastTest(request: FastifyRequest, id: string | undefined) {
    if (!id) return null;
    const webhook = await store.getWebhook(userOf(request).id, id);
    if (!webhook) return null;
    const delivery = (await store.listDeliveries(webhook.id, 20)).find((d) => d.event === TEST_EVENT);
    const attempt = delivery?.attemptLog.at(-1);
    if (!attempt) return null;
    return { url: webhook.url, ok: attempt.ok, statusCode: attempt.statusCode, error: attempt.error, durationMs: Math.round(attempt.durationMs) };
  }

  app.get('/webhooks', async (request, reply) => {
    const query = request.query as { done?: string; tested?: string };
    return renderList(request, reply, {
      notice: query.done === 'deleted' ? 'Deleted the webhook and its pending deliveries.' : null,
      test: await lastTest(request, query.tested),
    });
  });

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

  // Deleting asks first, on a page of its own: it works without JavaScript, and a stray click deletes nothing.
  app.get('/webhooks/:id/delete', async (request, reply) => {
    const webhook = await ownWebhook(request);
    const deliveries = await store.listDeliveries(webhook.id, LOG_SIZE);
    return reply.page('webhook', { title: `Delete ${webhook.url}?`, nav: 'webhooks', webhook, deliveries, confirmDelete: true });
  });

  app.post('/webhooks/:id/delete', async (request, reply) => {
    const webhook = await ownWebhook(request);
    await store.deleteWebhook(userOf(request).id, webhook.id);
    return reply.redirect('/webhooks?done=deleted', 303);
  });

  app.post('/webhooks/:id/test', async (request, reply) => {
    const webhook = await ownWebhook(request);
    await sendTestEvent(ctx, webhook);
    // Back to the list, which reads the outcome from the delivery log: a reload shows it again without sending again.
    return reply.redirect(`/webhooks?tested=${encodeURIComponent(webhook.id)}`, 303);
  });

  app.get('/webhooks/:id', async (request, reply) => {
    const webhook = await ownWebhook(request);
    const deliveries = await store.listDeliveries(webhook.id, LOG_SIZE);
    return reply.page('webhook', { title: webhook.url, nav: 'webhooks', webhook, deliveries, confirmDelete: false });
  });
}
