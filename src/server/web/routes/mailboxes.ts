// Owns the mailbox pages: the account's live mailboxes, creating one, a mailbox's messages
// newest first (searched when asked) and its fault rules (shown, and cleared), and their live
// arrival as server-sent events fed by the "message stored" event while the session that
// opened them lasts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EXPIRY_OPTIONS } from '../../../protocol/index.js';
import { createMailboxFor } from '../../actions.js';
import { ApiError } from '../../api/problem.js';
import { hashSecret } from '../../auth/secrets.js';
import type { ServiceContext } from '../../context.js';
import { describeFault } from '../../faults.js';
import type { FaultRecord, MailboxRecord, StoredMessage } from '../../store/store.js';
import { formatDuration } from '../format.js';
import { field, notFound, renderFragment, userOf } from '../plugin.js';
import { listed, listQuery, olderLink, PAGE_SIZE } from './all-mail.js';

/** A comment line keeps idle event streams open through proxies. */
const HEARTBEAT_MS = 25_000;
/** The shortest expiry the form offers beside the API's standard ones. */
const SHORT_EXPIRY_MS = 10 * 60_000;

export async function mailboxPages(app: FastifyInstance, { ctx }: { ctx: ServiceContext }): Promise<void> {
  const { store, clock, config, bus } = ctx;

  /** The signed-in account's live mailbox, or the same 404 page whether it is another account's, expired or unknown. */
  async function ownMailbox(request: FastifyRequest): Promise<MailboxRecord> {
    const { id } = request.params as { id: string };
    const mailbox = await store.getMailbox(userOf(request).id, id, clock.now());
    if (!mailbox) throw notFound('mailbox with this id');
    return mailbox;
  }

  async function renderList(request: FastifyRequest, reply: FastifyReply, extra: Record<string, unknown> = {}) {
    const user = userOf(request);
    const limits = config.roles[user.role] ?? config.roles.civilian!;
    const mailboxes = await store.listLiveMailboxes({ accountId: user.id, now: clock.now() });
    const expiryOptions = [SHORT_EXPIRY_MS, ...EXPIRY_OPTIONS].filter((ms) => ms <= limits.maxExpiryTime).map((ms) => ({ ms, label: formatDuration(ms) }));
    return reply.page('mailboxes', {
      title: 'Mailboxes', nav: 'mailboxes', mailboxes: [...mailboxes].reverse(), live: mailboxes.length, maxMailboxes: limits.maxMailboxes,
      domains: config.domains, expiryOptions, form: { expiryTime: 3_600_000 }, ...extra,
    });
  }

  app.get('/mailboxes', async (request, reply) => renderList(request, reply));

  app.post('/mailboxes', async (request, reply) => {
    const user = userOf(request);
    const limits = config.roles[user.role] ?? config.roles.civilian!;
    const form = { name: field(request, 'name'), domain: field(request, 'domain'), expiryTime: field(request, 'expiryTime') };
    try {
      const mailbox = await createMailboxFor(ctx, user, limits, {
        name: form.name || undefined,
        domain: form.domain || undefined,
        expiryTime: Number(form.expiryTime || 3_600_000),
      });
      return reply.redirect(`/mailboxes/${mailbox.id}`, 303);
    } catch (error) {
      if (error instanceof ApiError) return renderList(request, reply.code(error.status), { form, error: error.detail });
      throw error;
    }
  });

  app.get('/mailboxes/:id', async (request, reply) => {
    const mailbox = await ownMailbox(request);
    const { q, beforeSeq } = listQuery(request);
    const [messages, total, faults] = await Promise.all([
      store.searchMessages({ accountId: mailbox.accountId, mailboxId: mailbox.id, query: q, beforeSeq, limit: PAGE_SIZE, includeBody: true, now: clock.now() }),
      store.countMailboxMessages(mailbox.id), store.listFaults(mailbox.id),
    ]);
    return reply.page('mailbox', {
      title: mailbox.address, nav: 'mailboxes', mailbox, messages: messages.map(listed), total, faults: faults.map(faultRow), q,
      older: olderLink(`/mailboxes/${mailbox.id}`, q, messages),
      // No live arrival into search results. The stream starts where this page ends, so mail stored while the page loads is not missed.
      stream: !q, streamAfter: beforeSeq === undefined ? (messages[0]?.seq ?? 0) : null,
    });
  });

  app.post('/mailboxes/:id/expire', async (request, reply) => {
    const mailbox = await ownMailbox(request);
    await store.expireMailbox(userOf(request).id, mailbox.id, clock.now());
    return reply.redirect('/mailboxes', 303);
  });

  app.post('/mailboxes/:id/faults/clear', async (request, reply) => {
    const mailbox = await ownMailbox(request);
    await store.clearFaults(mailbox.id);
    return reply.redirect(`/mailboxes/${mailbox.id}`, 303);
  });

  // Live arrival: one event per message stored in this mailbox, as the row to insert, for as
  // long as the session that opened the stream is signed in: every write waits, in order, for
  // a look at the session in the store (so a sign-out, a password change or a deletion of the
  // account's sessions on any instance stops the stream before its next line); the heartbeat
  // looks too, and so does an end of this account's sessions announced on this instance.
  app.get('/mailboxes/:id/events', async (request, reply) => {
    const mailbox = await ownMailbox(request);
    const sessionHash = hashSecret(request.session.sessionId);
    const res = reply.hijack().raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no', connection: 'keep-alive' });
    res.write('retry: 2000\n\n');
    let ended = false;
    let turn = Promise.resolve();
    /** Writes `text` ('' only looks; a function: what it resolves) once the session is found still signed in; else ends the stream. */
    const write = (text: string | (() => Promise<string>)) => {
      turn = turn.then(async () => {
        if (ended) return;
        const session = await store.getSession(sessionHash, clock.now());
        if (session?.accountId !== mailbox.accountId) return end();
        const line = typeof text === 'string' ? text : await text();
        if (line && !ended) res.write(line);
      }).catch((error: unknown) => {
        request.log.error({ err: error }, 'live arrival stream stopped: its session could not be checked, or a row not drawn');
        end();
      });
    };
    /** The row of a message with its snippet: its body as announced, else read from the store (the row goes without when it cannot be). */
    const row = async (m: StoredMessage) => listed(m.body ? m : (await store.getMessage(mailbox.accountId, mailbox.id, m.id).catch(() => null)) ?? m);
    const send = (m: StoredMessage) => write(async () => `id: ${m.seq}\ndata: ${JSON.stringify({ seq: m.seq, html: renderFragment('message-row', { m: await row(m), mailbox }) })}\n\n`);
    const onStored = (m: StoredMessage) => {
      if (m.mailboxId === mailbox.id && m.accountId === mailbox.accountId) send(m);
    };
    const onSessionsEnded = (accountId: string) => {
      if (accountId === mailbox.accountId) write('');
    };
    const heartbeat = setInterval(() => write(': keep-alive\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    const end = () => {
      if (ended) return;
      ended = true;
      bus.off('message.stored', onStored);
      bus.off('sessions.ended', onSessionsEnded);
      bus.off('shutdown', end);
      clearInterval(heartbeat);
      res.end();
    };
    bus.on('message.stored', onStored);
    bus.on('sessions.ended', onSessionsEnded);
    bus.once('shutdown', end);
    res.once('close', end);
    // What was stored since the page was drawn (?after=) or while a reconnecting stream was
    // down (Last-Event-ID, which is newer when both are given).
    const after = Math.max(position(request.headers['last-event-id']), position((request.query as { after?: string }).after));
    if (after >= 0) {
      const missed = await store.listMessages({ accountId: mailbox.accountId, mailboxIds: [mailbox.id], afterSeq: after, limit: 100, includeBody: true, now: clock.now() });
      missed.forEach(send);
    }
  });
}

/** A fault rule as a row of the mailbox page: what it does, its chance, how long it lasts, and its hits. */
function faultRow(f: FaultRecord) {
  const remaining = f.times === null ? null : Math.max(0, f.times - f.hits);
  return {
    id: f.id, what: describeFault(f), message: f.message,
    chance: `${Number((f.probability * 100).toFixed(2))} %`,
    times: f.times === null ? 'until cleared' : remaining === 0 ? `spent (${f.times} of ${f.times})` : `${remaining} of ${f.times} left`,
    hits: f.hits,
  };
}

/** A message position from a header or query value; -1 when absent or not a position. */
function position(value: string | string[] | undefined): number {
  return typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : -1;
}
