// Owns writing arriving messages into a SQLite database: one transaction for a batch of
// messages, a message of several rows in a savepoint of its own, so one failure fails only
// its own message (a message alone is its transaction). Shared by the store's own connection (an in-memory
// database) and by the ingest writer's thread (a database file, sqlite-ingest.ts), so both
// write messages with the same statements.
import type Database from 'better-sqlite3';
import { newId, randomToken } from '../ids.js';
import type { CopyPlan, DeliveryRecord, InsertedCopy, Millis, NewMessage, StoredMessage } from './store.js';

/** One arriving message: its copies, as delivery routing planned them, and when it arrived. */
export interface InsertJob {
  copies: readonly CopyPlan[];
  message: NewMessage;
  now: Millis;
}

/** What became of one job: the copies stored (none when every mailbox expired meanwhile), or why it failed. */
export type InsertResult = InsertedCopy[] | Error;

/**
 * The highest seq given so far: the newest message's, or the highest deleted one's
 * (messages_seq, see migration 7), so that no seq is ever given twice. The next is one more.
 */
export const LAST_SEQ = 'SELECT MAX(COALESCE((SELECT MAX(seq) FROM messages), 0), (SELECT seq FROM messages_seq)) AS seq';

/** Random characters after the seq in a message id. */
const MESSAGE_ID_RANDOM = 16;
const MESSAGE_ID = new RegExp(`^msg_([0-9a-z]{1,11})_[0-9a-z]{${MESSAGE_ID_RANDOM}}$`);

/**
 * The id of the message stored as `seq`: `msg_<seq in base 36>_<16 random characters>`. The
 * seq in it finds the row without an index on the id; the random part keeps ids unguessable.
 */
export function messageId(seq: number): string {
  return `msg_${seq.toString(36)}_${randomToken(MESSAGE_ID_RANDOM)}`;
}

/**
 * The seq a message id names, or null for any other string (the ids of messages stored
 * before migration 7 are random and found in message_ids instead).
 */
export function seqOfMessageId(id: string): number | null {
  const match = MESSAGE_ID.exec(id);
  if (!match) return null;
  const seq = Number.parseInt(match[1]!, 36);
  return Number.isSafeInteger(seq) ? seq : null;
}

/** Page size of a new database file. */
export const PAGE_SIZE = 8_192;

/**
 * Sets up a connection to a store's database. The page size applies to a new database only:
 * 8 KiB pages hold three 2-3 KB messages (a 4 KiB page holds one and leaves the rest empty;
 * larger pages cost more log per commit). NORMAL: commits do not sync the log; the store
 * syncs it off the event loop before anything is acknowledged (wal-sync.ts, sqlite-ingest.ts).
 * The log is cut back to 64 MiB after a checkpoint. `cacheKib` is the connection's page cache.
 * exec, not db.pragma(): pragma() makes a throw-away Statement (see RETAINED in sqlite.ts).
 */
export function configureConnection(db: Database.Database, cacheKib: number): void {
  db.exec(`PRAGMA page_size = ${PAGE_SIZE}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = ${64 * 1024 * 1024};
    PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA cache_size = ${-cacheKib};`);
}

/**
 * Prepares, once, what writing messages into `db` takes, and returns the batch writer: it
 * commits `jobs` in one transaction and answers, in order, each job's copies or its error.
 * `prepare` makes (or finds) the connection's statement for an SQL text; the caller keeps
 * what it prepares for the life of the connection.
 */
export function messageWriter(db: Database.Database, prepare: (sql: string) => Database.Statement): (jobs: readonly InsertJob[]) => InsertResult[] {
  // Read in the write transaction, so no other connection gives a seq meanwhile.
  const lastSeq = prepare(LAST_SEQ);
  // The mailbox is read by the insert itself: one that expired since RCPT gets no copy.
  const insertMessage = prepare(`INSERT INTO messages
      (seq, id, account_id, mailbox_id, mailbox, from_json, to_json, cc_json, subject, received_at, size, raw)
      SELECT ?, ?, account_id, id, address, ?, ?, ?, ?, ?, ?, ? FROM mailboxes WHERE id = ? AND expires_at > ?
      RETURNING account_id, mailbox`);
  // A webhook deleted since the plan was made gets no delivery (and breaks no foreign key).
  const insertDelivery = prepare(`INSERT INTO deliveries
      (id, webhook_id, account_id, event, message_id, mailbox_id, status, attempts, next_attempt_at, created_at)
      SELECT ?, id, account_id, 'message.received', ?, ?, 'pending', 0, ?, ? FROM webhooks WHERE id = ? AND account_id = ?`);

  const insertCopies = ({ copies, message, now }: InsertJob): InsertedCopy[] => {
    const fromJson = message.from ? JSON.stringify(message.from) : null;
    const toJson = JSON.stringify(message.to);
    const ccJson = JSON.stringify(message.cc);
    const size = message.raw.length;
    const inserted: InsertedCopy[] = [];
    const seen = new Set<string>();
    let seq = Number((lastSeq.get() as { seq: number }).seq) + 1;
    for (const copy of copies) {
      if (seen.has(copy.mailboxId)) continue;
      seen.add(copy.mailboxId);
      const id = messageId(seq);
      const row = insertMessage.get(seq, id, fromJson, toJson, ccJson, message.subject, now, size, message.raw, copy.mailboxId, now) as
        { account_id: string; mailbox: string } | undefined;
      if (!row) continue;
      const accountId = String(row.account_id);
      const stored: StoredMessage = {
        id, seq: seq++, accountId, mailboxId: copy.mailboxId, mailbox: String(row.mailbox),
        from: message.from, to: message.to, cc: message.cc, subject: message.subject, receivedAt: now, size,
      };
      const deliveries: DeliveryRecord[] = [];
      for (const webhookId of new Set(copy.webhookIds)) {
        const delivery: DeliveryRecord = {
          id: newId('evt'), webhookId, accountId, event: 'message.received', messageId: id, mailboxId: copy.mailboxId,
          status: 'pending', attempts: 0, nextAttemptAt: now, createdAt: now,
        };
        if (insertDelivery.run(delivery.id, id, copy.mailboxId, now, now, webhookId, accountId).changes > 0) deliveries.push(delivery);
      }
      inserted.push({ message: stored, deliveries });
    }
    return inserted;
  };

  // The batch's transaction and each message's savepoint, wrapped once (better-sqlite3 builds
  // a function with its BEGIN/SAVEPOINT statements per wrap; called outside a transaction,
  // insertAtomically is one of its own). A message whose copies and
  // deliveries are one INSERT (one mailbox, no webhook: most mail) needs no savepoint: a failed
  // statement is undone on its own and leaves the batch's transaction as it was.
  const insertAtomically = db.transaction(insertCopies);
  const insertBatch = db.transaction((jobs: readonly InsertJob[]) => jobs.map((job): InsertResult => {
    try {
      const single = job.copies.length === 1 && job.copies[0]!.webhookIds.length === 0;
      return single ? insertCopies(job) : insertAtomically(job);
    } catch (error) {
      return error as Error;
    }
  }));
  return (jobs) => {
    try {
      // A message alone is its transaction's only work: no savepoint (a cold SAVEPOINT and
      // RELEASE cost as much as the message's own rows); a failure rolls the whole back.
      if (jobs.length === 1) return [insertAtomically.immediate(jobs[0]!)];
      return insertBatch.immediate(jobs);
    } catch (error) {
      return jobs.map(() => error as Error);
    }
  };
}
