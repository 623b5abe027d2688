// Owns the webhook test event (`POST /api/config/webhooks/{id}/test`): one signed attempt,
// made while the caller waits, recorded in the webhook's delivery log, never retried.
import { randomUUID } from 'node:crypto';
import type { WebhookTestResponse } from '../../protocol/index.js';
import type { ServiceContext } from '../context.js';
import { toWebhookTestEvent } from '../dto.js';
import type { WebhookRecord } from '../store/store.js';
import { createWebhookClient, postWebhook } from './attempt.js';

/**
 * Sends a `webhook.test` event (`{ type, timestamp, data: { webhookId, nonce } }`) to the
 * webhook once, records it in its delivery log as delivered or failed (no retries), and
 * returns the outcome. Never throws for a failing receiver: that is `delivered: false` with
 * `error` ("timeout after 5000 ms", "connection refused", "HTTP 500").
 *
 * Wiring: `return sendTestEvent(ctx, webhook)` with the account's webhook record.
 */
export async function sendTestEvent(ctx: ServiceContext, webhook: WebhookRecord): Promise<WebhookTestResponse> {
  const { store, clock } = ctx;
  const log = ctx.log.child({ subsystem: 'delivery' });
  const now = clock.now();
  const event = toWebhookTestEvent(webhook.id, randomUUID(), now);
  // nextAttemptAt null: the dispatcher never claims it, even if this process dies mid-attempt.
  const delivery = await store.createDelivery({
    webhookId: webhook.id,
    accountId: webhook.accountId,
    event: event.type,
    messageId: null,
    mailboxId: null,
    nextAttemptAt: null,
    now,
  });
  const client = createWebhookClient(ctx.config);
  try {
    const outcome = await postWebhook(ctx, client, webhook, { id: delivery.id, payload: JSON.stringify(event) });
    await store.recordAttempt(delivery.id, { attempt: 1, ...outcome }, { status: outcome.ok ? 'delivered' : 'failed', nextAttemptAt: null });
    log.info(
      { deliveryId: delivery.id, webhookId: webhook.id, statusCode: outcome.statusCode, durationMs: outcome.durationMs, error: outcome.error },
      outcome.ok ? 'test event delivered' : 'test event failed',
    );
    return { delivered: outcome.ok, statusCode: outcome.statusCode, durationMs: Math.round(outcome.durationMs), error: outcome.error };
  } finally {
    await client.close();
  }
}
