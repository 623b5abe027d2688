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

/** A header block: its fields, unfolded, as `{ key (lower-case), value }`, and where the body starts. */
interface HeaderBlock {
  fields: Array<{ key: string; value: string }>;
  /** Offset of the first body byte (the end of the region when there is no body). */
  bodyStart: number;
  /** Bytes of its lines, without their line ends (postal-mime's header size limit counts these). */
  size: number;
}

/**
 * The header block that starts at `from` (the top-level one by default, or a part's, up to
 * `to`), or null past the size limit.
 */
function readHeaderBlock(raw: Buffer, from = 0, to = raw.length): HeaderBlock | null {
  const folded: string[][] = [];
  let size = 0;
  let start = from;
  while (start < to) {
    // A line ends at LF; CR and LF at its end are not part of it (as postal-mime reads lines).
    let newline = raw.indexOf(10, start);
    if (newline === -1 || newline >= to) newline = to;
    let end = newline;
    while (end > start && (raw[end - 1] === 13 || raw[end - 1] === 10)) end--;
    if (end === start) {
      // The blank line that ends the block.
      start = newline + 1;
      break;
    }
    size += end - start;
    if (size > MAX_HEADERS_SIZE) return null;
    const line = headerDecoder.decode(raw.subarray(start, end));
    const last = folded.at(-1);
    if (last && isWsp(line.charCodeAt(0))) last.push(line);
    else folded.push([line]);
    start = newline + 1;
  }
  const fields = folded.map((parts) => {
    const unfolded = parts.join('');
    const sep = unfolded.indexOf(':');
    const key = trimWsp(sep < 0 ? unfolded : unfolded.slice(0, sep)).toLowerCase();
    return { key, value: sep < 0 ? '' : trimWsp(unfolded.slice(sep + 1).replace(/[\r\n]+/g, ' ')) };
  });
  return { fields, bodyStart: Math.min(start, to), size };
}

/** The value of a block's first `key` field (lower-case), as postal-mime takes the first of repeated content headers. */
function fieldOf(block: HeaderBlock, key: string): string | undefined {
  return block.fields.find((h) => h.key === key)?.value;
}

/** The plainest address: `local@domain` of letters, digits and a few marks, nothing to unquote or decode. */
const PLAIN_ADDRESS = '[A-Za-z0-9][A-Za-z0-9._+-]*@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?';
const BARE_ADDRESS = new RegExp(`^${PLAIN_ADDRESS}$`);
const NAMED_ADDRESS = new RegExp(`^(?:([A-Za-z0-9]+(?: [A-Za-z0-9]+)*) )?<(${PLAIN_ADDRESS})>$`);

/**
 * The addresses of a header value, as postal-mime's addressParser reads them. Most mail names
 * one plain address: bare, in angle brackets or after a plain name. Those shapes are read here
 * without the parser, whose first call after a pause costs more than the rest of the summary
 * (it is on the path from SMTP to a waiting test) and which is a few µs of every message
 * ingested. The tests hold the two equal.
 */
function addressesIn(value: string): PostalAddress[] {
  if (BARE_ADDRESS.test(value)) return [{ address: value, name: '' }];
  const named = NAMED_ADDRESS.exec(value);
  if (named) return [{ address: named[2]!, name: named[1] ?? '' }];
  return addressParser(value);
}

/** Sender, recipients and subject, read from the header block alone (as the whole parse reads them). */
export async function parseSummary(raw: Buffer): Promise<MessageSummary> {
  try {
    const block = readHeaderBlock(raw);
    if (!block) return parseFallback(raw);
    const first = (key: string) => fieldOf(block, key) || '';
    const every = (key: string) => block.fields.filter((h) => h.key === key && h.value).flatMap((h) => addressesIn(h.value));
    const from = first('from');
    const subject = first('subject');
    return {
      from: from ? (flattenAddresses(addressesIn(from).slice(0, 1))[0] ?? null) : null,
      to: flattenAddresses(every('to')),
      cc: flattenAddresses(every('cc')),
      // Text without an encoded word (`=?`) is what decodeWords would give back.
      subject: subject.includes('=?') ? decodeWords(subject) : subject,
    };
  } catch {
    return parseFallback(raw);
  }
}

/** Headers, text, HTML and attachment metadata of a stored source. */
export async function parseBody(raw: Buffer): Promise<MessageBody> {
  const block = readHeaderBlock(raw);
  return (block && (singleFromBlock(raw, block) ?? alternativeFromBlock(raw, block))) ?? parseBodyWhole(raw);
}

/** {@link parseBody} without its shortcuts: always the whole parse (the tests hold the two equal). */
export async function parseBodyWhole(raw: Buffer): Promise<MessageBody> {
  try {
    return bodyOf(await PostalMime.parse(raw));
  } catch {
    return parseFallback(raw);
  }
}

// The shortcuts. Most mail an app under test sends is one text/plain or text/html part, or a
// multipart/alternative of one of each (text and HTML: what nodemailer builds from `text` and
// `html`), and its body is read on the path from SMTP to a waiting test (the long-poll
// answer, the webhook's payload). postal-mime builds a MIME tree for it with decoders, Blobs
// and a promise per line (~0.7 ms for a 2 KB alternative after a pause, ~0.1 ms read here);
// for these shapes the result is fixed, so they are read directly:
//   - headers: the top-level block, read as the summary reads it;
//   - a text part's body: each line with its trailing CR/LF dropped and a LF after it, passed
//     through (7bit, 8bit, binary), quoted-printable or base64 decoded as postal-mime decodes
//     them, then decoded from its charset;
//   - a single part: text/plain gives `text`, text/html gives `html`, the other stays null
//     (postal-mime renders the missing type only for multipart bodies); an empty body gives
//     neither;
//   - multipart/alternative: the lines from the top-level block on are split at its boundary
//     lines as postal-mime splits them (`--boundary`, `--` after it on the closing one,
//     trailing spaces or tabs allowed); what comes before the first boundary and after the
//     closing one is not shown; between them must be exactly two parts, one text/plain and
//     one text/html (each read as a single part is), and the closing boundary must be there;
//     the plain part gives `text`, the HTML part `html` (an empty one gives neither).
// Anything else (another multipart, another type, a parameter besides charset, or besides the
// boundary on the multipart, a Content-Disposition, a charset outside a few ASCII-compatible
// labels, an unusual encoding) takes the whole parse.

/** `Content-Type` values the shortcuts read as a text part: text/plain or text/html with at most a charset. */
const SINGLE_TEXT_TYPE = /^text\/(plain|html)[ \t]*(?:;[ \t]*charset[ \t]*=[ \t]*(?:"([\w.:-]+)"|([\w.:-]+))[ \t]*)?$/i;
/** `Content-Type` values the alternative shortcut reads: multipart/alternative with a boundary (of token characters) only. */
const ALTERNATIVE_TYPE = /^multipart\/alternative[ \t]*;[ \t]*boundary[ \t]*=[ \t]*(?:"([\w'+,./:=?-]+)"|([\w'+,./:=?-]+))[ \t]*$/i;
/** Charset labels the shortcuts decode: WHATWG labels postal-mime hands to TextDecoder as written. */
const SINGLE_TEXT_CHARSETS = ['utf-8', 'utf8', 'us-ascii', 'ascii', 'iso-8859-1', 'latin1', 'windows-1252', 'iso-8859-15'];
const charsetDecoders = new Map(SINGLE_TEXT_CHARSETS.map((label) => [label, new TextDecoder(label)]));
const BASE64_CHAR = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=') BASE64_CHAR[c.charCodeAt(0)] = 1;

/** A text part read as postal-mime reads it: whether it is HTML, and its text ('' read as null). */
interface TextPart {
  html: boolean;
  content: string | null;
}

/** The text part whose header block is `block` and whose body runs to `to`; null when it is not one the shortcuts read. */
function textPartOf(raw: Buffer, block: HeaderBlock, to: number): TextPart | null {
  if (fieldOf(block, 'content-disposition') !== undefined) return null;
  const type = SINGLE_TEXT_TYPE.exec(fieldOf(block, 'content-type') ?? 'text/plain');
  if (!type) return null;
  const decoder = charsetDecoders.get((type[2] ?? type[3] ?? 'utf-8').toLowerCase());
  if (!decoder) return null;
  const encoding = (fieldOf(block, 'content-transfer-encoding') ?? '7bit').toLowerCase();
  const decode = encoding === 'quoted-printable' ? quotedPrintable : encoding === 'base64' ? base64 : /^(7bit|8bit|binary)$/.test(encoding) ? passThrough : null;
  if (!decode) return null;
  return { html: type[1]!.toLowerCase() === 'html', content: decoder.decode(decode(raw, block.bodyStart, to)) || null };
}

function singleFromBlock(raw: Buffer, block: HeaderBlock): MessageBody | null {
  const part = textPartOf(raw, block, raw.length);
  if (!part) return null;
  return { headers: collectHeaders(block.fields), text: part.html ? null : part.content, html: part.html ? part.content : null, attachments: [] };
}

/** The body of a single text part, read as postal-mime reads it; null when the source is not one. Never throws. */
export function singleTextPart(raw: Buffer): MessageBody | null {
  const block = readHeaderBlock(raw);
  return block && singleFromBlock(raw, block);
}

/** Whether the line `raw[start, end)` is `--boundary` (`closing`: with `--` after it), then only spaces or tabs. */
function boundaryLine(raw: Buffer, start: number, end: number, delimiter: Buffer): 'open' | 'closing' | null {
  if (end - start < delimiter.length || raw.compare(delimiter, 0, delimiter.length, start, start + delimiter.length) !== 0) return null;
  let at = start + delimiter.length;
  const closing = end - at >= 2 && raw[at] === 0x2d && raw[at + 1] === 0x2d;
  if (closing) at += 2;
  for (; at < end; at++) if (raw[at] !== 0x20 && raw[at] !== 0x09) return null;
  return closing ? 'closing' : 'open';
}

function alternativeFromBlock(raw: Buffer, block: HeaderBlock): MessageBody | null {
  if (fieldOf(block, 'content-disposition') !== undefined) return null;
  const type = ALTERNATIVE_TYPE.exec(fieldOf(block, 'content-type') ?? '');
  if (!type) return null;
  const delimiter = Buffer.from(`--${type[1] ?? type[2]!}`, 'latin1');
  // Where each part starts and ends: from the line after a boundary line to the start of the next one.
  const parts: Array<[number, number]> = [];
  let open = -1;
  let closed = false;
  eachLine(raw, block.bodyStart, raw.length, (start, end, next) => {
    const kind = boundaryLine(raw, start, end, delimiter);
    if (!kind) return;
    if (open >= 0) parts.push([open, start]);
    open = kind === 'open' ? next : -1;
    closed = kind === 'closing';
    return !closed; // what follows the closing boundary is not read
  });
  if (!closed || parts.length !== 2) return null;
  let headerSize = block.size;
  const read: TextPart[] = [];
  for (const [from, to] of parts) {
    const head = readHeaderBlock(raw, from, to);
    if (!head) return null;
    headerSize += head.size;
    const part = textPartOf(raw, head, to);
    if (!part) return null;
    read.push(part);
  }
  // postal-mime's header size limit counts every part's header block with the top-level one.
  if (headerSize > MAX_HEADERS_SIZE) return null;
  const html = read.find((part) => part.html);
  const text = read.find((part) => !part.html);
  if (!html || !text) return null;
  return { headers: collectHeaders(block.fields), text: text.content, html: html.content, attachments: [] };
}

/** The body of a multipart/alternative of one text and one HTML part, read as postal-mime reads it; null otherwise. Never throws. */
export function alternativeTextParts(raw: Buffer): MessageBody | null {
  const block = readHeaderBlock(raw);
  return block && alternativeFromBlock(raw, block);
}

/**
 * Calls `line(start, end, next)` for each line of `raw[from, to)`: LF-terminated, `end` before
 * its trailing CRs and LF, `next` where the next line starts. A `line` that answers false stops it.
 */
function eachLine(raw: Buffer, from: number, to: number, line: (start: number, end: number, next: number) => boolean | void): void {
  let start = from;
  while (start < to) {
    let newline = raw.indexOf(10, start);
    if (newline === -1 || newline >= to) newline = to;
    let end = newline;
    while (end > start && raw[end - 1] === 13) end--;
    if (line(start, end, newline + 1) === false) return;
    start = newline + 1;
  }
}

/** 7bit, 8bit, binary: each line of `raw[from, to)` and a LF. */
function passThrough(raw: Buffer, from: number, to: number): Buffer {
  const out = Buffer.allocUnsafe(to - from + 1);
  let length = 0;
  eachLine(raw, from, to, (start, end) => {
    length += raw.copy(out, length, start, end);
    out[length++] = 10;
  });
  return out.subarray(0, length);
}

/** Quoted-printable: `=XX` escapes, a soft break at a line ending in `=`, an invalid escape kept as it is. */
function quotedPrintable(raw: Buffer, from: number, to: number): Buffer {
  const out = Buffer.allocUnsafe(to - from + 1);
  let length = 0;
  eachLine(raw, from, to, (start, end) => {
    const softBreak = end > start && raw[end - 1] === 0x3d;
    if (softBreak) end--;
    for (let i = start; i < end; i++) {
      const high = raw[i] === 0x3d && i + 2 < end ? hexValue(raw[i + 1]!) : -1;
      const low = high < 0 ? -1 : hexValue(raw[i + 2]!);
      if (low < 0) {
        out[length++] = raw[i]!;
        continue;
      }
      out[length++] = (high << 4) | low;
      i += 2;
    }
    if (!softBreak) out[length++] = 10;
  });
  return out.subarray(0, length);
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/**
 * Base64: the alphabet's characters of every line (anything else is dropped), cut into units
 * at each run of `=` (some mailers pad every line), each unit decoded on its own (a unit's
 * stray last character, at a length of 4n + 1, carries no byte: Node's decoder drops it too).
 */
function base64(raw: Buffer, from: number, to: number): Buffer {
  const chars = Buffer.allocUnsafe(to - from);
  let length = 0;
  for (let i = from; i < to; i++) if (BASE64_CHAR[raw[i]!]) chars[length++] = raw[i]!;
  const units = chars.toString('latin1', 0, length).split(/=+/);
  return Buffer.concat(units.map((unit) => Buffer.from(unit, 'base64')));
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
