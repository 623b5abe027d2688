// Owns the embedded SQLite backend of the Store (better-sqlite3 in WAL mode), one process
// owning one file: the aggregates both backends share (accounts.ts, sessions.ts, mailboxes.ts,
// search.ts, webhooks.ts, refusals.ts) on its SQL executor, and what is SQLite's own: committing arriving
// mail in groups on the event loop (sqlite-messages.ts), the SMTP recipient look-up, claiming
// due deliveries, and taking turns at start-up.
import { accounts } from './accounts.js';
import { ACTIVE_FAULTS, FAULT_VALUES, faultOrder, faults } from './faults.js';
import { mailboxes } from './mailboxes.js';
import { refusals } from './refusals.js';
import { search } from './search.js';
import { deliveryFromRow, recipientFromRow } from './rows.js';
import { sessions } from './sessions.js';
import { SqliteDb, sqliteSql } from './sqlite-db.js';
import { sqliteMessages, type SqliteMessages } from './sqlite-messages.js';
import { joinParts, type Store, type StoreBackend } from './store.js';
import { DUE_DELIVERIES, webhooks } from './webhooks.js';

/** The SQLite store, with the figures of its message commits (see {@link SqliteMessages}). */
export type SqliteStore = Store & Pick<SqliteMessages, 'commits'>;

/**
 * The SMTP recipient look-up (`@address` lower-case, `@now`): the mailbox with its
 * account's routing, as recipientFromRow reads it (a subquery's JSON is text: json() reads it back).
 */
const RECIPIENT_LOOKUP = `SELECT m.*, CASE WHEN m.webhook_id IS NULL THEN json_array(
    json((SELECT json_group_array(json_array(id, catch_all)) FROM (SELECT id, catch_all FROM webhooks WHERE account_id = m.account_id ORDER BY created_at, id))),
    CASE WHEN EXISTS (SELECT 1 FROM webhooks WHERE account_id = m.account_id) THEN json((SELECT json_array(json_group_array(DISTINCT webhook_id), MIN(expires_at))
      FROM mailboxes WHERE account_id = m.account_id AND webhook_id IS NOT NULL AND expires_at > @now)) END) END AS routing_json,
    (SELECT json_group_array(json_array(${FAULT_VALUES})) FROM (SELECT * ${ACTIVE_FAULTS} ORDER BY ${faultOrder('rowid')})) AS faults_json
  FROM mailboxes m WHERE m.address = @address`;

/** Opens (creating when needed) a SQLite store at `file` (or ':memory:') and migrates it. */
export function openSqliteStore(file: string): SqliteStore {
  const db = new SqliteDb(file);
  const sql = sqliteSql(db);
  const { settled, ...messages } = sqliteMessages(db);
  let startup: Promise<unknown> = Promise.resolve();
  const own: Pick<StoreBackend, 'capabilities' | 'findMailboxByAddress' | 'claimDueDeliveries' | 'withStartupLock' | 'close'> = {
    capabilities: { sharedByInstances: false },

    async findMailboxByAddress(address, now) {
      const row = db.get(RECIPIENT_LOOKUP, { address: address.toLowerCase(), now });
      return row ? recipientFromRow(row) : null;
    },

    /** One process owns the file: a claim is the lease moved ahead, in one transaction. */
    async claimDueDeliveries(now, leaseMs, limit) {
      return db.transaction(() => {
        const rows = db.all(DUE_DELIVERIES, now, limit);
        const lease = db.prepare('UPDATE deliveries SET next_attempt_at = ? WHERE id = ?');
        for (const row of rows) lease.run(now + leaseMs, row.id);
        return rows.map(deliveryFromRow);
      });
    },

    /** One process owns a SQLite store: callers in it take turns. */
    withStartupLock(fn) {
      const turn = startup.then(fn);
      startup = turn.catch(() => {});
      return turn;
    },

    // Waits for the messages under way (each one resolved is stored), then closes the file.
    close: () => db.close(settled),
  };
  return joinParts(own, accounts(sql), sessions(sql), mailboxes(sql, messages.countMailboxMessages), search(sql), messages, webhooks(sql), refusals(sql), faults(sql));
}
