// Owns the configuration endpoints (scope `config`): account settings and usage (and the port
// SMTP takes mail on), webhooks
// with their delivery log and test event, and redeeming quota codes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ConfigResponse,
  CreatedWebhook,
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryList,
  EXPIRY_OPTIONS,
  MIN_EXPIRY_TIME,
  RedeemBody,
  RedeemResponse,
  WebhookList,
  WebhookParams,
  WebhookTestResponse,
} from '../../../protocol/index.js';
import { createWebhookFor, redeemFor } from '../../actions.js';
import { readQuota, rateLimitHeaders } from '../../auth/quota.js';
import type { ServiceContext } from '../../context.js';
import { sendTestEvent } from '../../delivery/test-event.js';
import { toCreatedWebhook, toDelivery, toQuotaUsage, toWebhook } from '../../dto.js';
import { authOf } from '../auth.js';
import { ApiError } from '../problem.js';
import { errorResponses } from '../schema-helpers.js';

export const configRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  const { store, clock, config } = ctx;

  async function ownWebhook(accountId: string, id: string) {
    const webhook = await store.getWebhook(accountId, id);
    if (!webhook) throw new ApiError('webhook_not_found', `no webhook "${id}" in this account; list them with GET /api/config/webhooks`);
    return webhook;
  }

  app.get('/api/config', {
    config: { scope: 'config' },
    schema: { tags: ['config'], summary: 'Domains, expiry options, role, limits and quota usage', response: { 200: ConfigResponse, ...errorResponses(401, 403, 429) } },
  }, async (request) => {
    const { account, limits, quota } = authOf(request);
    const live = await store.countLiveMailboxes(account.id, clock.now());
    return {
      domains: config.domains,
      expiryOptions: EXPIRY_OPTIONS.filter((ms) => ms <= limits.maxExpiryTime),
      minExpiryTime: MIN_EXPIRY_TIME,
      maxExpiryTime: limits.maxExpiryTime,
      role: account.role,
      limits: { monthlyCalls: limits.monthlyCalls, maxMailboxes: limits.maxMailboxes, maxExpiryTime: limits.maxExpiryTime, maxMessageSize: config.maxMessageSize },
      mailboxes: { live },
      quota: toQuotaUsage(quota),
      ...(ctx.smtpPort === undefined ? {} : { smtpPort: ctx.smtpPort }),
    };
  });

  app.post('/api/config/webhooks', {
    config: { scope: 'config' },
    schema: {
      tags: ['webhooks'],
      summary: 'Register a webhook; the signing secret is returned only here',
      body: CreateWebhookBody,
      response: { 201: CreatedWebhook, ...errorResponses(400, 401, 403, 429) },
    },
  }, async (request, reply) => {
    const webhook = await createWebhookFor(ctx, authOf(request).account, request.body);
    return reply.code(201).send(toCreatedWebhook(webhook));
  });

  app.get('/api/config/webhooks', {
    config: { scope: 'config' },
    schema: { tags: ['webhooks'], summary: "The account's webhooks", response: { 200: WebhookList, ...errorResponses(401, 403, 429) } },
  }, async (request) => {
    const { account } = authOf(request);
    const webhooks = await store.listWebhooks(account.id);
    return { webhooks: webhooks.map(toWebhook) };
  });

  app.delete('/api/config/webhooks/:id', {
    config: { scope: 'config' },
    schema: { tags: ['webhooks'], summary: 'Delete a webhook and its pending deliveries', params: WebhookParams, response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(401, 403, 404, 429) } },
  }, async (request, reply) => {
    const { account } = authOf(request);
    if (!(await store.deleteWebhook(account.id, request.params.id))) {
      throw new ApiError('webhook_not_found', `no webhook "${request.params.id}" in this account; list them with GET /api/config/webhooks`);
    }
    return reply.code(204).send(null);
  });

  app.post('/api/config/webhooks/:id/test', {
    config: { scope: 'config' },
    schema: {
      tags: ['webhooks'],
      summary: 'Send one signed webhook.test event now (no retries) and report the outcome',
      params: WebhookParams,
      response: { 200: WebhookTestResponse, ...errorResponses(401, 403, 404, 429) },
    },
  }, async (request) => {
    const { account } = authOf(request);
    return sendTestEvent(ctx, await ownWebhook(account.id, request.params.id));
  });

  app.get('/api/config/webhooks/:id/deliveries', {
    config: { scope: 'config' },
    schema: {
      tags: ['webhooks'],
      summary: 'The delivery log: every event sent to this webhook with each attempt, newest first',
      params: WebhookParams,
      querystring: DeliveriesQuery,
      response: { 200: DeliveryList, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request) => {
    const { account } = authOf(request);
    const webhook = await ownWebhook(account.id, request.params.id);
    const deliveries = await store.listDeliveries(webhook.id, request.query.limit ?? 50);
    return { deliveries: deliveries.map(toDelivery) };
  });

  app.post('/api/config/quota/redeem', {
    config: { scope: 'config', quotaExempt: true },
    schema: {
      tags: ['config'],
      summary: "Redeem a top-up code: its calls are added to this month's allowance",
      body: RedeemBody,
      response: { 200: RedeemResponse, ...errorResponses(400, 401, 403, 429) },
    },
  }, async (request, reply) => {
    const { account, limits } = authOf(request);
    const calls = await redeemFor(ctx, account, request.body.code);
    const now = clock.now();
    const quota = await readQuota(store, account, limits, now);
    reply.headers(rateLimitHeaders(quota, now));
    return { calls, quota: toQuotaUsage(quota) };
  });
};
