// Owns the embedded SQLite backend of the Store (better-sqlite3 in WAL mode), one process
// owning one file. Each aggregate is a module of its own, all on one connection
// (sqlite-db.ts): accounts, keys and quota (sqlite-accounts.ts), settings and web sessions
// (sqlite-sessions.ts), mailboxes (sqlite-mailboxes.ts), messages (sqlite-messages.ts: arriving
// mail is committed there, in groups, on the event loop), webhooks and deliveries
// (sqlite-deliveries.ts) and refusals (sqlite-refusals.ts).
import { sqliteAccounts } from './sqlite-accounts.js';
import { SqliteDb } from './sqlite-db.js';
import { sqliteDeliveries } from './sqlite-deliveries.js';
import { sqliteMailboxes } from './sqlite-mailboxes.js';
import { sqliteMessages, type SqliteMessages } from './sqlite-messages.js';
import { sqliteRefusals } from './sqlite-refusals.js';
import { sqliteSessions } from './sqlite-sessions.js';
import type { Store } from './store.js';

/** The SQLite store, with the figures of its message commits (see {@link SqliteMessages}). */
export type SqliteStore = Store & Pick<SqliteMessages, 'commits'>;

/** Opens (creating when needed) a SQLite store at `file` (or ':memory:') and migrates it. */
export function openSqliteStore(file: string): SqliteStore {
  const db = new SqliteDb(file);
  const { settled, ...messages } = sqliteMessages(db);
  let startup: Promise<unknown> = Promise.resolve();
  return {
    capabilities: { sharedByInstances: false },
    ...sqliteAccounts(db),
    ...sqliteSessions(db),
    ...sqliteMailboxes(db, messages.countMailboxMessages),
    ...messages,
    ...sqliteDeliveries(db),
    ...sqliteRefusals(db),

    /** One process owns a SQLite store: callers in it take turns. */
    withStartupLock(fn) {
      const turn = startup.then(fn);
      startup = turn.catch(() => {});
      return turn;
    },

    // Waits for the messages under way (each one resolved is stored), then closes the file.
    close: () => db.close(settled),
  };
}
