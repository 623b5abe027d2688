// Owns turning a raw RFC 5322 source into the parsed fields the store keeps. Malformed input
// never throws: whatever parses is kept, and the raw source is always stored as received.
import PostalMime, { type Address as PostalAddress } from 'postal-mime';
import type { Address, Attachment, Headers } from '../../protocol/index.js';
import type { NewMessage } from '../store/store.js';

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

/** Parses `raw`; on a parser failure, falls back to the header block and the raw text. */
export async function parseMessage(raw: Buffer): Promise<NewMessage> {
  try {
    const email = await PostalMime.parse(raw);
    const attachments: Attachment[] = email.attachments.map((a) => ({
      filename: a.filename ?? null,
      contentType: a.mimeType || 'application/octet-stream',
      size: typeof a.content === 'string' ? Buffer.byteLength(a.content) : a.content.byteLength,
      contentId: a.contentId ?? null,
    }));
    const from = flattenAddresses(email.from ? [email.from] : [])[0] ?? null;
    return {
      from,
      to: flattenAddresses(email.to),
      cc: flattenAddresses(email.cc),
      subject: email.subject ?? '',
      headers: collectHeaders(email.headers),
      text: email.text ?? null,
      html: email.html ?? null,
      attachments,
      raw,
    };
  } catch {
    return parseFallback(raw);
  }
}

/**
 * What is stored when the MIME parser gives up: the headers as they stand, and the body as
 * UTF-8 text. The header/body boundary is found on a latin1 view (one character per byte),
 * so its index is a byte offset: the body is sliced from the bytes, then decoded.
 */
export function parseFallback(raw: Buffer): NewMessage {
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
