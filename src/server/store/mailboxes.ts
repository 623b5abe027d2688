// Owns the store's mailboxes, for both backends: creation under the account's live limit (in
// PostgreSQL the account row lock serialises one account's creations across instances, no one
// else's), the listings, early expiry, and the sweeper (one instance at a time sweeps, the
// others find it done and go on: a try-lock, never a wait). The SMTP recipient look-up is each
// backend's own (part of ingest).
import { newId } from '../ids.js';
import { trimRefusals } from './refusals.js';
import { mailboxFromRow, num, str } from './rows.js';
import { acknowledged, tx, type Sql } from './sql.js';
import { MailboxLimitError, StoreConflictError, SWEEP_MAILBOXES_MAX, type MailboxRecord, type Millis } from './store.js';

const COUNT_LIVE = 'SELECT COUNT(*) AS n FROM mailboxes WHERE account_id = ? AND expires_at > ?';

/** Deletes at most `budget` of a mailbox's deliveries, then of its messages; how many of each went. */
function* emptyMailbox(id: string, budget: number) {
  const deliveries = yield* tx.run('DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE mailbox_id = ? LIMIT ?)', id, budget);
  const messages = yield* tx.run('DELETE FROM messages WHERE seq IN (SELECT seq FROM messages WHERE mailbox_id = ? LIMIT ?)', id, Math.max(budget - deliveries, 0));
  return { deliveries, messages };
}

/** The mailboxes part of the store on `sql`; `countMessages` is the messages part's count of a mailbox. */
export function mailboxes(sql: Sql, countMessages: (mailboxId: string) => Promise<number>) {
  const { forUpdate } = sql.dialect;
  const taken = (address: string) => new StoreConflictError('mailbox', `the address ${address} is taken by a live mailbox`);
  return {
    /**
     * Creates a mailbox; an expired one at the same address is replaced. Throws StoreConflictError
     * when a live one holds it, and MailboxLimitError when the account already has `maxLive` live
     * mailboxes (checked in the same transaction: concurrent creations on several instances cannot pass it together).
     */
    async createMailbox(input: Omit<MailboxRecord, 'id'> & { id?: string }, now: Millis, maxLive?: number | null) {
      const mailbox: MailboxRecord = { ...input, id: input.id ?? newId('mbx'), address: input.address.toLowerCase() };
      try {
        await sql.transaction(function* () {
          if (maxLive !== undefined && maxLive !== null) {
            yield* tx.get(`SELECT 1 AS locked FROM accounts WHERE id = ?${forUpdate}`, mailbox.accountId);
            const live = num((yield* tx.get(COUNT_LIVE, mailbox.accountId, now))?.n);
            if (live >= maxLive) throw new MailboxLimitError(live, maxLive);
          }
          const existing = yield* tx.get(`SELECT id, expires_at FROM mailboxes WHERE address = ?${forUpdate}`, mailbox.address);
          if (existing) {
            if (num(existing.expires_at) > now) throw taken(mailbox.address);
            // An expired mailbox at the address goes now, with what it held.
            yield* emptyMailbox(str(existing.id), Number.MAX_SAFE_INTEGER);
            yield* tx.run('DELETE FROM mailboxes WHERE id = ?', str(existing.id));
          }
          yield* tx.run(
            'INSERT INTO mailboxes (id, account_id, address, webhook_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
            mailbox.id, mailbox.accountId, mailbox.address, mailbox.webhookId, mailbox.createdAt, mailbox.expiresAt,
          );
        });
      } catch (error) {
        // Two instances creating the same new address at once: the unique constraint decides.
        if (sql.isUniqueViolation(error)) throw taken(mailbox.address);
        throw error;
      }
      return acknowledged(sql, mailbox);
    },
    /** A live mailbox of the account by id or address. */
    async getMailbox(accountId: string, idOrAddress: string, now: Millis) {
      const row = await sql.get('SELECT * FROM mailboxes WHERE account_id = ? AND (id = ? OR address = ?) AND expires_at > ?', accountId, idOrAddress, idOrAddress.toLowerCase(), now);
      return row ? mailboxFromRow(row) : null;
    },
    async countLiveMailboxes(accountId: string, now: Millis) {
      return num((await sql.get(COUNT_LIVE, accountId, now))?.n);
    },
    /** Live mailboxes (of one account when `accountId` is given), oldest first, each with its account's email and message count. */
    async listLiveMailboxes(input: { accountId?: string; now: Millis }) {
      const rows = await sql.all(
        `SELECT m.*, a.email AS account_email FROM mailboxes m JOIN accounts a ON a.id = m.account_id
         WHERE m.expires_at > ? AND (CAST(? AS TEXT) IS NULL OR m.account_id = ?) ORDER BY m.created_at, m.address`,
        input.now, input.accountId ?? null, input.accountId ?? null,
      );
      return Promise.all(rows.map(async (row) => ({ ...mailboxFromRow(row), accountEmail: str(row.account_email), messageCount: await countMessages(str(row.id)) })));
    },
    /** Ends a live mailbox of the account now, exactly as at its own expiry: the mailbox as it was, or null when there is none. */
    async expireMailbox(accountId: string, idOrAddress: string, now: Millis) {
      const row = await sql.get(
        'UPDATE mailboxes SET expires_at = ? WHERE account_id = ? AND (id = ? OR address = ?) AND expires_at > ? RETURNING *',
        now, accountId, idOrAddress, idOrAddress.toLowerCase(), now,
      );
      return acknowledged(sql, row ? mailboxFromRow(row) : null);
    },
    /**
     * Deletes mailboxes expired at `now` (at most {@link SWEEP_MAILBOXES_MAX}) once empty, with their messages and
     * deliveries, at most about `limit` rows in one transaction (`more`: call again), and expired sessions,
     * sign-in tokens, failure windows and old refusals. An expired mailbox is gone to the API and SMTP already.
     */
    async sweepExpired(now: Millis, limit = Number.MAX_SAFE_INTEGER) {
      return sql.transaction(function* () {
        const swept = { mailboxes: 0, messages: 0, deliveries: 0, more: false };
        // Every instance may sweep; one at a time does the work, the others find it done.
        if (!(yield* tx.tryLock('sweep'))) return swept;
        const most = Math.min(limit, SWEEP_MAILBOXES_MAX);
        const ids = (yield* tx.all(`SELECT id FROM mailboxes WHERE expires_at <= ? ORDER BY expires_at, id LIMIT ?${forUpdate}`, now, most + 1)).map((r) => str(r.id));
        let budget = limit;
        for (const id of ids) {
          if (budget <= 0 || swept.mailboxes === most) {
            swept.more = true;
            break;
          }
          // A mailbox goes once it is empty (deleting it first would cascade to every message at once).
          const { deliveries, messages } = yield* emptyMailbox(id, budget);
          budget -= deliveries + messages;
          swept.deliveries += deliveries;
          swept.messages += messages;
          if (budget <= 0 && ((yield* tx.get('SELECT 1 AS x FROM messages WHERE mailbox_id = ? LIMIT 1', id)) || (yield* tx.get('SELECT 1 AS x FROM deliveries WHERE mailbox_id = ? LIMIT 1', id)))) {
            swept.more = true;
            break;
          }
          yield* tx.run('DELETE FROM mailboxes WHERE id = ?', id);
          swept.mailboxes++;
        }
        yield* trimRefusals(now);
        yield* tx.run('DELETE FROM web_sessions WHERE expires_at <= ?', now);
        yield* tx.run('DELETE FROM sign_in_tokens WHERE expires_at <= ?', now);
        yield* tx.run('DELETE FROM sign_in_failures WHERE window_ends_at <= ?', now);
        return swept;
      });
    },
  };
}

export type Mailboxes = ReturnType<typeof mailboxes>;
