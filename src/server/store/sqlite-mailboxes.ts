// Owns the mailboxes of the SQLite store: creating, finding and ending them, the SMTP
// recipient lookup, and sweeping expired ones away with their messages and deliveries.
import { newId } from '../ids.js';
import { mailboxFromRow, num, recipientFromRow, str } from './rows.js';
import type { SqliteDb } from './sqlite-db.js';
import { trimRefusals } from './sqlite-refusals.js';
import { MailboxLimitError, StoreConflictError, SWEEP_MAILBOXES_MAX, type MailboxRecord, type Store } from './store.js';

/**
 * The SMTP recipient look-up (`@address` lower-case, `@now`): the mailbox with its
 * account's routing, as recipientFromRow reads it (a subquery's JSON is text: json() reads it back).
 */
const RECIPIENT_LOOKUP = `SELECT m.*, CASE WHEN m.webhook_id IS NULL THEN json_array(
    json((SELECT json_group_array(json_array(id, catch_all)) FROM (SELECT id, catch_all FROM webhooks WHERE account_id = m.account_id ORDER BY created_at, id))),
    CASE WHEN EXISTS (SELECT 1 FROM webhooks WHERE account_id = m.account_id) THEN json((SELECT json_array(json_group_array(DISTINCT webhook_id), MIN(expires_at))
      FROM mailboxes WHERE account_id = m.account_id AND webhook_id IS NOT NULL AND expires_at > @now)) END) END AS routing_json
  FROM mailboxes m WHERE m.address = @address`;

/** The methods of the Store this module implements for SQLite (its mailboxes). */
export type SqliteMailboxes = Pick<Store,
  'createMailbox' | 'getMailbox' | 'countLiveMailboxes' | 'listLiveMailboxes' | 'findMailboxByAddress' | 'expireMailbox' | 'sweepExpired'>;

/**
 * The mailboxes part of the SQLite store on `db`.
 * @param countMessages a mailbox's message count (the messages' part of the store keeps it)
 */
export function sqliteMailboxes(db: SqliteDb, countMessages: (mailboxId: string) => Promise<number>): SqliteMailboxes {
  const countLive = (accountId: string, now: number) => num(db.get('SELECT COUNT(*) AS n FROM mailboxes WHERE account_id = ? AND expires_at > ?', accountId, now)?.n);
  return {
    async createMailbox(input, now, maxLive) {
      const mailbox: MailboxRecord = { ...input, id: input.id ?? newId('mbx'), address: input.address.toLowerCase() };
      db.transaction(() => {
        if (maxLive !== undefined && maxLive !== null) {
          const live = countLive(mailbox.accountId, now);
          if (live >= maxLive) throw new MailboxLimitError(live, maxLive);
        }
        const existing = db.get('SELECT id, expires_at FROM mailboxes WHERE address = ?', mailbox.address);
        if (existing) {
          if (num(existing.expires_at) > now) throw new StoreConflictError('mailbox', `the address ${mailbox.address} is taken by a live mailbox`);
          // An expired mailbox at the address goes now, with what it held.
          db.run('DELETE FROM deliveries WHERE mailbox_id = ?', existing.id);
          db.run('DELETE FROM messages WHERE mailbox_id = ?', existing.id);
          db.run('DELETE FROM mailboxes WHERE id = ?', existing.id);
        }
        db.run(
          'INSERT INTO mailboxes (id, account_id, address, webhook_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
          mailbox.id, mailbox.accountId, mailbox.address, mailbox.webhookId, mailbox.createdAt, mailbox.expiresAt,
        );
      });
      return db.acknowledged(mailbox);
    },

    async getMailbox(accountId, idOrAddress, now) {
      const row = db.get('SELECT * FROM mailboxes WHERE account_id = ? AND (id = ? OR address = ?) AND expires_at > ?', accountId, idOrAddress, idOrAddress.toLowerCase(), now);
      return row ? mailboxFromRow(row) : null;
    },

    async countLiveMailboxes(accountId, now) {
      return countLive(accountId, now);
    },

    async listLiveMailboxes(input) {
      const rows = db.all(
        `SELECT m.*, a.email AS account_email FROM mailboxes m JOIN accounts a ON a.id = m.account_id
         WHERE m.expires_at > ? AND (? IS NULL OR m.account_id = ?) ORDER BY m.created_at, m.address`,
        input.now, input.accountId ?? null, input.accountId ?? null,
      );
      // Each count adds what arrived since that mailbox was last counted.
      return Promise.all(rows.map(async (row) => ({ ...mailboxFromRow(row), accountEmail: str(row.account_email), messageCount: await countMessages(str(row.id)) })));
    },

    async findMailboxByAddress(address, now) {
      const row = db.get(RECIPIENT_LOOKUP, { address: address.toLowerCase(), now });
      return row ? recipientFromRow(row) : null;
    },

    async expireMailbox(accountId, idOrAddress, now) {
      const row = db.get(
        'UPDATE mailboxes SET expires_at = ? WHERE account_id = ? AND (id = ? OR address = ?) AND expires_at > ? RETURNING *',
        now, accountId, idOrAddress, idOrAddress.toLowerCase(), now,
      );
      return db.acknowledged(row ? mailboxFromRow(row) : null);
    },

    async sweepExpired(now, limit = Number.MAX_SAFE_INTEGER) {
      return db.transaction(() => {
        const most = Math.min(limit, SWEEP_MAILBOXES_MAX);
        let budget = limit;
        let mailboxes = 0;
        let messages = 0;
        let deliveries = 0;
        let more = false;
        const ids = db.column<string>('SELECT id FROM mailboxes WHERE expires_at <= ? ORDER BY expires_at LIMIT ?', now, most + 1);
        for (const id of ids) {
          if (budget <= 0 || mailboxes === most) {
            more = true;
            break;
          }
          // A mailbox goes once it is empty (deleting it first would cascade to every message at once).
          const d = db.run('DELETE FROM deliveries WHERE rowid IN (SELECT rowid FROM deliveries WHERE mailbox_id = ? LIMIT ?)', id, budget).changes;
          budget -= d;
          const m = db.run('DELETE FROM messages WHERE seq IN (SELECT seq FROM messages WHERE mailbox_id = ? LIMIT ?)', id, Math.max(budget, 0)).changes;
          budget -= m;
          deliveries += d;
          messages += m;
          if (budget <= 0 && (db.get('SELECT 1 AS x FROM messages WHERE mailbox_id = ? LIMIT 1', id) || db.get('SELECT 1 AS x FROM deliveries WHERE mailbox_id = ? LIMIT 1', id))) {
            more = true;
            break;
          }
          db.run('DELETE FROM mailboxes WHERE id = ?', id);
          mailboxes++;
        }
        trimRefusals(db, now);
        db.run('DELETE FROM web_sessions WHERE expires_at <= ?', now);
        db.run('DELETE FROM sign_in_tokens WHERE expires_at <= ?', now);
        db.run('DELETE FROM sign_in_failures WHERE window_ends_at <= ?', now);
        return { mailboxes, messages, deliveries, more };
      });
    },
  };
}
