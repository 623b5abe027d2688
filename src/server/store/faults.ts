// Owns the store's fault rules, for both backends: what SMTP does instead of its normal answer
// for one mailbox, and how often. A use is one atomic statement, so instances using a rule at
// once never pass its `times`. The recipient look-up carries a mailbox's rules not yet spent
// (ACTIVE_FAULTS), so a mailbox without rules costs ingest nothing more.
import { newId } from '../ids.js';
import { FAULT_COLUMNS, faultFromRow } from './rows.js';
import { acknowledged, type Sql } from './sql.js';
import type { FaultRecord } from './store.js';

/** The rules of the mailbox `m` not yet spent (the recipient look-ups' subquery filter); order them by {@link faultOrder}. */
export const ACTIVE_FAULTS = 'FROM faults WHERE mailbox_id = m.id AND (times IS NULL OR hits < times)';
/** Oldest first, in the order they were added (two added in one millisecond too). */
export const faultOrder = (insertionOrder: string) => `created_at, ${insertionOrder}`;
/** The columns of a rule as one array expression's arguments, in FAULT_COLUMNS' order. */
export const FAULT_VALUES = FAULT_COLUMNS.join(', ');

/** The fault rules part of the store on `sql`. */
export function faults(sql: Sql) {
  return {
    /** Adds a fault rule to a mailbox (its hits start at 0). */
    async addFault(input: Omit<FaultRecord, 'id' | 'hits'>) {
      const fault: FaultRecord = { ...input, id: newId('flt'), hits: 0 };
      await sql.run(
        `INSERT INTO faults (id, mailbox_id, stage, code, enhanced_code, message, delay_ms, disconnect, times, hits, probability, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
        fault.id, fault.mailboxId, fault.stage, fault.code, fault.enhancedCode, fault.message, fault.delayMs, fault.disconnect, fault.times, fault.probability, fault.createdAt,
      );
      return acknowledged(sql, fault);
    },
    /** A mailbox's fault rules, spent ones too, oldest first. */
    async listFaults(mailboxId: string) {
      return (await sql.all(`SELECT * FROM faults WHERE mailbox_id = ? ORDER BY ${faultOrder(sql.dialect.insertionOrder)}`, mailboxId)).map(faultFromRow);
    },
    /** Deletes a mailbox's fault rules; how many there were. */
    async clearFaults(mailboxId: string) {
      return acknowledged(sql, await sql.run('DELETE FROM faults WHERE mailbox_id = ?', mailboxId));
    },
    /** Counts one use of a rule, atomically across instances: the rule after it, or null when it was spent or cleared meanwhile. */
    async takeFault(id: string) {
      const row = await sql.get('UPDATE faults SET hits = hits + 1 WHERE id = ? AND (times IS NULL OR hits < times) RETURNING *', id);
      return row ? faultFromRow(row) : null;
    },
  };
}

export type Faults = ReturnType<typeof faults>;
