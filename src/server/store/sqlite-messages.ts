// Owns the messages of the SQLite store: committing arriving mail and reading it back. Mail
// handed over in one turn of the event loop shares one transaction and one log sync (a message
// of several rows in a savepoint of its own); its caller hears of the commit at once and is
// answered once the sync has ended; the next group does not wait for it (wal-sync.ts).
import { newId, randomToken } from '../ids.js';
import { COUNT_AFTER_SQLITE, MailboxCounts } from './mailbox-counts.js';
import { bytes, messageFromRow, messageWithBodyFromRow, num, RAW_COLUMNS, SUMMARY_COLUMNS, type Row } from './rows.js';
import type { SqliteDb } from './sqlite-db.js';
import type { CopyPlan, DeliveryRecord, InsertedCopy, Millis, NewMessage, OnCommitted, StoreBackend, StoredMessage } from './store.js';

/**
 * The highest seq given so far: the newest message's, or the highest deleted one's
 * (messages_seq, see migration 7), so that no seq is ever given twice. The next is one more.
 */
const LAST_SEQ = 'SELECT MAX(COALESCE((SELECT MAX(seq) FROM messages), 0), (SELECT seq FROM messages_seq)) AS seq';

/** Random characters after the seq in a message id. */
const MESSAGE_ID_RANDOM = 16;
const MESSAGE_ID = new RegExp(`^msg_([0-9a-z]{1,11})_[0-9a-z]{${MESSAGE_ID_RANDOM}}$`);

/**
 * The id of the message stored as `seq`: `msg_<seq in base 36>_<16 random characters>`. The
 * seq in it finds the row without an index on the id; the random part keeps ids unguessable.
 */
function messageId(seq: number): string {
  return `msg_${seq.toString(36)}_${randomToken(MESSAGE_ID_RANDOM)}`;
}

/**
 * The seq a message id names, or null for any other string (the ids of messages stored
 * before migration 7 are random and found in message_ids instead).
 */
function seqOfMessageId(id: string): number | null {
  const match = MESSAGE_ID.exec(id);
  if (!match) return null;
  const seq = Number.parseInt(match[1]!, 36);
  return Number.isSafeInteger(seq) ? seq : null;
}

/** One arriving message: its copies, as delivery routing planned them, and when it arrived. */
interface InsertJob {
  copies: readonly CopyPlan[];
  message: NewMessage;
  now: Millis;
}

/** What became of one job: the copies stored (none when every mailbox expired meanwhile), or why it failed. */
type InsertResult = InsertedCopy[] | Error;

/** Commits `jobs` in one transaction and answers, in order, each job's copies or its error. */
function messageWriter(db: SqliteDb): (jobs: readonly InsertJob[]) => InsertResult[] {
  // The mailbox is read by the insert itself: one that expired since RCPT gets no copy.
  const insertMessage = db.prepare(`INSERT INTO messages
      (seq, id, account_id, mailbox_id, mailbox, from_json, to_json, cc_json, subject, received_at, size, raw)
      SELECT ?, ?, account_id, id, address, ?, ?, ?, ?, ?, ?, ? FROM mailboxes WHERE id = ? AND expires_at > ?
      RETURNING account_id, mailbox`);
  // A webhook deleted since the plan was made gets no delivery (and breaks no foreign key).
  const insertDelivery = db.prepare(`INSERT INTO deliveries
      (id, webhook_id, account_id, event, message_id, mailbox_id, status, attempts, next_attempt_at, created_at)
      SELECT ?, id, account_id, 'message.received', ?, ?, 'pending', 0, ?, ? FROM webhooks WHERE id = ? AND account_id = ?`);

  const insertCopies = ({ copies, message, now }: InsertJob): InsertedCopy[] => {
    const fromJson = message.from ? JSON.stringify(message.from) : null;
    const toJson = JSON.stringify(message.to);
    const ccJson = JSON.stringify(message.cc);
    const size = message.raw.length;
    const inserted: InsertedCopy[] = [];
    const seen = new Set<string>();
    let seq = num(db.get(LAST_SEQ)!.seq) + 1;
    for (const copy of copies) {
      if (seen.has(copy.mailboxId)) continue;
      seen.add(copy.mailboxId);
      const id = messageId(seq);
      const row = insertMessage.get(seq, id, fromJson, toJson, ccJson, message.subject, now, size, message.raw, copy.mailboxId, now) as Row | undefined;
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

  // Each message of a group in a savepoint of its own (better-sqlite3 nests a transaction
  // function called inside another as a savepoint), but for a message whose copy is one INSERT
  // (one mailbox, no webhook: most mail): a failed statement is undone on its own. A message
  // alone is its transaction's only work: no savepoint, a failure rolls the whole back.
  const insertAtomically = db.db.transaction(insertCopies);
  const insertGroup = db.db.transaction((jobs: readonly InsertJob[]) => jobs.map((job): InsertResult => {
    try {
      const single = job.copies.length === 1 && job.copies[0]!.webhookIds.length === 0;
      return single ? insertCopies(job) : insertAtomically(job);
    } catch (error) {
      return error as Error;
    }
  }));
  return (jobs) => {
    try {
      return jobs.length === 1 ? [insertAtomically.immediate(jobs[0]!)] : insertGroup.immediate(jobs);
    } catch (error) {
      return jobs.map(() => error as Error);
    }
  };
}

/** A message handed to {@link GroupCommit} and waiting for its group's commit and sync. */
interface Arrival {
  job: InsertJob;
  onCommitted: OnCommitted | undefined;
  resolve: (copies: InsertedCopy[]) => void;
  reject: (error: Error) => void;
}

/** Commits arriving mail in groups on the event loop (see the header). */
class GroupCommit {
  /** Messages handed over since the last group was committed. */
  #waiting: Arrival[] = [];
  /** The log syncs of committed groups that have not ended. */
  readonly #syncing = new Set<Promise<unknown>>();
  /** Transactions and messages committed so far (test and benchmark figures). */
  transactions = 0;
  messages = 0;

  constructor(private readonly db: SqliteDb, private readonly write: (jobs: readonly InsertJob[]) => InsertResult[]) {}

  insert(job: InsertJob, onCommitted: OnCommitted | undefined): Promise<InsertedCopy[]> {
    return new Promise((resolve, reject) => {
      // What arrives in the rest of this turn of the loop joins the group.
      if (this.#waiting.push({ job, onCommitted, resolve, reject }) === 1) setImmediate(() => this.#commit());
    });
  }

  /** Resolves once every message handed over so far is settled. */
  async settled(): Promise<void> {
    while (this.#waiting.length > 0 || this.#syncing.size > 0) await Promise.allSettled([...this.#syncing, new Promise((resolve) => setImmediate(resolve))]);
  }

  #commit(): void {
    const group = this.#waiting;
    this.#waiting = [];
    const results = this.write(group.map((arrival) => arrival.job));
    this.transactions++;
    this.messages += group.length;
    group.forEach(({ onCommitted }, i) => {
      const result = results[i]!;
      try {
        if (!(result instanceof Error)) onCommitted?.(result);
      } catch (error) {
        results[i] = error as Error; // the caller's own listener failed: its caller hears of it
      }
    });
    // The sync starts at once, beside the previous group's if that one still runs: the next
    // group never waits for it to be committed, and the syncs overlap on the thread pool.
    const synced = this.db.durable().then(
      () => group.forEach(({ resolve, reject }, i) => {
        const result = results[i]!;
        if (result instanceof Error) reject(result);
        else resolve(result);
      }),
      (error: Error) => group.forEach(({ reject }) => reject(error)),
    );
    this.#syncing.add(synced);
    void synced.finally(() => this.#syncing.delete(synced));
  }
}

/** The message half of the Store on `db`, and the figures of its commits. */
export type SqliteMessages = Pick<StoreBackend, 'insertMessage' | 'listMessages' | 'maxSeq' | 'countMailboxMessages' | 'getMessage' | 'getRawMessage'> & {
  /** Transactions and messages committed so far (test and benchmark figures). */
  readonly commits: { readonly transactions: number; readonly messages: number };
  /** Resolves once every message handed over so far is settled (the store's close waits for it). */
  settled(): Promise<void>;
};

/** The messages part of the SQLite store on `db`: group commit of arriving mail, and reads. */
export function sqliteMessages(db: SqliteDb): SqliteMessages {
  const group = new GroupCommit(db, messageWriter(db));
  const counts = new MailboxCounts();
  /** A message's `columns` by its id: the seq in the id (or, for an id made before migration 7, in message_ids) finds the row. */
  const byId = (columns: string, accountId: string, mailboxId: string, messageId: string) => db.get(
    `SELECT ${columns} FROM messages WHERE seq = COALESCE(?, (SELECT seq FROM message_ids WHERE id = ?)) AND id = ? AND mailbox_id = ? AND account_id = ?`,
    seqOfMessageId(messageId), messageId, messageId, mailboxId, accountId,
  );
  return {
    commits: group,
    settled: () => group.settled(),

    insertMessage(copies, message, now, onCommitted) {
      if (db.closed) return Promise.reject(new Error('the store is closed'));
      return group.insert({ copies, message, now }, onCommitted);
    },

    async listMessages(input) {
      const columns = (input.includeBody ? RAW_COLUMNS : SUMMARY_COLUMNS).split(', ').map((c) => `m.${c}`).join(', ');
      const params: unknown[] = [input.accountId, input.afterSeq, input.now];
      let filter = '';
      if (input.mailboxIds) {
        filter = ` AND m.mailbox_id IN (${input.mailboxIds.map(() => '?').join(', ')})`;
        params.push(...input.mailboxIds);
      }
      params.push(input.limit);
      const rows = db.all(
        // With mailboxes named, their own index: the account's may hold far more messages than they do.
        `SELECT ${columns} FROM messages m ${input.mailboxIds ? 'INDEXED BY messages_mailbox_seq ' : ''}JOIN mailboxes b ON b.id = m.mailbox_id
         WHERE m.account_id = ? AND m.seq > ? AND b.expires_at > ?${filter} ORDER BY m.seq LIMIT ?`,
        ...params,
      );
      return input.includeBody ? Promise.all(rows.map(messageWithBodyFromRow)) : rows.map(messageFromRow);
    },

    async maxSeq() {
      return num(db.get(LAST_SEQ)?.seq ?? 0);
    },

    countMailboxMessages(mailboxId) {
      return counts.count(mailboxId, (after) => db.get(COUNT_AFTER_SQLITE, mailboxId, after));
    },

    async getMessage(accountId, mailboxId, messageId) {
      const row = byId(RAW_COLUMNS, accountId, mailboxId, messageId);
      return row ? messageWithBodyFromRow(row) : null;
    },

    async getRawMessage(accountId, mailboxId, messageId) {
      const row = byId('raw', accountId, mailboxId, messageId);
      return row ? bytes(row.raw) : null;
    },
  };
}
