// Owns the All mail page: the messages of the signed-in account's live mailboxes, newest first,
// a page at a time, searched when asked (the store searches), each row with a snippet of its
// text and an attachment mark; and the list helpers the mailbox page shares with it.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { decodeCursor, encodeCursor } from '../../api/cursor.js';
import type { ServiceContext } from '../../context.js';
import type { MessageBody } from '../../mime/parse.js';
import type { StoredMessage } from '../../store/store.js';
import { userOf } from '../plugin.js';

/** Messages per page of a list. */
export const PAGE_SIZE = 50;
/** Characters of a message's text its row shows. */
const SNIPPET_CHARS = 100;
/** The longest search text taken; the rest is ignored. */
const QUERY_MAX = 200;
/** Characters of a message's text (of its HTML, when it has none) read for its snippet. */
const SNIPPET_READ = 64 * 1024;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** A list page's search text ('' for none) and the seq its page ends below, from its query string. */
export function listQuery(request: FastifyRequest): { q: string; beforeSeq: number | undefined } {
  const query = request.query as Record<string, unknown>;
  const first = (value: unknown) => String((Array.isArray(value) ? value[0] : value) ?? '');
  const before = first(query.before);
  return { q: first(query.q).trim().slice(0, QUERY_MAX), beforeSeq: before ? decodeCursor(before, 'before') : undefined };
}

/** Roughly what HTML shows as text: without its tags and what head, style and script elements hold (in one pass: mail is untrusted). */
function textOfHtml(html: string): string {
  let hidden = 0;
  let text = '';
  html.split(/(<[^<>]*>)/).forEach((part, i) => {
    const element = i % 2 === 1 ? /^<(\/?)(?:head|style|script)\b/i.exec(part) : null;
    if (element) hidden = Math.max(0, hidden + (element[1] ? -1 : 1));
    else if (hidden === 0) text += i % 2 === 1 ? ' ' : part;
  });
  return text.replace(/&(#39|[a-z]+);/gi, (entity, name: string) => ENTITIES[name.toLowerCase()] ?? entity);
}

/** The start of a message's text (of its HTML's when it has none), its whitespace collapsed. */
export function snippetOf(body: MessageBody | undefined): string {
  const text = body?.text?.slice(0, SNIPPET_READ) ?? (body?.html ? textOfHtml(body.html.slice(0, SNIPPET_READ)) : '');
  // Enough UTF-16 units for the characters shown, and one more to tell that there are more.
  const chars = [...text.replace(/\s+/g, ' ').trim().slice(0, SNIPPET_CHARS * 2 + 1)];
  return chars.length > SNIPPET_CHARS ? `${chars.slice(0, SNIPPET_CHARS).join('').trimEnd()}…` : chars.join('');
}

/** A message as a row of a list (views/message-row.eta): with its snippet and whether it has attachments, read from its body. */
export function listed(m: StoredMessage) {
  return { ...m, snippet: snippetOf(m.body), hasAttachments: (m.body?.attachments.length ?? 0) > 0 };
}

/** The link to the page after `messages` of the list at `path` (searching `q`); null when that was the last. */
export function olderLink(path: string, q: string, messages: readonly StoredMessage[]): string | null {
  const last = messages.at(-1);
  if (messages.length < PAGE_SIZE || !last) return null;
  return `${path}?${new URLSearchParams({ ...(q ? { q } : {}), before: encodeCursor(last.seq) })}`;
}

export async function allMailPages(app: FastifyInstance, { ctx }: { ctx: ServiceContext }): Promise<void> {
  const { store, clock } = ctx;

  app.get('/messages', async (request, reply) => {
    const { q, beforeSeq } = listQuery(request);
    const messages = await store.searchMessages({ accountId: userOf(request).id, query: q, beforeSeq, limit: PAGE_SIZE, includeBody: true, now: clock.now() });
    return reply.page('all-mail', { title: 'All mail', nav: 'messages', q, messages: messages.map(listed), older: olderLink('/messages', q, messages) });
  });
}
