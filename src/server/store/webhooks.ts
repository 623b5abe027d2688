// Owns the store's webhooks and the deliveries owed to them, with each one's attempts, for both
// backends. Claiming due deliveries is each backend's own (sqlite.ts; postgres.ts leases them
// with SKIP LOCKED, so instances claiming at once take different ones).
import { newId } from '../ids.js';
import { attemptFromRow, deliveryFromRow, num, optNum, str, webhookFromRow } from './rows.js';
import { acknowledged, tx, type Sql } from './sql.js';
import type { DeliveryStatus } from '../../protocol/index.js';
import type { AttemptRecord, DeliveryRecord, Millis, WebhookRecord } from './store.js';

/** The pending deliveries due at `?`, earliest first, at most `?`: what a claim takes. */
export const DUE_DELIVERIES = "SELECT * FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?";

/** Writes attempt `a` of a delivery into its log (again: the newer wins). */
function* logAttempt(deliveryId: string, a: AttemptRecord) {
  yield* tx.run(
    `INSERT INTO delivery_attempts (delivery_id, attempt, at, duration_ms, status_code, error, ok) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (delivery_id, attempt) DO UPDATE SET at = excluded.at, duration_ms = excluded.duration_ms, status_code = excluded.status_code, error = excluded.error, ok = excluded.ok`,
    deliveryId, a.attempt, a.at, a.durationMs, a.statusCode, a.error, a.ok,
  );
}

/** The webhooks and deliveries part of the store on `sql`. */
export function webhooks(sql: Sql) {
  const listAttempts = async (deliveryId: string) => (await sql.all('SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt', deliveryId)).map(attemptFromRow);
  return {
    async createWebhook(input: { accountId: string; url: string; secret: string; catchAll: boolean; now: Millis }) {
      const webhook: WebhookRecord = { id: newId('wh'), accountId: input.accountId, url: input.url, catchAll: input.catchAll, secret: input.secret, createdAt: input.now, refusingSince: null };
      await sql.run(
        'INSERT INTO webhooks (id, account_id, url, catch_all, secret, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        webhook.id, webhook.accountId, webhook.url, webhook.catchAll, webhook.secret, webhook.createdAt,
      );
      return acknowledged(sql, webhook);
    },
    async listWebhooks(accountId: string) {
      return (await sql.all('SELECT * FROM webhooks WHERE account_id = ? ORDER BY created_at, id', accountId)).map(webhookFromRow);
    },
    async getWebhook(accountId: string, id: string) {
      const row = await sql.get('SELECT * FROM webhooks WHERE id = ? AND account_id = ?', id, accountId);
      return row ? webhookFromRow(row) : null;
    },
    /** Any account's webhook (for delivery). */
    async getWebhookById(id: string) {
      const row = await sql.get('SELECT * FROM webhooks WHERE id = ?', id);
      return row ? webhookFromRow(row) : null;
    },
    async setWebhookRefusingSince(id: string, since: Millis | null) {
      await sql.run('UPDATE webhooks SET refusing_since = ? WHERE id = ?', since, id);
    },
    /** Deletes the webhook and its pending deliveries; false when it did not exist. */
    async deleteWebhook(accountId: string, id: string) {
      // Deliveries and their attempts go with it (ON DELETE CASCADE).
      return acknowledged(sql, (await sql.run('DELETE FROM webhooks WHERE id = ? AND account_id = ?', id, accountId)) > 0);
    },
    async createDelivery(input: Omit<DeliveryRecord, 'id' | 'status' | 'attempts' | 'createdAt'> & { now: Millis }) {
      const { now, ...rest } = input;
      const delivery: DeliveryRecord = { ...rest, id: newId('evt'), status: 'pending', attempts: 0, createdAt: now };
      await sql.run(
        `INSERT INTO deliveries (id, webhook_id, account_id, event, message_id, mailbox_id, status, attempts, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
        delivery.id, delivery.webhookId, delivery.accountId, delivery.event, delivery.messageId, delivery.mailboxId, delivery.nextAttemptAt, now,
      );
      return acknowledged(sql, delivery);
    },
    /** The earliest nextAttemptAt of any pending delivery, or null. */
    async nextDeliveryDue() {
      return optNum((await sql.get("SELECT MIN(next_attempt_at) AS due FROM deliveries WHERE status = 'pending'"))?.due);
    },
    /** Records one attempt and the delivery's new state. */
    async recordAttempt(deliveryId: string, attempt: AttemptRecord, next: { status: DeliveryStatus; nextAttemptAt: Millis | null }) {
      await sql.transaction(function* () {
        const exists = yield* tx.run('UPDATE deliveries SET status = ?, attempts = ?, next_attempt_at = ? WHERE id = ?', next.status, attempt.attempt, next.nextAttemptAt, deliveryId);
        if (!exists) return; // deleted meanwhile (webhook removed or mailbox swept)
        yield* logAttempt(deliveryId, attempt);
      });
    },
    /** One delivery's attempts, oldest first. */
    listAttempts,

    /** Fails every pending delivery of the webhook, `entry` the last line of each one's log; how many were failed. */
    async failPendingDeliveries(webhookId: string, entry: Omit<AttemptRecord, 'attempt'>) {
      return sql.transaction(function* () {
        const failed = yield* tx.all(
          "UPDATE deliveries SET status = 'failed', attempts = attempts + 1, next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending' RETURNING id, attempts",
          webhookId,
        );
        for (const row of failed) yield* logAttempt(str(row.id), { ...entry, attempt: num(row.attempts) });
        return failed.length;
      });
    },
    /** A webhook's deliveries newest first, each with its attempts oldest first. */
    async listDeliveries(webhookId: string, limit: number) {
      const deliveries = (await sql.all(`SELECT * FROM deliveries WHERE webhook_id = ? ORDER BY created_at DESC, ${sql.dialect.insertionOrder} DESC LIMIT ?`, webhookId, limit)).map(deliveryFromRow);
      return Promise.all(deliveries.map(async (d) => ({ ...d, attemptLog: await listAttempts(d.id) })));
    },
  };
}

export type Webhooks = ReturnType<typeof webhooks>;
