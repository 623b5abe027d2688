// Owns listing mail newest first, for both backends: a mailbox's pages, and the mail of an account's live mailboxes (All mail),
// searched when asked, literally and in any case of ASCII letters, in the subject, sender, recipients and the source as received
// (so text a body carries in base64 is not found, nor a word that quoted-printable splits or encodes).
import { messageFromRow, messageWithBodyFromRow, RAW_COLUMNS, SUMMARY_COLUMNS } from './rows.js';
import type { Param, Sql } from './sql.js';
import type { Millis, StoredMessage } from './store.js';

/** The listing part of the store on `sql`. */
export function search(sql: Sql) {
  const { position, rawText, spell } = sql.dialect.search;
  // lower() folds ASCII letters in SQLite, all letters of PostgreSQL's text; SQLite's LIKE would stop at a zero byte.
  const found = ['m.subject', 'm.from_json', 'm.to_json', 'm.cc_json', rawText('m.raw')].map((c) => `${position}(lower(${c}), lower(?)) > 0`).join(' OR ');
  return {
    /** A mailbox's messages newest first, those with seq < beforeSeq when given. */
    listMailboxMessages: async (mailboxId: string, input: { beforeSeq?: number; limit: number }) =>
      (await sql.all(`SELECT ${SUMMARY_COLUMNS} FROM messages WHERE mailbox_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, mailboxId, input.beforeSeq ?? Number.MAX_SAFE_INTEGER, input.limit)).map(messageFromRow),
    /** The account's messages in its live mailboxes (in `mailboxId`, by its own index, when given) that `query` finds (all without one), newest first, those with seq < beforeSeq when given. */
    async searchMessages(input: { accountId: string; mailboxId?: string; query?: string; beforeSeq?: number; limit: number; includeBody?: boolean; now: Millis }): Promise<StoredMessage[]> {
      const query = input.query?.trim();
      const params: Param[] = [input.mailboxId ?? input.accountId, input.accountId, input.now, input.beforeSeq ?? Number.MAX_SAFE_INTEGER];
      if (query) params.push(query, query, query, query, spell(query));
      const rows = await sql.all(`SELECT ${(input.includeBody ? RAW_COLUMNS : SUMMARY_COLUMNS).replace(/\w+/g, 'm.$&')} FROM messages m JOIN mailboxes b ON b.id = m.mailbox_id
        WHERE m.${input.mailboxId ? 'mailbox_id' : 'account_id'} = ? AND b.account_id = ? AND b.expires_at > ? AND m.seq < ?${query ? ` AND (${found})` : ''} ORDER BY m.seq DESC LIMIT ?`, ...params, input.limit);
      return input.includeBody ? Promise.all(rows.map(messageWithBodyFromRow)) : rows.map(messageFromRow);
    },
  };
}
export type Search = ReturnType<typeof search>;
