// Owns the message viewer: the headers, the HTML in a sandboxed frame served from its own
// route under a strict Content-Security-Policy (mail HTML never runs in the app's origin; a
// script-free copy is laid out there only to measure its height), with the images it embeds
// (`cid:` parts of the same message) inlined as `data:` URLs, at Phone, Tablet or Desktop
// width; text, headers, raw source, attachments (embedded parts named by their Content-ID),
// what extraction finds with its reasons, and the Checks tab: the HTML check per mail client,
// and a link check the service runs behind its SSRF guard (a POST).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HtmlCheckReport } from '../../../checks/html-check.js';
import type { LinkCheckResult } from '../../../checks/link-check.js';
import PostalMime from 'postal-mime';
import type { Attachment } from '../../../protocol/index.js';
import type { ServiceContext } from '../../context.js';
import { attachmentContent } from '../../mime/parse.js';
import type { MailboxRecord, StoredMessage } from '../../store/store.js';
import { notFound, userOf } from '../plugin.js';

const TABS = [
  { id: 'html', label: 'HTML' },
  { id: 'text', label: 'Text' },
  { id: 'headers', label: 'Headers' },
  { id: 'raw', label: 'Raw' },
  { id: 'attachments', label: 'Attachments' },
  { id: 'checks', label: 'Checks' },
] as const;

/** Raw source shown on the page (the download has all of it). */
const RAW_SHOWN = 256 * 1024;

/** Preview widths of the HTML tab (app.css gives the frame 375 px, 768 px or the whole panel). */
const WIDTHS = [
  { id: 'phone', label: 'Phone' },
  { id: 'tablet', label: 'Tablet' },
  { id: 'desktop', label: 'Desktop' },
] as const;

/**
 * The mail's HTML document: sandboxed even when opened on its own (the `sandbox` directive
 * gives it an opaque origin), no script, no plug-ins, no form submission, no navigation of
 * the app, and no remote content unless the person asked for images. Embedded (`cid:`)
 * images arrive inlined as `data:` URLs, so nothing beyond `data:` is needed for them.
 *
 * The `measure` copy is what the viewer's script lays out, out of sight, to size the frame
 * to the mail (a frame without scripts or its own origin cannot say how tall it is): the
 * same document under the same policy, sandboxed too (no script, form, popup or navigation),
 * but keeping its origin, so that the page can read its height. Nothing of it runs, and it
 * loads nothing remote even when the frame shown does (a remote image without a declared
 * size then measures short, and the frame scrolls the rest).
 */
function mailCsp(remoteImages: boolean, measure = false): string {
  return [
    measure ? 'sandbox allow-same-origin' : 'sandbox allow-popups allow-popups-to-escape-sandbox',
    "default-src 'none'",
    `img-src data:${remoteImages ? ' https: http:' : ''}`,
    "style-src 'unsafe-inline'",
    "font-src data:",
    "form-action 'none'",
    "frame-ancestors 'self'",
    "base-uri 'none'",
  ].join('; ');
}

/** Links in the mail open in a new tab, never inside the frame. */
const BASE_TARGET = '<base target="_blank">';

function headerRows(message: StoredMessage): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(message.body?.headers ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) rows.push([name, v]);
  }
  return rows;
}

/** `<logo@acme>` → `logo@acme`. */
function bareContentId(contentId: string | null | undefined): string | null {
  const id = contentId?.trim().replace(/^<|>$/g, '').trim();
  return id ? id : null;
}

/** What the attachments tab calls a part: its file name, else its Content-ID, else its position. */
function partName(attachment: Attachment, index: number): string {
  return attachment.filename || bareContentId(attachment.contentId) || `attachment-${index + 1}`;
}

/** A `cid:` URL's Content-ID (RFC 2392: URL-encoded). */
function cidOf(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

/** `cid:` references where HTML and CSS load images from: `src=`, `background=`, `poster=` and `url(…)`. */
const CID_REFERENCE = /(\b(?:src|background|poster)\s*=\s*["']?|url\(\s*["']?)cid:([^\s"'()<>]+)/gi;
/** Image types inlined as `data:` URLs (anything else a `cid:` names stays unresolved, and blocked). */
const INLINE_IMAGE = /^image\/[a-z0-9][a-z0-9.+-]*$/i;

/**
 * `html` with its `cid:` image references pointing at the message's own parts, as `data:`
 * URLs: the sandboxed document loads nothing from anywhere for them (the message is at most
 * the service's message size limit, so the document is too). A reference to no part stays
 * as it is, and the policy blocks it.
 */
async function inlineEmbeddedImages(html: string, attachments: readonly Attachment[], raw: () => Promise<Buffer>): Promise<string> {
  if (!/cid:/i.test(html) || !attachments.some((a) => a.contentId && INLINE_IMAGE.test(a.contentType))) return html;
  const wanted = new Set<string>();
  for (const match of html.matchAll(CID_REFERENCE)) wanted.add(cidOf(match[2]!));
  if (wanted.size === 0) return html;
  const email = await PostalMime.parse(await raw());
  const images = new Map<string, string>();
  const lowerCase = new Map<string, string>();
  for (const part of email.attachments) {
    const id = bareContentId(part.contentId);
    const type = (part.mimeType || '').toLowerCase();
    if (!id || !INLINE_IMAGE.test(type) || images.has(id) || !(wanted.has(id) || [...wanted].some((w) => w.toLowerCase() === id.toLowerCase()))) continue;
    const bytes = typeof part.content === 'string' ? Buffer.from(part.content) : Buffer.from(new Uint8Array(part.content));
    const url = `data:${type};base64,${bytes.toString('base64')}`;
    images.set(id, url);
    if (!lowerCase.has(id.toLowerCase())) lowerCase.set(id.toLowerCase(), url);
  }
  return html.replace(CID_REFERENCE, (whole, before: string, cid: string) => {
    const id = cidOf(cid);
    const url = images.get(id) ?? lowerCase.get(id.toLowerCase());
    return url ? before + url : whole;
  });
}

/**
 * The extraction's reasons as the "Why" lists show them: each once, and the HTML's own words
 * ("alone in its block (+1)", not "shown with alone in its block (+1)"); the verdict does
 * not repeat the chosen candidate's reasons, which its list item shows just below.
 */
function forDisplay<C extends { value: string; score: number; reasons: string[] }>(explanation: { answer: string | undefined; verdict: string; candidates: C[] }) {
  const candidates = explanation.candidates.slice(0, 5).map((c) => ({
    ...c,
    reasons: [...new Set(c.reasons.map((r) => r.replace(/^shown with /, '')))],
  }));
  const best = explanation.candidates[0];
  let verdict = explanation.verdict;
  if (best && explanation.answer !== undefined && verdict.endsWith(`: ${best.reasons.join('; ')}`)) {
    verdict = `${verdict.slice(0, -(best.reasons.join('; ').length + 2))} (reasons below)`;
  }
  return { answer: explanation.answer, verdict, candidates };
}

/** `Content-Disposition: attachment` with a safe ASCII name and the UTF-8 one. */
function attachmentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export async function messagePages(app: FastifyInstance, { ctx }: { ctx: ServiceContext }): Promise<void> {
  const { store, clock } = ctx;

  /** The account's message in its live mailbox; one 404 page for anything else. */
  async function ownMessage(request: FastifyRequest): Promise<{ mailbox: MailboxRecord; message: StoredMessage }> {
    const { mailboxId, messageId } = request.params as { mailboxId: string; messageId: string };
    const user = userOf(request);
    const mailbox = await store.getMailbox(user.id, mailboxId, clock.now());
    const message = mailbox ? await store.getMessage(user.id, mailbox.id, messageId) : null;
    if (!mailbox || !message?.body) throw notFound('message with this id');
    return { mailbox, message };
  }

  async function rawOf(request: FastifyRequest, mailbox: MailboxRecord, message: StoredMessage): Promise<Buffer> {
    const raw = await store.getRawMessage(userOf(request).id, mailbox.id, message.id);
    if (!raw) throw notFound('message with this id');
    return raw;
  }

  /** The Checks tab: the HTML check for the clients asked for (default ones when none), and a link check's results when one ran. */
  async function checks(message: StoredMessage, clientsText: string | undefined, links: LinkCheckResult[] | null) {
    const { checkHtml, DEFAULT_CLIENTS } = await import('../../../checks/html-check.js');
    const clients = (clientsText ?? '').split(/[\s,]+/).filter(Boolean);
    let html: HtmlCheckReport | null = null;
    let error: string | null = null;
    try {
      html = checkHtml(message.body!.html, { clients });
    } catch (caught) {
      error = caught instanceof Error ? caught.message : String(caught);
    }
    return { clientsText: clients.join(', '), placeholder: DEFAULT_CLIENTS.join(', '), html, error, links };
  }

  app.get('/mailboxes/:mailboxId/messages/:messageId', async (request, reply) => renderMessage(request, reply, null));

  // The link check of the Checks tab, run by the service through its SSRF guard (a POST: it reaches out).
  app.post('/mailboxes/:mailboxId/messages/:messageId/check-links', async (request, reply) => {
    const { message } = await ownMessage(request);
    const [{ checkLinks }, { serviceLinkFetcher }] = await Promise.all([import('../../../checks/link-check.js'), import('../../link-fetcher.js')]);
    await using fetcher = serviceLinkFetcher(ctx);
    const links = await checkLinks({ html: message.body!.html, text: message.body!.text }, fetcher);
    return renderMessage(request, reply, links);
  });

  async function renderMessage(request: FastifyRequest, reply: FastifyReply, links: LinkCheckResult[] | null) {
    const { mailbox, message } = await ownMessage(request);
    const query = request.query as { tab?: string; images?: string; width?: string; clients?: string };
    const wanted = links ? 'checks' : query.tab;
    const tab = TABS.some((t) => t.id === wanted) ? wanted! : message.body!.html ? 'html' : 'text';
    const width = WIDTHS.find((w) => w.id === query.width) ?? WIDTHS[2];
    const input = { subject: message.subject, text: message.body!.text, html: message.body!.html };
    // Loaded on the first message viewed: a server that never shows one does not carry the HTML parser.
    const { explainCode, explainVerificationLink } = await import('../../../extract/index.js');
    let raw = '';
    if (tab === 'raw') {
      const bytes = await rawOf(request, mailbox, message);
      raw = bytes.subarray(0, RAW_SHOWN).toString('utf8') + (bytes.length > RAW_SHOWN ? `\n… (${bytes.length - RAW_SHOWN} more bytes in the download)` : '');
    }
    const attachments = message.body!.attachments.map((a, i) => ({ ...a, name: partName(a, i), cid: bareContentId(a.contentId) }));
    return reply.page('message', {
      title: message.subject || '(no subject)', nav: 'mailboxes', mailbox, message: { ...message, ...message.body, attachments }, tab, tabs: TABS,
      images: query.images === '1', base: `/mailboxes/${mailbox.id}/messages/${message.id}`, headers: headerRows(message), raw,
      widths: WIDTHS, width, link: forDisplay(explainVerificationLink(input)), code: forDisplay(explainCode(input)),
      checks: tab === 'checks' ? await checks(message, query.clients, links) : null,
    });
  }

  app.get('/mailboxes/:mailboxId/messages/:messageId/html', async (request, reply) => {
    const { mailbox, message } = await ownMessage(request);
    const query = request.query as { images?: string; measure?: string };
    const measure = query.measure === '1';
    // The measured copy never loads remote content: a requested image is fetched once, by the frame shown.
    const remoteImages = query.images === '1' && !measure;
    const html = await inlineEmbeddedImages(message.body!.html ?? '', message.body!.attachments, () => rawOf(request, mailbox, message));
    return reply
      .header('content-security-policy', mailCsp(remoteImages, measure))
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(BASE_TARGET + html);
  });

  app.get('/mailboxes/:mailboxId/messages/:messageId/raw', async (request, reply) => {
    const { mailbox, message } = await ownMessage(request);
    const raw = await rawOf(request, mailbox, message);
    return reply.type('message/rfc822').header('content-disposition', attachmentDisposition(`${message.id}.eml`)).header('x-content-type-options', 'nosniff').send(raw);
  });

  app.get('/mailboxes/:mailboxId/messages/:messageId/attachments/:index', async (request, reply) => {
    const { mailbox, message } = await ownMessage(request);
    const index = Number((request.params as { index: string }).index);
    const file = Number.isSafeInteger(index) && index >= 0 ? await attachmentContent(await rawOf(request, mailbox, message), index) : null;
    if (!file) throw notFound('attachment with this number');
    return reply
      .type(file.contentType)
      .header('content-disposition', attachmentDisposition(file.filename ?? bareContentId(message.body!.attachments[index]?.contentId) ?? `attachment-${index + 1}`))
      .header('content-security-policy', "sandbox; default-src 'none'")
      .header('x-content-type-options', 'nosniff')
      .send(file.content);
  });
}
