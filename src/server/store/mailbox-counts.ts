// Owns the message count of a mailbox view (`total` of GET /api/emails/{mailbox}) for both
// backends, so that it costs the messages new since the mailbox was last counted rather than
// all of them (a COUNT over a 100,000-message mailbox took ~4 ms of every view here).
//
// It rests on two facts of the stores: a mailbox only gains messages while it lives (they are
// deleted with it, after it expired), and no message appears below a position once counted
// (SQLite's write lock makes positions visible in order; Postgres counts only below its
// visibility horizon here and adds what is above it to each answer, see postgres-messages.ts).
// So the messages at or below the highest position once counted never change, and a count of
// those above it, added to the count before, is the mailbox's count in that statement's snapshot.

import { optNum, type Row } from './rows.js';

/** A mailbox's count up to and including position `top`. */
interface Counted {
  n: number;
  top: number;
}

/** Most mailboxes whose counts are kept; beyond it, the counts start over. */
const MAILBOXES_KEPT = 1_000;

/** SQLite's query, with (mailbox id, `after`): the mailbox's messages after position `after`, and the highest of them (null if none). Postgres counts up to its horizon instead (postgres-messages.ts). */
export const COUNT_AFTER_SQLITE = 'SELECT COUNT(*) AS n, MAX(seq) AS top FROM messages WHERE mailbox_id = ? AND seq > ?';

/** Message counts per mailbox, each counted once and then only for what arrived since. */
export class MailboxCounts {
  readonly #known = new Map<string, Counted>();

  /**
   * The mailbox's message count. `countAfter(after)` answers a row of `n` and `top` (as {@link COUNT_AFTER_SQLITE}) for
   * the mailbox; calls for the same mailbox may overlap (each adds to what it started from).
   */
  async count(mailboxId: string, countAfter: (after: number) => Promise<Row | undefined> | Row | undefined): Promise<number> {
    const from = this.#known.get(mailboxId);
    const row = await countAfter(from?.top ?? -1);
    const counted: Counted = { n: (from?.n ?? 0) + Number(row?.n ?? 0), top: optNum(row?.top) ?? from?.top ?? -1 };
    const now = this.#known.get(mailboxId);
    if (!now || counted.top > now.top) {
      if (!now && this.#known.size >= MAILBOXES_KEPT) this.#known.clear();
      this.#known.set(mailboxId, counted);
    }
    return counted.n;
  }
}
