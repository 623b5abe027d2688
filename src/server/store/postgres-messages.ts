// Owns the messages of the Postgres store: ingestion with group commit, reads by cursor, and
// the announcements that wake long-polls on every instance.
//
// Positions without a fleet-wide lock (the visibility horizon event stores use): a message's
// seq is the id of the transaction that inserted it times 2^16 plus its place in that
// transaction, so instances commit in parallel and positions still sort by transaction. A
// cursor reader returns only messages below the horizon, the oldest transaction still in
// progress anywhere in the cluster (`pg_snapshot_xmin(pg_current_snapshot())`): every
// transaction below it has ended, so no message can turn up later below a position a reader
// has passed. The price: a transaction left open anywhere in the cluster holds back what
// cursor readers see (not what is stored) until it ends.
//
// Round trips: messages that arrive while the instance's previous batch is being written go
// in the next batch, one statement and one commit for all of them (their copies, their
// deliveries). Then one more statement announces the batch to the other instances (a NOTIFY,
// outside the insert: PostgreSQL serialises the commits of transactions that notify) and
// reads the horizon; the batch's senders are answered once their messages are below it.
import { newId } from '../ids.js';
import { MailboxCounts } from './mailbox-counts.js';
import { HORIZON_SQL, type PgDb, type Statement } from './postgres-db.js';
import { withBody } from '../mime/parse.js';
import { bytes, messageFromRow, num, RAW_COLUMNS, str, SUMMARY_COLUMNS, type Row } from './rows.js';
import type { CommitWatcher, CopyPlan, DeliveryRecord, InsertedCopy, Millis, NewMessage, OnCommitted, Store, StoredMessage } from './store.js';

/** A row with its message's body, read from the stored source. */
const messageWithBodyFromRow = (row: Row) => withBody(messageFromRow(row), bytes(row.raw));

/** Most copies one transaction holds: a copy's place in its transaction is below 2^16. */
const COPIES_MAX = 0xffff;
/** Most messages one batch carries (each source is a parameter of the statement). */
const BATCH_MESSAGES_MAX = 1_000;
/** Most bytes of sources one batch carries (a larger message goes alone). */
const BATCH_BYTES_MAX = 16 * 1024 * 1024;
/** Longest list of summaries an announcement carries (PostgreSQL takes up to 8000 bytes). */
const PAYLOAD_SUMMARIES_MAX = 7_000;
/** Longest a sender waits for readers to see its message (a transaction elsewhere holds the horizon), ms. */
const SETTLE_WAIT_MAX_MS = 50;
/** How soon the horizon is read again while announced messages wait for it, ms: first, and at most. */
const SETTLE_POLL_MS = 2;
const SETTLE_POLL_MAX_MS = 32;

/** One batch: every copy of its messages, their deliveries, and the rows as inserted. */
const insertBatch = (messages: number) => `
WITH src AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], ARRAY[${Array.from({ length: messages }, (_, i) => `$${13 + i}::bytea`).join(', ')}])
    WITH ORDINALITY AS s(from_json, to_json, cc_json, subject, received_at, size, raw, m)
), cp AS (
  SELECT * FROM unnest($7::int[], $8::text[], $9::text[]) WITH ORDINALITY AS c(m, mailbox_id, id, n)
), ins AS (
  INSERT INTO messages (seq, id, account_id, mailbox_id, mailbox, from_json, to_json, cc_json, subject, received_at, size, raw)
  SELECT (pg_current_xact_id()::text::bigint << 16) + c.n, c.id, b.account_id, b.id, b.address, s.from_json, s.to_json, s.cc_json, s.subject, s.received_at, s.size, s.raw
  FROM cp c JOIN src s ON s.m = c.m JOIN mailboxes b ON b.id = c.mailbox_id AND b.expires_at > s.received_at
  RETURNING seq, id, account_id, mailbox_id, mailbox, received_at
), dl AS (
  INSERT INTO deliveries (id, webhook_id, account_id, event, message_id, mailbox_id, status, attempts, next_attempt_at, created_at)
  SELECT d.id, w.id, w.account_id, 'message.received', i.id, i.mailbox_id, 'pending', 0, i.received_at, i.received_at
  FROM unnest($10::text[], $11::text[], $12::text[]) AS d(id, message_id, webhook_id)
  JOIN ins i ON i.id = d.message_id JOIN webhooks w ON w.id = d.webhook_id AND w.account_id = i.account_id
  RETURNING id
)
SELECT i.seq::text AS seq, i.id, i.account_id, i.mailbox, (SELECT COALESCE(array_agg(id), '{}') FROM dl) AS deliveries FROM ins i`;

/** Batches of up to this many messages use a prepared statement, one per size (most batches are small). */
const PREPARED_MESSAGES_MAX = 16;
const insertStatement = (messages: number): Statement =>
  messages <= PREPARED_MESSAGES_MAX ? { name: `mailwright_insert_${messages}`, text: insertBatch(messages) } : insertBatch(messages);

/** Announces committed transactions to the fleet (see announce), and reads the horizon after them. */
const ANNOUNCE: Statement = {
  name: 'mailwright_announce',
  text: `SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2 || ' ' || x.h || E'\n' || $3), x.h::text AS h FROM (SELECT ${HORIZON_SQL} AS h) x`,
};

interface Job {
  copies: Array<{ mailboxId: string; webhookIds: string[]; id: string }>;
  message: NewMessage;
  now: Millis;
  onCommitted: OnCommitted | undefined;
  resolve(inserted: InsertedCopy[]): void;
  reject(error: unknown): void;
}

export type PgMessages = Pick<Store, 'insertMessage' | 'listMessages' | 'maxSeq' | 'listMailboxMessages' | 'countMailboxMessages' | 'getMessage' | 'getRawMessage'> & {
  /** Reports the other instances' commits, each once it is below the horizon. */
  watch(watcher: CommitWatcher): () => Promise<void>;
  close(): void;
};

export function pgMessages(db: PgDb): PgMessages {
  const counts = new MailboxCounts();
  const queue: Job[] = [];
  let writing = false;

  // ---- the horizon: what waits for it, and reading it while something does
  let horizon = 0;
  const waiting: Array<{ top: number; settle(): void }> = [];
  let poll: NodeJS.Timeout | undefined;
  let pollMs = SETTLE_POLL_MS;
  const observe = (h: number) => {
    horizon = Math.max(horizon, h);
    const due = waiting.filter((w) => w.top < horizon);
    if (due.length > 0) waiting.splice(0, waiting.length, ...waiting.filter((w) => w.top >= horizon));
    for (const w of due) {
      try {
        w.settle();
      } catch {
        // a listener's failure is its own; the others are still told
      }
    }
    if (waiting.length === 0) pollMs = SETTLE_POLL_MS;
    else if (!poll) {
      // The fleet's announcements carry the horizon too, so reading it is the fallback: less
      // often the longer something waits (a transaction left open elsewhere).
      poll = setTimeout(() => {
        pollMs = Math.min(pollMs * 2, SETTLE_POLL_MAX_MS);
        db.horizon().then(
          (h2) => { poll = undefined; observe(h2); },
          () => { poll = undefined; observe(horizon); },
        );
      }, pollMs);
      poll.unref();
    }
  };
  /** Calls `settle` once every position up to `top` is below the horizon. */
  const whenSettled = (top: number, settle: () => void) => {
    if (top < horizon) return settle();
    waiting.push({ top, settle });
    observe(horizon);
  };

  // ---- ingestion
  const write = async (jobs: Job[]) => {
    const messages = jobs.map((j) => j.message);
    const copies = jobs.flatMap((j, m) => j.copies.map((c) => ({ ...c, m: m + 1 })));
    const deliveries = copies.flatMap((c) => c.webhookIds.map((webhookId) => ({ id: newId('evt'), messageId: c.id, webhookId })));
    // Each source is a parameter of its own, sent as bytes (in an array it would go as hex text).
    const rows = await db.rows(insertStatement(messages.length), [
      messages.map((m) => (m.from ? JSON.stringify(m.from) : null)), messages.map((m) => JSON.stringify(m.to)), messages.map((m) => JSON.stringify(m.cc)),
      messages.map((m) => m.subject), jobs.map((j) => j.now), messages.map((m) => m.raw.length),
      copies.map((c) => c.m), copies.map((c) => c.mailboxId), copies.map((c) => c.id),
      deliveries.map((d) => d.id), deliveries.map((d) => d.messageId), deliveries.map((d) => d.webhookId),
      ...messages.map((m) => m.raw),
    ]);
    const inserted = new Map(rows.map((r) => [str(r.id), r]));
    const made = new Set<string>((rows[0]?.deliveries as string[] | undefined) ?? []);
    return jobs.map((job) => job.copies.flatMap((copy): InsertedCopy[] => {
      const row = inserted.get(copy.id);
      if (!row) return []; // its mailbox expired since the plan
      const accountId = str(row.account_id);
      const message: StoredMessage = {
        id: copy.id, seq: num(row.seq), accountId, mailboxId: copy.mailboxId, mailbox: str(row.mailbox),
        from: job.message.from, to: job.message.to, cc: job.message.cc, subject: job.message.subject, receivedAt: job.now, size: job.message.raw.length,
      };
      const owed: DeliveryRecord[] = deliveries.filter((d) => d.messageId === copy.id && made.has(d.id)).map((d) => ({
        id: d.id, webhookId: d.webhookId, accountId, event: 'message.received', messageId: copy.id, mailboxId: copy.mailboxId,
        status: 'pending', attempts: 0, nextAttemptAt: job.now, createdAt: job.now,
      }));
      return [{ message, deliveries: owed }];
    }));
  };

  /**
   * Tells the other instances of committed batches, then answers their senders; `onCommitted`
   * listeners are told once a batch is below the horizon (readers see it from then on): at once
   * unless a transaction begun before it is still open somewhere. One announcement at a time:
   * batches committed while one is under way go together in the next.
   */
  let told: Array<{ jobs: Job[]; results: InsertedCopy[][] }> = [];
  let telling = false;
  const announce = async () => {
    if (telling || told.length === 0) return;
    telling = true;
    const batches = told;
    told = [];
    const copies = batches.flatMap((b) => b.results.flat());
    if (copies.length > 0) {
      // A batch's copies share one transaction: its id is their seq >> 16. The summaries ride
      // along when they fit, so the other instances need not read them. The notification is
      // not durable itself (nothing to lose: the messages are), so its commit holds
      // PostgreSQL's notification lock for no flush; the same statement reads the horizon.
      const xids = [...new Set(copies.map((c) => Math.floor(c.message.seq / 0x10000)))].join(',');
      const owed = copies.some((c) => c.deliveries.length > 0) ? 'd' : '-';
      const summaries = JSON.stringify(copies.map(({ message: m }) => [m.seq, m.id, m.accountId, m.mailboxId, m.mailbox, m.from, m.to, m.cc, m.subject, m.receivedAt, m.size]));
      await db.row(
        ANNOUNCE,
        [db.channel('messages'), `${db.instance} ${xids} ${owed}`, Buffer.byteLength(summaries) <= PAYLOAD_SUMMARIES_MAX ? summaries : ''],
      ).then((row) => observe(num(row!.h)), () => {});
    }
    for (const { jobs, results } of batches) {
      const seqs = results.flat().map((c) => c.message.seq);
      const answer = () => jobs.forEach((job, i) => job.resolve(results[i]!));
      if (seqs.length === 0) {
        answer();
        continue;
      }
      // The senders are answered once readers see their messages, or after a bound when a
      // transaction elsewhere holds the horizon (their messages are durable; listeners are
      // told when it passes).
      const bound = setTimeout(answer, SETTLE_WAIT_MAX_MS);
      whenSettled(Math.max(...seqs), () => {
        clearTimeout(bound);
        jobs.forEach((job, i) => {
          try {
            if (results[i]!.length > 0) job.onCommitted?.(results[i]!);
          } catch {
            // a listener's failure is its own; the senders are still answered
          }
        });
        answer();
      });
    }
    telling = false;
    void announce();
  };

  const pump = () => {
    if (writing || queue.length === 0) return;
    writing = true;
    const batch: Job[] = [];
    let copies = 0;
    let size = 0;
    while (queue.length > 0) {
      const next = queue[0]!;
      if (batch.length > 0 && (batch.length === BATCH_MESSAGES_MAX || copies + next.copies.length > COPIES_MAX || size + next.message.raw.length > BATCH_BYTES_MAX)) break;
      batch.push(queue.shift()!);
      copies += next.copies.length;
      size += next.message.raw.length;
    }
    void (async () => {
      try {
        // The next batch is written while this one is announced.
        const results = await write(batch).catch(async (error: unknown) => {
          if (batch.length === 1) throw error;
          // One bad message must not fail the others: each is written alone.
          return Promise.all(batch.map((job) => write([job]).then(([r]) => r!, (e: unknown) => (job.reject(e), null))));
        });
        const written = batch.flatMap((job, i) => (results[i] ? [{ job, result: results[i] }] : []));
        told.push({ jobs: written.map((w) => w.job), results: written.map((w) => w.result) });
        void announce();
      } catch (error) {
        batch[0]!.reject(error);
      } finally {
        writing = false;
        pump();
      }
    })();
  };


  return {
    insertMessage(plan: readonly CopyPlan[], message: NewMessage, now: Millis, onCommitted?: OnCommitted) {
      return new Promise<InsertedCopy[]>((resolve, reject) => {
        const seen = new Set<string>();
        const copies = plan.filter((c) => !seen.has(c.mailboxId) && seen.add(c.mailboxId)).map((c) => ({ mailboxId: c.mailboxId, webhookIds: [...new Set(c.webhookIds)], id: newId('msg') }));
        if (copies.length > COPIES_MAX) return reject(Object.assign(new Error(`a message to ${copies.length} mailboxes exceeds the ${COPIES_MAX} copies one transaction holds; send it to fewer recipients`), { code: 'MW_ERR_TOO_MANY_COPIES' }));
        queue.push({ copies, message, now, onCommitted, resolve, reject });
        pump();
      });
    },

    async listMessages(input) {
      const columns = (input.includeBody ? RAW_COLUMNS : SUMMARY_COLUMNS).split(', ').map((c) => `m.${c}`).join(', ');
      const rows = await db.rows(
        `SELECT ${columns} FROM messages m JOIN mailboxes b ON b.id = m.mailbox_id
         WHERE m.account_id = $1 AND m.seq > $2 AND m.seq < ${HORIZON_SQL} AND b.expires_at > $3 AND ($4::text[] IS NULL OR m.mailbox_id = ANY($4::text[]))
         ORDER BY m.seq LIMIT $5`,
        [input.accountId, input.afterSeq, input.now, input.mailboxIds ?? null, input.limit],
      );
      return input.includeBody ? Promise.all(rows.map(messageWithBodyFromRow)) : rows.map(messageFromRow);
    },

    async maxSeq() {
      // The highest position below the horizon: nothing can still turn up at or below it.
      return num((await db.row(`SELECT COALESCE(MAX(seq), 0) AS seq FROM messages WHERE seq < ${HORIZON_SQL}`))?.seq ?? 0);
    },

    async listMailboxMessages(mailboxId, input) {
      const rows = await db.rows(
        `SELECT ${SUMMARY_COLUMNS} FROM messages WHERE mailbox_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3`,
        [mailboxId, input.beforeSeq ?? Number.MAX_SAFE_INTEGER, input.limit],
      );
      return rows.map(messageFromRow);
    },

    async countMailboxMessages(mailboxId) {
      // Counted once up to the horizon (nothing changes below it), then only what came after;
      // messages above it, committed but not yet settled, are added to this answer alone.
      let fresh = 0;
      const settled = await counts.count(mailboxId, async (after) => {
        const row = await db.row(
          `SELECT COUNT(*) FILTER (WHERE seq < h) AS n, COUNT(*) FILTER (WHERE seq >= h) AS fresh, MAX(seq) FILTER (WHERE seq < h) AS top
           FROM messages, (SELECT ${HORIZON_SQL} AS h) x WHERE mailbox_id = $1 AND seq > $2`,
          [mailboxId, after],
        );
        fresh = num(row?.fresh ?? 0);
        return row;
      });
      return settled + fresh;
    },

    async getMessage(accountId, mailboxId, messageId) {
      const row = await db.row(`SELECT ${RAW_COLUMNS} FROM messages WHERE id = $1 AND mailbox_id = $2 AND account_id = $3`, [messageId, mailboxId, accountId]);
      return row ? messageWithBodyFromRow(row) : null;
    },

    async getRawMessage(accountId, mailboxId, messageId) {
      const row = await db.row('SELECT raw FROM messages WHERE id = $1 AND mailbox_id = $2 AND account_id = $3', [messageId, mailboxId, accountId]);
      return row ? bytes(row.raw) : null;
    },

    watch(watcher) {
      // Announced transactions of the other instances: told at once when the announcement
      // carries their summaries, else read together when several arrive at once.
      let pending = new Map<number, boolean>();
      const tell = (found: StoredMessage[], owed: (m: StoredMessage) => boolean) => {
        if (found.length > 0) whenSettled(Math.max(...found.map((m) => m.seq)), () => found.forEach((m) => watcher.onMessage(m, owed(m))));
      };
      const read = () => {
        const announced = pending;
        pending = new Map();
        const ranges = [...announced.keys()].map((x) => `(seq >= ${x * 0x10000} AND seq < ${(x + 1) * 0x10000})`).join(' OR ');
        db.rows(`SELECT ${SUMMARY_COLUMNS}, ${HORIZON_SQL}::text AS h FROM messages WHERE ${ranges} ORDER BY seq`).then((rows: Row[]) => {
          if (rows.length > 0) observe(num(rows[0]!.h));
          tell(rows.map(messageFromRow), (m) => announced.get(Math.floor(m.seq / 0x10000)) ?? true);
        }, () => watcher.onResync());
      };
      return db.subscribe({
        onNotification(kind, payload) {
          if (kind !== 'messages') return;
          const [head = '', summaries = ''] = payload.split('\n');
          const [instance, xids = '', deliveries, h] = head.split(' ');
          if (instance === db.instance || !/^\d+(,\d+)*$/.test(xids)) return; // this instance's own, told already
          observe(num(h ?? 0) || 0);
          if (summaries) {
            type Summary = [number, string, string, string, string, StoredMessage['from'], StoredMessage['to'], StoredMessage['cc'], string, number, number];
            const found = (JSON.parse(summaries) as Summary[]).map(([seq, id, accountId, mailboxId, mailbox, from, to, cc, subject, receivedAt, size]): StoredMessage =>
              ({ id, seq, accountId, mailboxId, mailbox, from, to, cc, subject, receivedAt, size }));
            return tell(found, () => deliveries !== '-');
          }
          const first = pending.size === 0;
          for (const xid of xids.split(',')) pending.set(Number(xid), deliveries !== '-');
          if (first) setImmediate(read);
        },
        onUp(again) {
          if (!again) return;
          // Anything committed while not listening is found by re-checking the store, once
          // all of it is below the horizon (a re-check before then would not see it).
          db.row(`SELECT COALESCE(MAX(seq), 0)::text AS top, ${HORIZON_SQL}::text AS h FROM messages`).then((row) => {
            observe(num(row!.h));
            whenSettled(num(row!.top), () => watcher.onResync());
          }, () => watcher.onResync());
        },
        onDown() {},
      });
    },

    close() {
      if (poll) clearTimeout(poll);
      waiting.length = 0;
    },
  };
}

