// Owns the mailboxes of the Postgres store: creation under the account's live limit (the
// account row lock serialises one account's creations across instances, no one else's), the
// listings, early expiry and the sweeper (one instance at a time sweeps, the others find it
// done and go on: a try-lock, never a wait).
import type pg from 'pg';
import { newId } from '../ids.js';
import { isUniqueViolation, type PgDb } from './postgres-db.js';
import { mailboxFromRow, num, str } from './rows.js';
import { MailboxLimitError, StoreConflictError, SWEEP_MAILBOXES_MAX, type MailboxRecord, type Store } from './store.js';

/** Most refusals kept (the sweeper trims the oldest beyond it). */
const REFUSALS_KEPT = 10_000;

export type PgMailboxes = Pick<Store, 'createMailbox' | 'getMailbox' | 'countLiveMailboxes' | 'listLiveMailboxes' | 'expireMailbox' | 'sweepExpired'>;

async function deleteMailboxes(db: PgDb, ids: string[], client: pg.PoolClient): Promise<void> {
  await db.count('DELETE FROM deliveries WHERE mailbox_id = ANY($1::text[])', [ids], client);
  await db.count('DELETE FROM messages WHERE mailbox_id = ANY($1::text[])', [ids], client);
  await client.query('DELETE FROM mailboxes WHERE id = ANY($1::text[])', [ids]);
}

export function pgMailboxes(db: PgDb): PgMailboxes {
  const countLive = async (accountId: string, now: number, on: pg.Pool | pg.PoolClient = db.pool) =>
    num((await db.row('SELECT COUNT(*) AS n FROM mailboxes WHERE account_id = $1 AND expires_at > $2', [accountId, now], on))?.n);
  return {
    async createMailbox(input, now, maxLive) {
      const mailbox: MailboxRecord = { ...input, id: input.id ?? newId('mbx'), address: input.address.toLowerCase() };
      try {
        return await db.tx(async (client) => {
          if (maxLive !== undefined && maxLive !== null) {
            // The account row lock serialises this account's creations across instances.
            await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [mailbox.accountId]);
            const live = await countLive(mailbox.accountId, now, client);
            if (live >= maxLive) throw new MailboxLimitError(live, maxLive);
          }
          const existing = await db.row('SELECT id, expires_at FROM mailboxes WHERE address = $1 FOR UPDATE', [mailbox.address], client);
          if (existing) {
            if (num(existing.expires_at) > now) throw new StoreConflictError('mailbox', `the address ${mailbox.address} is taken by a live mailbox`);
            await deleteMailboxes(db, [str(existing.id)], client);
          }
          await client.query(
            'INSERT INTO mailboxes (id, account_id, address, webhook_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
            [mailbox.id, mailbox.accountId, mailbox.address, mailbox.webhookId, mailbox.createdAt, mailbox.expiresAt],
          );
          return mailbox;
        });
      } catch (error) {
        // Two instances creating the same new address at once: the unique constraint decides.
        if (isUniqueViolation(error)) throw new StoreConflictError('mailbox', `the address ${mailbox.address} is taken by a live mailbox`);
        throw error;
      }
    },

    async getMailbox(accountId, idOrAddress, now) {
      const row = await db.row(
        'SELECT * FROM mailboxes WHERE account_id = $1 AND (id = $2 OR address = $3) AND expires_at > $4',
        [accountId, idOrAddress, idOrAddress.toLowerCase(), now],
      );
      return row ? mailboxFromRow(row) : null;
    },

    countLiveMailboxes: (accountId, now) => countLive(accountId, now),

    async listLiveMailboxes(input) {
      const rows = await db.rows(
        `SELECT m.*, a.email AS account_email, (SELECT COUNT(*) FROM messages g WHERE g.mailbox_id = m.id) AS message_count
         FROM mailboxes m JOIN accounts a ON a.id = m.account_id
         WHERE m.expires_at > $1 AND ($2::text IS NULL OR m.account_id = $2) ORDER BY m.created_at, m.address`,
        [input.now, input.accountId ?? null],
      );
      return rows.map((row) => ({ ...mailboxFromRow(row), accountEmail: str(row.account_email), messageCount: num(row.message_count) }));
    },

    async expireMailbox(accountId, idOrAddress, now) {
      const row = await db.row(
        'UPDATE mailboxes SET expires_at = $1 WHERE account_id = $2 AND (id = $3 OR address = $4) AND expires_at > $1 RETURNING *',
        [now, accountId, idOrAddress, idOrAddress.toLowerCase()],
      );
      return row ? mailboxFromRow(row) : null;
    },

    async sweepExpired(now, limit = Number.MAX_SAFE_INTEGER) {
      return db.tx(async (client) => {
        // Every instance may sweep; one at a time does the work, the others find it done.
        if (!(await db.tryXactLock('sweep', client))) return { mailboxes: 0, messages: 0, deliveries: 0, more: false };
        const most = Math.min(limit, SWEEP_MAILBOXES_MAX);
        const ids = (await db.rows('SELECT id FROM mailboxes WHERE expires_at <= $1 ORDER BY expires_at, id LIMIT $2 FOR UPDATE', [now, most + 1], client)).map((r) => str(r.id));
        let budget = limit;
        let mailboxes = 0;
        let messages = 0;
        let deliveries = 0;
        let more = false;
        for (const id of ids) {
          if (budget <= 0 || mailboxes === most) {
            more = true;
            break;
          }
          // A mailbox goes once it is empty (deleting it first would cascade to every message at once).
          const d = await db.count('DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE mailbox_id = $1 LIMIT $2)', [id, budget], client);
          budget -= d;
          const m = await db.count('DELETE FROM messages WHERE seq IN (SELECT seq FROM messages WHERE mailbox_id = $1 LIMIT $2)', [id, Math.max(budget, 0)], client);
          budget -= m;
          deliveries += d;
          messages += m;
          if (budget <= 0 && (await db.row('SELECT (EXISTS (SELECT 1 FROM messages WHERE mailbox_id = $1) OR EXISTS (SELECT 1 FROM deliveries WHERE mailbox_id = $1)) AS left', [id], client))?.left) {
            more = true;
            break;
          }
          await client.query('DELETE FROM mailboxes WHERE id = $1', [id]);
          mailboxes++;
        }
        await client.query('DELETE FROM refusals WHERE at < $1 OR seq <= (SELECT MAX(seq) FROM refusals) - $2', [now - 86_400_000, REFUSALS_KEPT]);
        await client.query('DELETE FROM web_sessions WHERE expires_at <= $1', [now]);
        await client.query('DELETE FROM sign_in_tokens WHERE expires_at <= $1', [now]);
        await client.query('DELETE FROM sign_in_failures WHERE window_ends_at <= $1', [now]);
        return { mailboxes, messages, deliveries, more };
      });
    },
  };
}
