// Owns the messages of the Postgres store: ingestion with group commit, reads by cursor, and
// the announcements that wake long-polls on every instance. A message's seq is its inserting
// transaction's id times 2^16 plus its place in it, so instances commit in parallel without a
// fleet-wide lock; cursor reads return only what is below the visibility horizon (HORIZON_SQL),
// so nothing turns up later behind a cursor. Messages arriving while a batch is written go in
// the next one: one CALL (migration 5) commits their copies and deliveries, announces them in a
// transaction of its own (PostgreSQL serialises notifying commits) and reads the horizon.
import { newId } from '../ids.js';
import { MailboxCounts } from './mailbox-counts.js';
import { HORIZON_SQL, type PgDb, type Statement } from './postgres-db.js';
import { bytes, messageFromRow, messageWithBodyFromRow, num, RAW_COLUMNS, str, SUMMARY_COLUMNS, type Row } from './rows.js';
import type { CommitWatcher, CopyPlan, DeliveryRecord, InsertedCopy, Millis, NewMessage, OnCommitted, StoreBackend, StoredMessage } from './store.js';

/** Most copies one transaction holds: a copy's place in its transaction is below 2^16. */
const COPIES_MAX = 0xffff;
/** Most messages one batch carries (one call: the sources go as one parameter, slices of it). */
const BATCH_MESSAGES_MAX = 1_000;
/** Most bytes of sources one batch carries (a larger message goes alone). */
const BATCH_BYTES_MAX = 16 * 1024 * 1024;
/** Longest a sender waits for readers to see its message (a transaction elsewhere holds the horizon), ms. */
const SETTLE_WAIT_MAX_MS = 50;
/** How soon the horizon is read again while announced messages wait for it, ms: first, and at most. */
const SETTLE_POLL_MS = 2;
const SETTLE_POLL_MAX_MS = 32;

/** Writes one batch and announces it (the procedure of migration 5), prepared once per connection. */
const INGEST: Statement = {
  name: 'mailwright_ingest',
  text: `CALL mailwright_ingest(${Array.from({ length: 16 }, (_, i) => `$${i + 1}`).join(', ')})`,
};

interface Job {
  copies: Array<{ mailboxId: string; webhookIds: string[]; id: string }>;
  message: NewMessage;
  now: Millis;
  onCommitted: OnCommitted | undefined;
  resolve(inserted: InsertedCopy[]): void;
  reject(error: unknown): void;
}

export type PgMessages = Pick<StoreBackend, 'insertMessage' | 'listMessages' | 'maxSeq' | 'countMailboxMessages' | 'getMessage' | 'getRawMessage'> & {
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
  /**
   * The batch's rows when its CALL failed after the insert committed (the announcement or the
   * connection failed): read back, so the senders are answered and no retry stores them twice
   * (the other instances are not told: their waiters find the messages on their next read).
   * Throws `error` when nothing of the batch is stored.
   */
  const committedAnyway = async (ids: string[], error: unknown): Promise<Row> => {
    const row = await db.row(
      `SELECT array_agg(seq::text ORDER BY seq) AS seqs, array_agg(id ORDER BY seq) AS ids, array_agg(account_id ORDER BY seq) AS accounts, array_agg(mailbox ORDER BY seq) AS addresses,
         (SELECT array_agg(id) FROM deliveries WHERE message_id = ANY($1)) AS deliveries, ${HORIZON_SQL}::text AS horizon
       FROM messages WHERE id = ANY($1)`,
      [ids],
    ).catch(() => undefined);
    if (!row?.seqs) throw error;
    return row;
  };

  /** Writes `jobs` as one batch and announces it; the rows as written and the horizon after. */
  const write = async (jobs: Job[]) => {
    const messages = jobs.map((j) => j.message);
    const copies = jobs.flatMap((j, m) => j.copies.map((c) => ({ ...c, m: m + 1 })));
    const deliveries = copies.flatMap((c) => c.webhookIds.map((webhookId) => ({ id: newId('evt'), messageId: c.id, webhookId })));
    let start = 0;
    const starts = messages.map((m) => (start += m.raw.length) - m.raw.length);
    const row = await db.row(INGEST, [
      messages.map((m) => (m.from ? JSON.stringify(m.from) : null)), messages.map((m) => JSON.stringify(m.to)), messages.map((m) => JSON.stringify(m.cc)),
      messages.map((m) => m.subject), jobs.map((j) => j.now), messages.map((m) => m.raw.length), starts,
      // The sources as one parameter, sent as bytes (in an array they would go as hex text).
      messages.length === 1 ? messages[0]!.raw : Buffer.concat(messages.map((m) => m.raw)),
      copies.map((c) => c.m), copies.map((c) => c.mailboxId), copies.map((c) => c.id),
      deliveries.map((d) => d.id), deliveries.map((d) => d.messageId), deliveries.map((d) => d.webhookId),
      db.channel('messages'), db.instance,
    ]).catch((error: unknown) => committedAnyway(copies.map((c) => c.id), error));
    const seqs = (row!.seqs as string[] | null) ?? [];
    const ids = (row!.ids as string[] | null) ?? [];
    const accounts = (row!.accounts as string[] | null) ?? [];
    const addresses = (row!.addresses as string[] | null) ?? [];
    // The copies as written (each one's position, account and address), and the deliveries made.
    const written = new Map(ids.map((id, i) => [id, { seq: Number(seqs[i]), accountId: accounts[i]!, mailbox: addresses[i]! }]));
    const made = new Set((row!.deliveries as string[] | null) ?? []);
    observe(num(row!.horizon));
    return jobs.map((job) => job.copies.flatMap((copy): InsertedCopy[] => {
      const stored = written.get(copy.id);
      if (!stored) return []; // its mailbox expired since the plan
      const { seq, accountId, mailbox } = stored;
      const message: StoredMessage = {
        id: copy.id, seq, accountId, mailboxId: copy.mailboxId, mailbox,
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
   * Answers a written batch's senders once readers see their messages, and tells `onCommitted`
   * listeners then: at once unless a transaction begun before the batch is still open
   * somewhere; after a bound the senders are answered anyway (their messages are durable) and
   * the listeners are told when the horizon passes.
   */
  const settle = (jobs: Job[], results: InsertedCopy[][]) => {
    const seqs = results.flat().map((c) => c.message.seq);
    const answer = () => jobs.forEach((job, i) => job.resolve(results[i]!));
    if (seqs.length === 0) return answer();
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
        const results = await write(batch).catch(async (error: unknown) => {
          if (batch.length === 1) throw error;
          // One bad message must not fail the others: each is written alone.
          return Promise.all(batch.map((job) => write([job]).then(([r]) => r!, (e: unknown) => (job.reject(e), null))));
        });
        const written = batch.flatMap((job, i) => (results[i] ? [{ job, result: results[i] }] : []));
        settle(written.map((w) => w.job), written.map((w) => w.result));
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

