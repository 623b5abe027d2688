// Owns the email endpoints (scope `emails`): create and expire a mailbox, the batched poll with
// long-polling, a mailbox's messages, one message and its raw source, and the recipients SMTP refused.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  GenerateMailboxBody,
  ListEmailsQuery,
  ListEmailsResponse,
  Mailbox,
  MailboxMessagesQuery,
  MailboxMessagesResponse,
  MailboxParams,
  MessageParams,
  MessageResponse,
  RefusalsQuery,
  RefusalsResponse,
} from '../../../protocol/index.js';
import type { ServiceContext } from '../../context.js';
import { toMailbox, toMessage, toMessageSummary, toRefusal } from '../../dto.js';
import { createMailboxFor } from '../../actions.js';
import type { MailboxRecord, StoredMessage } from '../../store/store.js';
import { authOf } from '../auth.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { waitForStoredMessage } from '../long-poll.js';
import { ApiError } from '../problem.js';
import { errorResponses } from '../schema-helpers.js';

export const emailRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  const { store, clock, bus } = ctx;

  const mailboxNotFound = (idOrAddress: string) =>
    new ApiError('mailbox_not_found', `no live mailbox "${idOrAddress}" in this account (it may have expired); create one with POST /api/emails/generate`);

  async function liveMailbox(accountId: string, idOrAddress: string): Promise<MailboxRecord> {
    const mailbox = await store.getMailbox(accountId, idOrAddress, clock.now());
    if (!mailbox) throw mailboxNotFound(idOrAddress);
    return mailbox;
  }

  app.post('/api/emails/generate', {
    config: { scope: 'emails' },
    schema: {
      tags: ['emails'],
      summary: 'Create a mailbox with a random or custom address',
      body: GenerateMailboxBody,
      response: { 201: Mailbox, ...errorResponses(400, 401, 403, 409, 429) },
    },
  }, async (request, reply) => {
    const { account, limits } = authOf(request);
    const mailbox = await createMailboxFor(ctx, account, limits, request.body);
    return reply.code(201).send(toMailbox(mailbox));
  });

  app.get('/api/emails', {
    config: { scope: 'emails' },
    schema: {
      tags: ['emails'],
      summary: 'Poll received messages across mailboxes, oldest first (long-poll with `wait`)',
      querystring: ListEmailsQuery,
      response: { 200: ListEmailsResponse, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request, reply) => {
    const { account } = authOf(request);
    const query = request.query;
    const wanted = query.mailbox === undefined ? undefined : Array.isArray(query.mailbox) ? query.mailbox : [query.mailbox];
    let mailboxIds: string[] | undefined;
    if (wanted) {
      if (wanted.length > 100) throw new ApiError('invalid_request', `mailbox is repeated ${wanted.length} times; at most 100 mailboxes per poll, split the batch`, 'mailbox');
      mailboxIds = [];
      for (const m of wanted) mailboxIds.push((await liveMailbox(account.id, m)).id);
    }
    if (query.include !== undefined && query.include !== 'body') {
      throw new ApiError('invalid_request', `include "${query.include}" is unknown; the only value is "body"`, 'include');
    }
    const includeBody = query.include === 'body';
    const limit = query.limit ?? 50;
    const afterSeq = query.after === undefined ? 0 : decodeCursor(query.after, 'after');
    const waitMs = Math.round((query.wait ?? 0) * 1000);
    const snapshot = await store.maxSeq();
    const list = () => store.listMessages({ accountId: account.id, mailboxIds, afterSeq, limit, includeBody, now: clock.now() });

    let messages = await list();
    if (messages.length === 0 && waitMs > 0) {
      const idSet = mailboxIds ? new Set(mailboxIds) : undefined;
      const abort = new AbortController();
      const onClose = () => abort.abort();
      reply.raw.once('close', onClose);
      const waiter = waitForStoredMessage(bus, (m) => m.accountId === account.id && m.seq > afterSeq && (!idSet || idSet.has(m.mailboxId)), waitMs, abort.signal);
      try {
        // A message may have been committed between the first query and subscribing.
        messages = await list();
        // Woken: the store has committed a match; it answers with what it holds.
        if (messages.length === 0 && (await waiter.arrived)) messages = await list();
      } finally {
        waiter.dispose();
        reply.raw.off('close', onClose);
      }
    }
    const last = messages.at(-1);
    const cursor = encodeCursor(last ? last.seq : Math.max(afterSeq, snapshot));
    return { messages: messages.map((m) => (includeBody ? toMessage(m) : toMessageSummary(m))), cursor };
  });

  app.get('/api/emails/:mailboxId', {
    config: { scope: 'emails' },
    schema: {
      tags: ['emails'],
      summary: 'A mailbox and its messages, newest first',
      params: MailboxParams,
      querystring: MailboxMessagesQuery,
      response: { 200: MailboxMessagesResponse, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request) => {
    const { account } = authOf(request);
    const mailbox = await liveMailbox(account.id, request.params.mailboxId);
    const limit = request.query.limit ?? 50;
    const beforeSeq = request.query.cursor === undefined ? undefined : decodeCursor(request.query.cursor, 'cursor');
    const [messages, total] = await Promise.all([store.listMailboxMessages(mailbox.id, { beforeSeq, limit }), store.countMailboxMessages(mailbox.id)]);
    const last = messages.at(-1);
    return {
      mailbox: toMailbox(mailbox),
      messages: messages.map(toMessageSummary),
      nextCursor: messages.length === limit && last ? encodeCursor(last.seq) : null,
      total,
    };
  });

  app.get('/api/emails/refusals', {
    config: { scope: 'emails' },
    schema: {
      tags: ['emails'],
      summary: 'Recipients SMTP refused (unserved domain, unknown or expired mailbox), oldest first',
      description:
        'What the service answered `550` to, kept for a day, so "nothing arrived" can become "your app sent to alice@exmaple.com, which this service does not serve". ' +
        "An admin key sees every refusal; any other key only refusals of its own (expired) mailboxes' addresses, never another account's traffic. " +
        '`since` defaults to 15 minutes ago.',
      querystring: RefusalsQuery,
      response: { 200: RefusalsResponse, ...errorResponses(400, 401, 403, 429) },
    },
  }, async (request) => {
    const { account } = authOf(request);
    const since = request.query.since === undefined ? clock.now() - 15 * 60_000 : Date.parse(request.query.since);
    const refusals = await store.listRefusals({ accountId: account.isAdmin ? null : account.id, since, limit: request.query.limit ?? 50 });
    return { refusals: refusals.map(toRefusal) };
  });

  app.post('/api/emails/:mailboxId/expire', {
    config: { scope: 'emails' },
    schema: {
      tags: ['emails'],
      summary: 'End a mailbox now, as if its expiry time had come',
      description:
        'There is no delete: mailboxes and their messages go away at expiry. This moves the expiry of a live mailbox of the account to now, ' +
        'so it stops accepting mail at once, stops counting against the live-mailbox limit, and is swept with its messages. ' +
        'The Playwright fixture calls it when the test that created an inbox ends. Answers the mailbox with its new `expiresAt`.',
      params: MailboxParams,
      response: { 200: Mailbox, ...errorResponses(401, 403, 404, 429) },
    },
  }, async (request) => {
    const { account } = authOf(request);
    const now = clock.now();
    const mailbox = await store.expireMailbox(account.id, request.params.mailboxId, now);
    if (!mailbox) throw mailboxNotFound(request.params.mailboxId);
    return toMailbox({ ...mailbox, expiresAt: now });
  });

  async function findMessage(accountId: string, mailboxId: string, messageId: string) {
    const mailbox = await liveMailbox(accountId, mailboxId);
    const message = await store.getMessage(accountId, mailbox.id, messageId);
    if (!message) throw new ApiError('message_not_found', `no message "${messageId}" in mailbox ${mailbox.address}; list the mailbox with GET /api/emails/${mailbox.id}`);
    return { mailbox, message };
  }

  app.get('/api/emails/:mailboxId/:messageId', {
    config: { scope: 'emails' },
    schema: {
      tags: ['emails'],
      summary: 'One message with all headers, text, HTML and attachment metadata',
      params: MessageParams,
      response: { 200: MessageResponse, ...errorResponses(401, 403, 404, 429) },
    },
  }, async (request) => {
    const { account } = authOf(request);
    const { message } = await findMessage(account.id, request.params.mailboxId, request.params.messageId);
    return { message: toMessage(message) };
  });

  app.get('/api/emails/:mailboxId/:messageId/raw', {
    config: { scope: 'emails' },
    schema: {
      tags: ['emails'],
      summary: 'The original RFC 5322 source (message/rfc822)',
      params: MessageParams,
      response: { 200: { type: 'string', description: 'message/rfc822 source' }, ...errorResponses(401, 403, 404, 429) },
    },
  }, async (request, reply) => {
    const { account } = authOf(request);
    const { mailbox, message } = await findMessage(account.id, request.params.mailboxId, request.params.messageId);
    const raw = await store.getRawMessage(account.id, mailbox.id, message.id);
    if (!raw) throw new ApiError('message_not_found', `message "${message.id}" is gone (its mailbox expired)`);
    return reply.type('message/rfc822').header('content-disposition', `inline; filename="${message.id}.eml"`).send(raw as unknown as string);
  });
};

