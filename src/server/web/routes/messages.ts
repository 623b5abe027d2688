// Owns the message viewer: the headers, the HTML in a sandboxed frame served from its own
// route under a strict Content-Security-Policy (mail HTML never runs in the app's origin),
// text, headers, raw source, attachments, and what extraction finds with its reasons.
import type { FastifyInstance, FastifyRequest } from 'fastify';
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
] as const;

/** Raw source shown on the page (the download has all of it). */
const RAW_SHOWN = 256 * 1024;

/**
 * The mail's HTML document: sandboxed even when opened on its own (the `sandbox` directive
 * gives it an opaque origin), no script, no plug-ins, no form submission, no navigation of
 * the app, and no remote content unless the person asked for images.
 */
function mailCsp(remoteImages: boolean): string {
  return [
    'sandbox allow-popups allow-popups-to-escape-sandbox',
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

  app.get('/mailboxes/:mailboxId/messages/:messageId', async (request, reply) => {
    const { mailbox, message } = await ownMessage(request);
    const query = request.query as { tab?: string; images?: string };
    const tab = TABS.some((t) => t.id === query.tab) ? query.tab! : message.body!.html ? 'html' : 'text';
    const input = { subject: message.subject, text: message.body!.text, html: message.body!.html };
    // Loaded on the first message viewed: a server that never shows one does not carry the HTML parser.
    const { explainCode, explainVerificationLink } = await import('../../../extract/index.js');
    let raw = '';
    if (tab === 'raw') {
      const bytes = await rawOf(request, mailbox, message);
      raw = bytes.subarray(0, RAW_SHOWN).toString('utf8') + (bytes.length > RAW_SHOWN ? `\n… (${bytes.length - RAW_SHOWN} more bytes in the download)` : '');
    }
    return reply.page('message', {
      title: message.subject || '(no subject)', nav: 'mailboxes', mailbox, message: { ...message, ...message.body }, tab, tabs: TABS,
      images: query.images === '1', base: `/mailboxes/${mailbox.id}/messages/${message.id}`, headers: headerRows(message), raw,
      link: explainVerificationLink(input), code: explainCode(input),
    });
  });

  app.get('/mailboxes/:mailboxId/messages/:messageId/html', async (request, reply) => {
    const { message } = await ownMessage(request);
    const remoteImages = (request.query as { images?: string }).images === '1';
    return reply
      .header('content-security-policy', mailCsp(remoteImages))
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(BASE_TARGET + (message.body!.html ?? ''));
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
      .header('content-disposition', attachmentDisposition(file.filename ?? `attachment-${index + 1}`))
      .header('content-security-policy', "sandbox; default-src 'none'")
      .header('x-content-type-options', 'nosniff')
      .send(file.content);
  });
}
