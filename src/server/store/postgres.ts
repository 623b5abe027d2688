// Owns the Postgres backend of the Store, for a fleet of instances on one database: opening it
// (migrations under an advisory lock), the aggregates both backends share (accounts.ts,
// sessions.ts, mailboxes.ts, search.ts, webhooks.ts, refusals.ts) on its SQL executor, and what is the
// fleet's own: the ingest path (postgres-messages.ts: no fleet-wide lock, commits announced
// with LISTEN/NOTIFY), cached recipient look-ups (postgres-recipients.ts), deliveries leased with
// SKIP LOCKED, and the start-up lock.
import { accounts } from './accounts.js';
import { faults } from './faults.js';
import { mailboxes } from './mailboxes.js';
import { masked, PgDb, pgSql } from './postgres-db.js';
import { pgMessages } from './postgres-messages.js';
import { pgRecipients } from './postgres-recipients.js';
import { refusals } from './refusals.js';
import { search } from './search.js';
import { deliveryFromRow, optNum } from './rows.js';
import { sessions } from './sessions.js';
import { joinParts, type CommitWatcher, type Store, type StoreBackend } from './store.js';
import { webhooks } from './webhooks.js';

/** Opens a Postgres store at `url` and applies its migrations (once per database, whoever starts first). */
export async function openPostgresStore(url: string): Promise<Store> {
  const db = new PgDb(url);
  try {
    await db.migrate();
  } catch (error) {
    await db.close().catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    throw Object.assign(new Error(`--database-url ${masked(url)}: cannot open the Postgres store (${reason}); check that the server runs and the URL names a database you may create tables in`, { cause: error }), {
      code: 'MW_ERR_CONFIG',
    });
  }
  const sql = pgSql(db);
  const { watch: watchMessages, close: closeMessages, ...messages } = pgMessages(db);
  const { watch: watchRecipients, ...recipients } = pgRecipients(db);
  const own: Pick<StoreBackend, 'capabilities' | 'claimDueDeliveries' | 'withStartupLock' | 'watchCommits' | 'close'> = {
    capabilities: { sharedByInstances: true },

    async claimDueDeliveries(now, leaseMs, limit) {
      // SKIP LOCKED: instances claiming at the same time take different deliveries; the lease
      // (nextAttemptAt moved ahead) keeps a claimed one from the others until it runs out.
      const rows = await db.rows(
        `WITH due AS (
           SELECT id, next_attempt_at AS due_at FROM deliveries WHERE status = 'pending' AND next_attempt_at <= $1
           ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
         )
         UPDATE deliveries d SET next_attempt_at = $3 FROM due WHERE d.id = due.id
         RETURNING d.*, due.due_at`,
        [now, limit, now + leaseMs],
      );
      // Each comes back with the time it was due, earliest first.
      return rows.map((r) => ({ ...deliveryFromRow(r), nextAttemptAt: optNum(r.due_at) })).sort((a, b) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0));
    },

    withStartupLock(fn) {
      return db.locked('startup', fn);
    },

    /** Other instances' commits, and (while watching) cached recipient look-ups kept true by the fleet's routing changes. */
    watchCommits(watcher: CommitWatcher) {
      const stops = [watchMessages(watcher), watchRecipients()];
      return async () => {
        for (const stop of stops) await stop();
      };
    },

    async close() {
      closeMessages();
      await db.close();
    },
  };
  return joinParts(own, accounts(sql), sessions(sql), mailboxes(sql, messages.countMailboxMessages), search(sql), messages, webhooks(sql), refusals(sql), faults(sql), recipients);
}
