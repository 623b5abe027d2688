// Owns the Postgres backend of the Store, for a fleet of instances on one database: opening it
// (migrations under an advisory lock) and putting its parts together, one per aggregate —
// accounts and keys (postgres-accounts.ts), settings and sessions (postgres-sessions.ts),
// mailboxes (postgres-mailboxes.ts), messages (postgres-messages.ts), webhooks and deliveries
// (postgres-deliveries.ts), recipients and refusals (postgres-refusals.ts) — on one shared
// connection (postgres-db.ts). PostgreSQL is the coordinator: no fleet-wide lock on the
// ingest path, commits announced with LISTEN/NOTIFY, deliveries leased with SKIP LOCKED, quota,
// redeem codes and mailbox limits as single atomic statements or row locks.
import { masked, PgDb } from './postgres-db.js';
import { pgAccounts } from './postgres-accounts.js';
import { pgDeliveries } from './postgres-deliveries.js';
import { pgMailboxes } from './postgres-mailboxes.js';
import { pgMessages } from './postgres-messages.js';
import { pgRefusals } from './postgres-refusals.js';
import { pgSessions } from './postgres-sessions.js';
import type { CommitWatcher, Store } from './store.js';

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
  const messages = pgMessages(db);
  const refusals = pgRefusals(db);
  const { watch: watchMessages, close: closeMessages, ...messageMethods } = messages;
  const { watch: watchRecipients, ...refusalMethods } = refusals;
  return {
    capabilities: { sharedByInstances: true },
    ...pgAccounts(db),
    ...pgSessions(db),
    ...pgMailboxes(db),
    ...messageMethods,
    ...pgDeliveries(db),
    ...refusalMethods,
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
}
