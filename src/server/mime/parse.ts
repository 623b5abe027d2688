// Owns reading a raw RFC 5322 source. The store keeps each message once, as received; what
// the service shows of it is read from those bytes with one parser, postal-mime, once per use:
// - `parseSummary`: sender, recipients and subject, which ingestion stores beside the source:
//   postal-mime given the header block alone (the whole parse of a 2 KB text message costs
//   ~30 times as much here, on the path every message takes);
// - `parseMessage`: the summary and the body (headers, text, HTML, attachment metadata) from
//   one parse: ingestion's, for a message owed to a webhook (its payload);
// - `parseBody` / `withBody`: what a message read shows beyond its summary (message reads,
//   `include=body` polls, the web UI).
// Malformed input never throws: whatever parses is kept, and the raw source is always stored.
import PostalMime, { type Address as PostalAddress, type Email } from 'postal-mime';
import type { Address, Attachment, Headers } from '../../protocol/index.js';

/** The envelope-like fields stored with every copy of a message. */
export interface MessageSummary {
  from: Address | null;
  to: Address[];
  cc: Address[];
  subject: string;
}

/** What a message read shows beyond its summary. */
export interface MessageBody {
  headers: Headers;
  text: string | null;
  html: string | null;
  attachments: Attachment[];
}

/** A whole parsed message with its source (the extraction tests and benchmarks read these). */
export type ParsedMessage = MessageSummary & MessageBody & { raw: Buffer };

function flattenAddresses(list: PostalAddress[] | undefined): Address[] {
  const out: Address[] = [];
  for (const entry of list ?? []) {
    if ('group' in entry && Array.isArray(entry.group)) out.push(...flattenAddresses(entry.group));
    else if (entry.address) out.push({ address: entry.address, name: entry.name ?? '' });
  }
  return out;
}

function collectHeaders(list: Array<{ key: string; value: string }>): Headers {
  const headers: Headers = {};
  for (const { key, value } of list) {
    if (!key || /[^\x21-\x7e]/.test(key)) continue; // not a header line
    const existing = headers[key];
    if (existing === undefined) headers[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else headers[key] = [existing, value];
  }
  return headers;
}

function summaryOf(email: Email): MessageSummary {
  return {
    from: flattenAddresses(email.from ? [email.from] : [])[0] ?? null,
    to: flattenAddresses(email.to),
    cc: flattenAddresses(email.cc),
    subject: email.subject ?? '',
  };
}

function bodyOf(email: Email): MessageBody {
  return {
    headers: collectHeaders(email.headers),
    text: email.text ?? null,
    html: email.html ?? null,
    attachments: email.attachments.map((a) => ({
      filename: a.filename ?? null,
      contentType: a.mimeType || 'application/octet-stream',
      size: typeof a.content === 'string' ? Buffer.byteLength(a.content) : a.content.byteLength,
      contentId: a.contentId ?? null,
    })),
  };
}

/**
 * The header block of `raw`, up to and with the blank line that ends it (postal-mime drops a
 * line's trailing CRs, so a line of CRs is blank too); the whole source when it has none.
 */
function headerBlockOf(raw: Buffer): Buffer {
  for (let line = 0; line < raw.length;) {
    let at = line;
    while (raw[at] === 13) at++;
    if (raw[at] === 10) return raw.subarray(0, at + 1);
    const end = raw.indexOf(10, at);
    if (end === -1) break;
    line = end + 1;
  }
  return raw;
}

/** Sender, recipients and subject: what {@link parseMessage} reads of them, from the header block alone. */
export async function parseSummary(raw: Buffer): Promise<MessageSummary> {
  const { from, to, cc, subject } = await parseMessage(headerBlockOf(raw));
  return { from, to, cc, subject };
}

/** The whole message: summary and body from one parse. */
export async function parseMessage(raw: Buffer): Promise<ParsedMessage> {
  try {
    const email = await PostalMime.parse(raw);
    return { ...summaryOf(email), ...bodyOf(email), raw };
  } catch {
    return parseFallback(raw);
  }
}

/** Headers, text, HTML and attachment metadata of a stored source. */
export async function parseBody(raw: Buffer): Promise<MessageBody> {
  const { headers, text, html, attachments } = await parseMessage(raw);
  return { headers, text, html, attachments };
}

/** `message` with its body: the one it has, or the one read from its source `raw`. */
export async function withBody<T extends { body?: MessageBody }>(message: T, raw: Buffer): Promise<T> {
  return { ...message, body: message.body ?? await parseBody(raw) };
}

/**
 * What is shown when the MIME parser gives up: the headers as they stand, and the body as
 * UTF-8 text. The header/body boundary is found on a latin1 view (one character per byte),
 * so its index is a byte offset: the body is sliced from the bytes, then decoded.
 */
export function parseFallback(raw: Buffer): ParsedMessage {
  const source = raw.toString('latin1');
  const split = source.search(/\r?\n\r?\n/);
  // Raw UTF-8 headers (SMTPUTF8) are decoded as such, like the body.
  const head = (split === -1 ? raw : raw.subarray(0, split)).toString('utf8');
  const pairs = head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/).map((line) => {
    const colon = line.indexOf(':');
    return colon > 0 ? { key: line.slice(0, colon).trim().toLowerCase(), value: line.slice(colon + 1).trim() } : { key: '', value: '' };
  });
  const headers = collectHeaders(pairs);
  const subject = headers.subject;
  return {
    from: null,
    to: [],
    cc: [],
    subject: Array.isArray(subject) ? (subject[0] ?? '') : (subject ?? ''),
    headers,
    text: split === -1 ? null : raw.subarray(split).toString('utf8').trim(),
    html: null,
    attachments: [],
    raw,
  };
}

/** One attachment's bytes, by its position in the parsed message (as stored); null when there is none. */
export async function attachmentContent(raw: Buffer, index: number): Promise<{ filename: string | null; contentType: string; content: Buffer } | null> {
  const email = await PostalMime.parse(raw);
  const attachment = email.attachments[index];
  if (!attachment) return null;
  const content = typeof attachment.content === 'string' ? Buffer.from(attachment.content) : Buffer.from(new Uint8Array(attachment.content));
  return { filename: attachment.filename ?? null, contentType: attachment.mimeType || 'application/octet-stream', content };
}
