// Owns the webhooks of the Postgres store and their deliveries: due deliveries leased with
// FOR UPDATE SKIP LOCKED (instances claiming at once take different ones, and a lease that runs
// out, as when its instance died, lets another take it), attempts and their log.
import type pg from 'pg';
import { newId } from '../ids.js';
import type { PgDb } from './postgres-db.js';
import { attemptFromRow, deliveryFromRow, num, optNum, str, webhookFromRow } from './rows.js';
import type { AttemptRecord, DeliveryRecord, Store, WebhookRecord } from './store.js';

export type PgDeliveries = Pick<Store,
  | 'createWebhook' | 'listWebhooks' | 'getWebhook' | 'getWebhookById' | 'setWebhookRefusingSince' | 'deleteWebhook'
  | 'createDelivery' | 'claimDueDeliveries' | 'nextDeliveryDue' | 'recordAttempt' | 'listAttempts' | 'failPendingDeliveries' | 'listDeliveries'>;

export function pgDeliveries(db: PgDb): PgDeliveries {
  const insertAttempt = async (client: pg.PoolClient, deliveryId: string, a: AttemptRecord) => {
    await client.query(
      `INSERT INTO delivery_attempts (delivery_id, attempt, at, duration_ms, status_code, error, ok) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (delivery_id, attempt) DO UPDATE SET at = EXCLUDED.at, duration_ms = EXCLUDED.duration_ms, status_code = EXCLUDED.status_code, error = EXCLUDED.error, ok = EXCLUDED.ok`,
      [deliveryId, a.attempt, a.at, a.durationMs, a.statusCode, a.error, a.ok],
    );
  };
  const listAttempts = async (deliveryId: string) =>
    (await db.rows('SELECT * FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt', [deliveryId])).map(attemptFromRow);
  return {
    async createWebhook(input) {
      const webhook: WebhookRecord = { id: newId('wh'), accountId: input.accountId, url: input.url, catchAll: input.catchAll, secret: input.secret, createdAt: input.now, refusingSince: null };
      await db.pool.query(
        'INSERT INTO webhooks (id, account_id, url, catch_all, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [webhook.id, webhook.accountId, webhook.url, webhook.catchAll, webhook.secret, webhook.createdAt],
      );
      return webhook;
    },

    async listWebhooks(accountId) {
      return (await db.rows('SELECT * FROM webhooks WHERE account_id = $1 ORDER BY created_at, id', [accountId])).map(webhookFromRow);
    },

    async getWebhook(accountId, id) {
      const row = await db.row('SELECT * FROM webhooks WHERE id = $1 AND account_id = $2', [id, accountId]);
      return row ? webhookFromRow(row) : null;
    },

    async getWebhookById(id) {
      const row = await db.row('SELECT * FROM webhooks WHERE id = $1', [id]);
      return row ? webhookFromRow(row) : null;
    },

    async setWebhookRefusingSince(id, since) {
      await db.pool.query('UPDATE webhooks SET refusing_since = $1 WHERE id = $2', [since, id]);
    },

    async deleteWebhook(accountId, id) {
      return (await db.count('DELETE FROM webhooks WHERE id = $1 AND account_id = $2', [id, accountId])) > 0;
    },

    async createDelivery(input) {
      const { now, ...rest } = input;
      const delivery: DeliveryRecord = { ...rest, id: newId('evt'), status: 'pending', attempts: 0, createdAt: now };
      await db.pool.query(
        `INSERT INTO deliveries (id, webhook_id, account_id, event, message_id, mailbox_id, status, attempts, next_attempt_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, $8)`,
        [delivery.id, delivery.webhookId, delivery.accountId, delivery.event, delivery.messageId, delivery.mailboxId, delivery.nextAttemptAt, now],
      );
      return delivery;
    },

    async claimDueDeliveries(now, leaseMs, limit) {
      // SKIP LOCKED: instances claiming at the same time take different deliveries; the lease
      // (nextAttemptAt moved ahead) keeps a claimed one from the others until it runs out.
      const rows = await db.rows(
        `WITH due AS (
           SELECT id, next_attempt_at AS due_at FROM deliveries WHERE status = 'pending' AND next_attempt_at <= $1
           ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED
         )
         UPDATE deliveries d SET next_attempt_at = $1::bigint + $2::bigint FROM due WHERE d.id = due.id
         RETURNING d.*, due.due_at`,
        [now, leaseMs, limit],
      );
      // As in SQLite, each comes back with the time it was due, earliest first.
      return rows.map((r) => ({ ...deliveryFromRow(r), nextAttemptAt: optNum(r.due_at) })).sort((a, b) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0));
    },

    async nextDeliveryDue() {
      return optNum((await db.row("SELECT MIN(next_attempt_at) AS due FROM deliveries WHERE status = 'pending'"))?.due);
    },

    async recordAttempt(deliveryId, attempt, next) {
      await db.tx(async (client) => {
        const exists = await db.count('UPDATE deliveries SET status = $1, attempts = $2, next_attempt_at = $3 WHERE id = $4', [next.status, attempt.attempt, next.nextAttemptAt, deliveryId], client);
        if (!exists) return; // deleted meanwhile (webhook removed or mailbox swept)
        await insertAttempt(client, deliveryId, attempt);
      });
    },

    listAttempts,

    async failPendingDeliveries(webhookId, entry) {
      return db.tx(async (client) => {
        const failed = await db.rows(
          "UPDATE deliveries SET status = 'failed', attempts = attempts + 1, next_attempt_at = NULL WHERE webhook_id = $1 AND status = 'pending' RETURNING id, attempts",
          [webhookId], client,
        );
        for (const row of failed) await insertAttempt(client, str(row.id), { ...entry, attempt: num(row.attempts) });
        return failed.length;
      });
    },

    async listDeliveries(webhookId, limit) {
      const deliveries = (await db.rows('SELECT * FROM deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, ord DESC LIMIT $2', [webhookId, limit])).map(deliveryFromRow);
      return Promise.all(deliveries.map(async (d) => ({ ...d, attemptLog: await listAttempts(d.id) })));
    },
  };
}
