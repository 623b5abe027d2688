// Owns the webhooks of the SQLite store and the deliveries owed to them, with each one's attempts.
import { newId } from '../ids.js';
import { attemptFromRow, deliveryFromRow, optNum, webhookFromRow } from './rows.js';
import type { SqliteDb } from './sqlite-db.js';
import type { AttemptRecord, DeliveryRecord, Store, WebhookRecord } from './store.js';

/** The methods of the Store this module implements for SQLite (its deliveries). */
export type SqliteDeliveries = Pick<Store,
  | 'createWebhook' | 'listWebhooks' | 'getWebhook' | 'getWebhookById' | 'setWebhookRefusingSince' | 'deleteWebhook'
  | 'createDelivery' | 'claimDueDeliveries' | 'nextDeliveryDue' | 'recordAttempt' | 'listAttempts' | 'failPendingDeliveries' | 'listDeliveries'>;

const LOG_ATTEMPT = 'INSERT OR REPLACE INTO delivery_attempts (delivery_id, attempt, at, duration_ms, status_code, error, ok) VALUES (?, ?, ?, ?, ?, ?, ?)';

/** The webhooks and deliveries part of the SQLite store on `db`. */
export function sqliteDeliveries(db: SqliteDb): SqliteDeliveries {
  const attempts = (deliveryId: string): AttemptRecord[] => db.all('SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt', deliveryId).map(attemptFromRow);
  return {
    async createWebhook(input) {
      const webhook: WebhookRecord = { id: newId('wh'), accountId: input.accountId, url: input.url, catchAll: input.catchAll, secret: input.secret, createdAt: input.now, refusingSince: null };
      db.run(
        'INSERT INTO webhooks (id, account_id, url, catch_all, secret, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        webhook.id, webhook.accountId, webhook.url, webhook.catchAll ? 1 : 0, webhook.secret, webhook.createdAt,
      );
      return db.acknowledged(webhook);
    },

    async listWebhooks(accountId) {
      return db.all('SELECT * FROM webhooks WHERE account_id = ? ORDER BY created_at', accountId).map(webhookFromRow);
    },

    async getWebhook(accountId, id) {
      const row = db.get('SELECT * FROM webhooks WHERE id = ? AND account_id = ?', id, accountId);
      return row ? webhookFromRow(row) : null;
    },

    async getWebhookById(id) {
      const row = db.get('SELECT * FROM webhooks WHERE id = ?', id);
      return row ? webhookFromRow(row) : null;
    },

    async setWebhookRefusingSince(id, since) {
      db.run('UPDATE webhooks SET refusing_since = ? WHERE id = ?', since, id);
    },

    async deleteWebhook(accountId, id) {
      // Deliveries and their attempts go with it (ON DELETE CASCADE).
      return db.acknowledged(db.run('DELETE FROM webhooks WHERE id = ? AND account_id = ?', id, accountId).changes > 0);
    },

    async createDelivery(input) {
      const { now, ...rest } = input;
      const delivery: DeliveryRecord = { ...rest, id: newId('evt'), status: 'pending', attempts: 0, createdAt: now };
      db.run(
        `INSERT INTO deliveries (id, webhook_id, account_id, event, message_id, mailbox_id, status, attempts, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
        delivery.id, delivery.webhookId, delivery.accountId, delivery.event, delivery.messageId, delivery.mailboxId, delivery.nextAttemptAt, now,
      );
      return db.acknowledged(delivery);
    },

    async claimDueDeliveries(now, leaseMs, limit) {
      return db.transaction(() => {
        const rows = db.all("SELECT * FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?", now, limit);
        const lease = db.prepare('UPDATE deliveries SET next_attempt_at = ? WHERE id = ?');
        for (const row of rows) lease.run(now + leaseMs, row.id);
        return rows.map(deliveryFromRow);
      });
    },

    async nextDeliveryDue() {
      return optNum(db.get("SELECT MIN(next_attempt_at) AS due FROM deliveries WHERE status = 'pending'")?.due);
    },

    async recordAttempt(deliveryId, attempt, next) {
      db.transaction(() => {
        const exists = db.run('UPDATE deliveries SET status = ?, attempts = ?, next_attempt_at = ? WHERE id = ?', next.status, attempt.attempt, next.nextAttemptAt, deliveryId).changes;
        if (!exists) return; // deleted meanwhile (webhook removed or mailbox swept)
        db.run(LOG_ATTEMPT, deliveryId, attempt.attempt, attempt.at, attempt.durationMs, attempt.statusCode, attempt.error, attempt.ok ? 1 : 0);
      });
    },

    async listAttempts(deliveryId) {
      return attempts(deliveryId);
    },

    async failPendingDeliveries(webhookId, entry) {
      return db.transaction(() => {
        const failed = db.all(
          "UPDATE deliveries SET status = 'failed', attempts = attempts + 1, next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending' RETURNING id, attempts",
          webhookId,
        );
        const log = db.prepare(LOG_ATTEMPT);
        for (const row of failed) log.run(row.id, row.attempts, entry.at, entry.durationMs, entry.statusCode, entry.error, entry.ok ? 1 : 0);
        return failed.length;
      });
    },

    async listDeliveries(webhookId, limit) {
      const deliveries = db.all('SELECT * FROM deliveries WHERE webhook_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?', webhookId, limit).map(deliveryFromRow);
      return deliveries.map((d) => ({ ...d, attemptLog: attempts(d.id) }));
    },
  };
}
