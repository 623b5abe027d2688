// Owns the refusals of the SQLite store: recipients SMTP refused, kept for a day (and the
// newest REFUSALS_KEPT at most) so a timed-out wait can say what went wrong.
import { refusalFromRow } from './rows.js';
import type { SqliteDb } from './sqlite-db.js';
import type { Millis, Store } from './store.js';

/** Most refusals kept (the sweeper trims the oldest beyond it). */
const REFUSALS_KEPT = 10_000;

/** The methods of the Store this module implements for SQLite (its refusals). */
export type SqliteRefusals = Pick<Store, 'recordRefusal' | 'listRefusals'>;

/** Deletes refusals older than a day at `now`, and the oldest beyond REFUSALS_KEPT (the sweeper does, in its transaction). */
export function trimRefusals(db: SqliteDb, now: Millis): void {
  db.run('DELETE FROM refusals WHERE at < ? OR seq <= (SELECT MAX(seq) FROM refusals) - ?', now - 86_400_000, REFUSALS_KEPT);
}

/** The refusals part of the SQLite store on `db`. */
export function sqliteRefusals(db: SqliteDb): SqliteRefusals {
  return {
    async recordRefusal(r) {
      db.run('INSERT INTO refusals (at, address, reason, reply, mail_from, account_id) VALUES (?, ?, ?, ?, ?, ?)', r.at, r.address, r.reason, r.reply, r.mailFrom, r.accountId);
    },

    async listRefusals(input) {
      const rows = input.accountId === null
        ? db.all('SELECT * FROM refusals WHERE at >= ? ORDER BY seq LIMIT ?', input.since, input.limit)
        : db.all('SELECT * FROM refusals WHERE account_id = ? AND at >= ? ORDER BY seq LIMIT ?', input.accountId, input.since, input.limit);
      return rows.map(refusalFromRow);
    },
  };
}
