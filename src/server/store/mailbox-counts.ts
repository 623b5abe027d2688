// Owns the message count of a mailbox view (`total` of GET /api/emails/{mailbox}) for both
// backends: it costs what is new since the mailbox was last counted, not all of it (~4 ms at
// 100,000 messages). A mailbox only gains messages while it lives, and none appears below a
// position once counted (SQLite's write lock; Postgres counts below its horizon and adds what is
// above to each answer), so the count up to the highest position counted never changes.

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
