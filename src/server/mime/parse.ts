// Owns reading a raw RFC 5322 source. The store keeps each message once, as received; what
// the service shows of it is read from those bytes with one parser (postal-mime), so every
// view agrees:
// - `parseSummary`: sender, recipients and subject, from the header block only (ingestion
//   stores them beside the source for listings; the body is not parsed on the commit path).
//   It reads the block as postal-mime's root node does (same line split, unfolding, UTF-8
//   decoding, size limit) with postal-mime's own address and encoded-word decoders, without
//   its stream and Blob machinery; a unit test holds it to the whole parse on every sample;
// - `parseBody`: headers, text, HTML and attachment metadata, from the whole MIME tree
//   (message reads, webhook bodies, the web UI).
// Malformed input never throws: whatever parses is kept, and the raw source is always stored.
import PostalMime, { addressParser, decodeWords, type Address as PostalAddress, type Email } from 'postal-mime';
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

/** postal-mime's default limit on the header block; past it the whole parse gives up too. */
const MAX_HEADERS_SIZE = 2 * 1024 * 1024;
const headerDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
const isWsp = (c: number) => c === 0x20 || c === 0x09;

function trimWsp(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isWsp(value.charCodeAt(start))) start++;
  while (end > start && isWsp(value.charCodeAt(end - 1))) end--;
  return value.slice(start, end);
}

/** The top-level header fields, unfolded, as `{ key (lower-case), value }`; null past the size limit. */
function readHeaderBlock(raw: Buffer): Array<{ key: string; value: string }> | null {
  const folded: string[][] = [];
  let size = 0;
  let start = 0;
  while (start < raw.length) {
    // A line ends at LF; CR and LF at its end are not part of it (as postal-mime reads lines).
    let newline = raw.indexOf(10, start);
    if (newline === -1) newline = raw.length;
    let end = newline;
    while (end > start && (raw[end - 1] === 13 || raw[end - 1] === 10)) end--;
    if (end === start) break; // the blank line that ends the block
    size += end - start;
    if (size > MAX_HEADERS_SIZE) return null;
    const line = headerDecoder.decode(raw.subarray(start, end));
    const last = folded.at(-1);
    if (last && isWsp(line.charCodeAt(0))) last.push(line);
    else folded.push([line]);
    start = newline + 1;
  }
  return folded.map((parts) => {
    const unfolded = parts.join('');
    const sep = unfolded.indexOf(':');
    const key = trimWsp(sep < 0 ? unfolded : unfolded.slice(0, sep)).toLowerCase();
    return { key, value: sep < 0 ? '' : trimWsp(unfolded.slice(sep + 1).replace(/[\r\n]+/g, ' ')) };
  });
}

/** Sender, recipients and subject, read from the header block alone (as the whole parse reads them). */
export async function parseSummary(raw: Buffer): Promise<MessageSummary> {
  try {
    const headers = readHeaderBlock(raw);
    if (!headers) return parseFallback(raw);
    const first = (key: string) => headers.find((h) => h.key === key)?.value || '';
    const every = (key: string) => headers.filter((h) => h.key === key && h.value).flatMap((h) => addressParser(h.value));
    const from = first('from');
    const subject = first('subject');
    return {
      from: from ? (flattenAddresses(addressParser(from).slice(0, 1))[0] ?? null) : null,
      to: flattenAddresses(every('to')),
      cc: flattenAddresses(every('cc')),
      subject: subject ? decodeWords(subject) : '',
    };
  } catch {
    return parseFallback(raw);
  }
}

/** Headers, text, HTML and attachment metadata of a stored source. */
export async function parseBody(raw: Buffer): Promise<MessageBody> {
  try {
    return bodyOf(await PostalMime.parse(raw));
  } catch {
    return parseFallback(raw);
  }
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
