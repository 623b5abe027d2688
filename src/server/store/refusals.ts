// Owns the store's refusals, for both backends: recipients SMTP refused, kept for a day (and the
// newest REFUSALS_KEPT at most) so a timed-out wait can say what went wrong. The SMTP recipient
// look-up itself is each backend's (part of ingest: sqlite.ts, postgres-recipients.ts).
import { refusalFromRow } from './rows.js';
import { tx, type Sql } from './sql.js';
import type { Millis, RefusalRecord } from './store.js';

/** Most refusals kept (the sweeper trims the oldest beyond it). */
const REFUSALS_KEPT = 10_000;
/** How long a refusal is kept. */
const REFUSAL_KEPT_MS = 86_400_000;

/** Deletes refusals older than a day at `now`, and the oldest beyond REFUSALS_KEPT (in the sweeper's transaction). */
export function* trimRefusals(now: Millis) {
  yield* tx.run('DELETE FROM refusals WHERE at < ? OR seq <= (SELECT MAX(seq) FROM refusals) - ?', now - REFUSAL_KEPT_MS, REFUSALS_KEPT);
}

/** The refusals part of the store on `sql`. */
export function refusals(sql: Sql) {
  return {
    async recordRefusal(r: RefusalRecord) {
      await sql.run('INSERT INTO refusals (at, address, reason, reply, mail_from, account_id) VALUES (?, ?, ?, ?, ?, ?)', r.at, r.address, r.reason, r.reply, r.mailFrom, r.accountId);
    },
    /** Refusals at or after `since`, oldest first; of one account's mailboxes, or all when accountId is null. */
    async listRefusals(input: { accountId: string | null; since: Millis; limit: number }) {
      const rows = await sql.all(
        'SELECT * FROM refusals WHERE (CAST(? AS TEXT) IS NULL OR account_id = ?) AND at >= ? ORDER BY seq LIMIT ?',
        input.accountId, input.accountId, input.since, input.limit,
      );
      return rows.map(refusalFromRow);
    },
  };
}

export type Refusals = ReturnType<typeof refusals>;
