// Owns the email endpoints (scope `emails`): create and expire a mailbox, the batched poll with
// long-polling, a mailbox's messages, one message, its raw source and its HTML check, the
// recipients SMTP refused, and a mailbox's fault rules (add, list, clear).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifySchemaValidationError } from 'fastify';
import {
  DEFAULT_HTML_CHECK_CLIENTS,
  FAULT_DELAY_MAX,
  FaultRule,
  FaultRuleBody,
  FaultsResponse,
  GenerateMailboxBody,
  HtmlCheckQuery,
  HtmlCheckReport,
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
import { addFaultTo, FAULTS_PER_MAILBOX, toFaultRule } from '../../faults.js';
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

  const faultsPath = '/api/emails/:mailboxId/faults';
  const faultsDescription =
    'Fault rules make the SMTP server refuse, stall or hang up on mail to this mailbox only, so a test can see how its app copes. ' +
    '`at: rcpt` answers the mailbox\'s `RCPT TO`: that recipient alone is refused (or delayed), the others of the message are not. ' +
    '`at: data` answers after the message body, for the whole transaction: SMTP has one reply per DATA, so one faulted recipient decides for all of them. ' +
    '`code` is the 4xx or 5xx reply (`enhancedCode` defaults to `<class>.0.0`); `421` also closes the connection; `disconnect: true` closes it without a reply (not with `code`); ' +
    `\`delay\` waits that many ms (at most ${FAULT_DELAY_MAX}, ${FAULT_DELAY_MAX / 1000} s) before the reply or the close, alone or with either. ` +
    'A rejected or dropped message is not stored. `times` is how many deliveries a rule applies to (absent: until cleared); `probability` is its chance per delivery, 0 < p ≤ 1 (default 1). ' +
    'Rules live in the store, so every instance of a fleet applies them, and they die with their mailbox. ' +
    `A mailbox holds at most ${FAULTS_PER_MAILBOX} rules, spent ones included, until they are cleared.`;

  app.post(faultsPath, {
    config: { scope: 'emails' },
    // A bad rule is answered in its own words: what the field is for, its limits, and what to send instead.
    schemaErrorFormatter: faultRuleError,
    schema: {
      tags: ['emails'],
      summary: 'Add a fault rule to a mailbox: refuse, delay or drop its mail over SMTP',
      description: `${faultsDescription} A rule needs \`code\`, \`delay\` or \`disconnect\`; a bad one is a 400 \`invalid_request\` naming its \`field\`.`,
      params: MailboxParams,
      body: FaultRuleBody,
      response: { 201: FaultRule, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request, reply) => {
    const { account } = authOf(request);
    const mailbox = await liveMailbox(account.id, request.params.mailboxId);
    const rule = await addFaultTo(ctx, mailbox, request.body);
    return reply.code(201).send(toFaultRule(rule));
  });

  app.get(faultsPath, {
    config: { scope: 'emails' },
    schema: {
      tags: ['emails'],
      summary: "A mailbox's fault rules, oldest first, with their hits",
      description: `${faultsDescription} Answers every rule of the mailbox, spent ones too: \`hits\` is how many deliveries each applied to, \`remaining\` (rules with \`times\`) how many more it will.`,
      params: MailboxParams,
      response: { 200: FaultsResponse, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request) => {
    const { account } = authOf(request);
    const mailbox = await liveMailbox(account.id, request.params.mailboxId);
    return { faults: (await store.listFaults(mailbox.id)).map(toFaultRule) };
  });

  app.delete(faultsPath, {
    config: { scope: 'emails' },
    schema: {
      tags: ['emails'],
      summary: "Clear a mailbox's fault rules: its mail is accepted normally again",
      description: `${faultsDescription} Deletes every rule of the mailbox, spent or not; a mailbox without rules answers 204 too.`,
      params: MailboxParams,
      response: { 204: { type: 'null', description: 'Cleared' }, ...errorResponses(401, 403, 404, 429) },
    },
  }, async (request, reply) => {
    const { account } = authOf(request);
    const mailbox = await liveMailbox(account.id, request.params.mailboxId);
    await store.clearFaults(mailbox.id);
    return reply.code(204).send(null);
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

  app.get('/api/emails/:mailboxId/:messageId/html-check', {
    config: { scope: 'emails' },
    schema: {
      tags: ['emails'],
      summary: 'Which HTML and CSS features of the message each mail client lacks or supports in part (caniemail.com data)',
      description:
        'Reads the HTML body for the HTML elements and attributes, CSS properties, values, selectors and at-rules, and image formats it uses, and answers, ' +
        'for each one a client checked lacks (`no`) or supports in part (`partial`) in the newest version the caniemail.com data lists, ' +
        'the clients with the data\'s notes, up to 5 places in the mail (`line 12: <div style="display:flex">`) and how many there are. ' +
        `\`client\` is a \`family.platform\` id (\`outlook.windows\`) or a glob (\`gmail.*\`, \`*.ios\`), repeatable; absent: ${DEFAULT_HTML_CHECK_CLIENTS.join(', ')}. ` +
        'An unknown client is a 400 `invalid_request` naming `client`. A message without HTML answers `hasHtml: false` and no issues.',
      params: MessageParams,
      querystring: HtmlCheckQuery,
      response: { 200: HtmlCheckReport, ...errorResponses(400, 401, 403, 404, 429) },
    },
  }, async (request) => {
    const { account } = authOf(request);
    const { message } = await findMessage(account.id, request.params.mailboxId, request.params.messageId);
    const given = request.query.client;
    const clients = given === undefined ? undefined : Array.isArray(given) ? given : [given];
    // Loaded on the first check: a service that never runs one does not carry the HTML and CSS parsers.
    const { checkHtml, HtmlCheckError } = await import('../../../checks/html-check.js');
    try {
      return checkHtml(toMessage(message).html, { clients });
    } catch (error) {
      if (error instanceof HtmlCheckError) throw new ApiError('invalid_request', error.message, 'client');
      throw error;
    }
  });
};


/** What each field of a fault rule is, for the answer to a rule the schema refuses. */
const FAULT_FIELD_HELP: Record<string, string> = {
  at: 'must be "rcpt" (refuse the recipient at RCPT TO) or "data" (reply after the message body)',
  code: 'must be an SMTP reply code from 400 to 599: 4xx (temporary, the sender retries) or 5xx (permanent); 2xx and 3xx are not faults',
  enhancedCode: 'must be an RFC 3463 enhanced status code such as 4.3.0 or 5.1.1, of the same class as code; leave it out for <class>.0.0',
  message: 'must be a reply text of 1 to 200 characters; leave it out for a text that names the rule',
  delay: `must be a whole number of ms from 1 to ${FAULT_DELAY_MAX} (${FAULT_DELAY_MAX / 1000} s), the longest a fault rule may hold a reply back`,
  disconnect: 'must be true or false (true: close the connection without a reply; not with code)',
  times: 'must be a whole number from 1 to 1000000; leave it out for a rule that applies until it is cleared',
  probability: 'must be a number above 0 and at most 1 (0 < p ≤ 1; 1, the default, applies to every delivery); to stop a rule, clear the rules instead',
};

/**
 * The answer to a fault rule the schema refuses: `invalid_request` naming the field (as the
 * API's validation errors do), with what the field takes instead of ajv's generic wording.
 * Other parts of the request (the path) keep the generic answer.
 */
function faultRuleError(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const first = errors[0];
  const generic = new Error(`${dataVar} ${first?.message ?? 'is invalid'}`);
  if (dataVar !== 'body' || !first) return generic;
  const params = first.params as { missingProperty?: string; additionalProperty?: string };
  const path = first.instancePath.replace(/^\//, '');
  if (params.additionalProperty !== undefined) {
    return new ApiError('invalid_request', `"${params.additionalProperty}" is not a property of a fault rule; it takes ${Object.keys(FAULT_FIELD_HELP).join(', ')}`, params.additionalProperty);
  }
  const field = params.missingProperty ?? path;
  const help = FAULT_FIELD_HELP[field];
  if (help === undefined) {
    return path === '' ? new ApiError('invalid_request', 'a fault rule is a JSON object such as {"at":"rcpt","code":451}') : generic;
  }
  return new ApiError('invalid_request', params.missingProperty !== undefined ? `a fault rule needs ${field}, which ${help}` : `${field} ${help}`, field);
}
