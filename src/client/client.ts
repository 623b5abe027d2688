// Owns MailwrightClient: one typed method per endpoint of the HTTP API (its method, path and
// query), each 2xx answer checked against its src/protocol schema; the exchange itself is
// transport.ts's.
import {
  ConfigResponse,
  CreatedWebhook,
  DeliveryList,
  FaultRule,
  FaultsResponse,
  HealthResponse,
  HtmlCheckReport,
  ListEmailsSummaryResponse,
  ListEmailsWithBodyResponse,
  Mailbox,
  MailboxMessagesResponse,
  MessageResponse,
  RedeemResponse,
  RefusalsResponse,
  WebhookList,
  WebhookTestResponse,
  type CreateWebhookBody,
  type Delivery,
  type FaultRuleBody,
  type GenerateMailboxBody,
  type ListEmailsResponse,
  type Message,
  type RedeemBody,
  type Refusal,
  type RefusalsQuery,
  type Webhook,
} from '../protocol/index.js';
import {
  LONG_POLL_GRACE,
  type GetMailboxOptions,
  type ListDeliveriesOptions,
  type ListEmailsOptions,
  type MailwrightClientOptions,
  type RawMessageOptions,
  type RequestOptions,
} from './options.js';
import type { QuotaSnapshot } from './quota-headers.js';
import { expectAnswer, parseJson, Transport, type TransportRequest } from './transport.js';

/** What each endpoint answers with a 2xx, as the protocol defines it (compiled once). */
const ANSWERS = {
  createMailbox: expectAnswer('POST /api/emails/generate', Mailbox),
  listEmailsWithBody: expectAnswer('GET /api/emails?include=body', ListEmailsWithBodyResponse),
  listEmails: expectAnswer('GET /api/emails', ListEmailsSummaryResponse),
  listRefusals: expectAnswer('GET /api/emails/refusals', RefusalsResponse),
  expireMailbox: expectAnswer('POST /api/emails/{mailboxId}/expire', Mailbox),
  addFault: expectAnswer('POST /api/emails/{mailboxId}/faults', FaultRule),
  listFaults: expectAnswer('GET /api/emails/{mailboxId}/faults', FaultsResponse),
  getMailbox: expectAnswer('GET /api/emails/{mailboxId}', MailboxMessagesResponse),
  getMessage: expectAnswer('GET /api/emails/{mailboxId}/{messageId}', MessageResponse),
  checkHtml: expectAnswer('GET /api/emails/{mailboxId}/{messageId}/html-check', HtmlCheckReport),
  getConfig: expectAnswer('GET /api/config', ConfigResponse),
  createWebhook: expectAnswer('POST /api/config/webhooks', CreatedWebhook),
  listWebhooks: expectAnswer('GET /api/config/webhooks', WebhookList),
  testWebhook: expectAnswer('POST /api/config/webhooks/{id}/test', WebhookTestResponse),
  listDeliveries: expectAnswer('GET /api/config/webhooks/{id}/deliveries', DeliveryList),
  redeem: expectAnswer('POST /api/config/quota/redeem', RedeemResponse),
  health: expectAnswer('GET /health', HealthResponse),
};

const RAW_ACCEPT = 'message/rfc822, text/plain;q=0.9, application/problem+json;q=0.8, */*;q=0.1';

function segment(value: string): string {
  return encodeURIComponent(value);
}

function withQuery(path: string, query: URLSearchParams): string {
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

function callOptions(options: RequestOptions | undefined): Pick<TransportRequest, 'signal' | 'timeout'> {
  return { signal: options?.signal, timeout: options?.timeout };
}

/**
 * Typed client of the mailwright HTTP API (`mailwright serve`). Every call sends the
 * `X-API-Key` header, throws a {@link MailwrightApiError} for an error answer and a
 * {@link MailwrightError} (`MW_ERR_CONNECTION`, `MW_ERR_TIMEOUT`, `MW_ERR_ABORTED`,
 * `MW_ERR_BAD_RESPONSE`) when no usable answer arrives. A 429 is waited out per
 * `Retry-After` within `maxRetryWait`. The last seen quota is on {@link quota}.
 *
 * @example
 * ```ts
 * import { MailwrightClient } from 'mailwright/client';
 *
 * await using client = new MailwrightClient({ baseURL: 'http://127.0.0.1:8025', apiKey: process.env.MAILWRIGHT_API_KEY });
 * const mailbox = await client.createMailbox({ expiryTime: 3_600_000 });
 * // … the app under test sends mail to mailbox.email …
 * const { messages } = await client.listEmails({ mailbox: mailbox.id, wait: 20, includeBody: true });
 * console.log(messages[0]?.subject, client.quota?.remaining);
 * ```
 *
 * @example Long-poll several mailboxes at once, resuming from the last cursor
 * ```ts
 * let after: string | undefined;
 * for (;;) {
 *   const page = await client.listEmails({ mailbox: [a.id, b.email], after, wait: 30, signal });
 *   after = page.cursor;
 *   for (const message of page.messages) handle(message);
 * }
 * ```
 */
export class MailwrightClient implements AsyncDisposable {
  readonly #transport: Transport;

  /**
   * @param options - Where the service is, the API key, and retry/timeout behaviour.
   * @throws {MailwrightError} `MW_ERR_INVALID_OPTION` for a `baseURL` that is not http(s) or a bad timeout.
   */
  constructor(options: MailwrightClientOptions) {
    this.#transport = new Transport(options);
  }

  /** The base URL requests go to, without a trailing slash. */
  get baseURL(): string {
    return this.#transport.baseURL;
  }

  /**
   * The account's quota as the last response reported it (`RateLimit-Policy` / `RateLimit`
   * headers), or `undefined` before any response carried them.
   */
  get quota(): QuotaSnapshot | undefined {
    return this.#transport.quota;
  }

  /**
   * Creates a mailbox. `POST /api/emails/generate` → 201.
   *
   * @example
   * ```ts
   * const { id, email, expiresAt } = await client.createMailbox({ name: 'alice', expiryTime: 3_600_000, webhookId });
   * ```
   */
  async createMailbox(body: GenerateMailboxBody, options?: RequestOptions): Promise<Mailbox> {
    const response = await this.#transport.send({
      method: 'POST',
      path: '/api/emails/generate',
      body,
      ...callOptions(options),
    });
    return parseJson(response, ANSWERS.createMailbox);
  }

  /**
   * Lists received messages across the account's live mailboxes, oldest first.
   * `GET /api/emails`. With `wait` the server holds the request until a message is there
   * (long-poll); the request's timeout is stretched to `wait` + 10 s. Pass the answer's
   * `cursor` as `after` next time to get only newer messages.
   */
  listEmails(options: ListEmailsOptions & { includeBody: true }): Promise<ListEmailsWithBodyResponse>;
  listEmails(options?: ListEmailsOptions & { includeBody?: false }): Promise<ListEmailsSummaryResponse>;
  listEmails(options?: ListEmailsOptions): Promise<ListEmailsResponse>;
  async listEmails(options: ListEmailsOptions = {}): Promise<ListEmailsResponse> {
    const query = new URLSearchParams();
    const mailboxes = options.mailbox === undefined ? [] : Array.isArray(options.mailbox) ? options.mailbox : [options.mailbox];
    for (const mailbox of mailboxes) query.append('mailbox', mailbox);
    if (options.after !== undefined) query.set('after', options.after);
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.wait !== undefined) query.set('wait', String(options.wait));
    if (options.includeBody) query.set('include', 'body');
    const response = await this.#transport.send({
      method: 'GET',
      path: withQuery('/api/emails', query),
      ...callOptions(options),
      ...(options.wait !== undefined && options.wait > 0 ? { minTimeout: options.wait * 1000 + LONG_POLL_GRACE } : {}),
    });
    return parseJson(response, options.includeBody ? ANSWERS.listEmailsWithBody : ANSWERS.listEmails);
  }

  /**
   * Recipients the service's SMTP refused (a domain it does not serve, an unknown or an
   * expired mailbox) since `since` (default: 15 minutes ago), oldest first, with the `550`
   * reply each got. An admin key sees every refusal; other keys only those of their own
   * expired mailboxes' addresses. `GET /api/emails/refusals`.
   *
   * @example
   * ```ts
   * const refused = await client.listRefusals({ since: startedAt });
   * for (const r of refused) console.log(r.address, r.reply);
   * ```
   */
  async listRefusals(options: { since?: Date | string; limit?: RefusalsQuery['limit'] } & RequestOptions = {}): Promise<Refusal[]> {
    const query = new URLSearchParams();
    if (options.since !== undefined) query.set('since', options.since instanceof Date ? options.since.toISOString() : options.since);
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const response = await this.#transport.send({ method: 'GET', path: withQuery('/api/emails/refusals', query), ...callOptions(options) });
    return parseJson(response, ANSWERS.listRefusals).refusals;
  }

  /**
   * Ends a live mailbox now, as if its expiry time had come: it refuses mail from then on,
   * no longer counts against the account's live-mailbox limit, and is swept with its
   * messages. `POST /api/emails/{mailboxId}/expire`; answers the mailbox with its new
   * `expiresAt`. A mailbox that is already gone answers `404 mailbox_not_found`.
   *
   * @example
   * ```ts
   * await client.expireMailbox(mailbox.id);
   * ```
   */
  async expireMailbox(mailboxIdOrAddress: string, options?: RequestOptions): Promise<Mailbox> {
    const response = await this.#transport.send({
      method: 'POST',
      path: `/api/emails/${segment(mailboxIdOrAddress)}/expire`,
      ...callOptions(options),
    });
    return parseJson(response, ANSWERS.expireMailbox);
  }

  /**
   * Adds a fault rule to a live mailbox: what the service's SMTP does instead of its normal
   * answer to mail for it, at `RCPT TO` (`at: 'rcpt'`, that recipient only) or after the body
   * (`at: 'data'`, the whole transaction): reply `code` (4xx/5xx; `421` also closes), wait
   * `delay` ms first, or `disconnect` without a reply; `times` deliveries (absent: until
   * cleared), each with chance `probability`. Rules are the mailbox's own and end with it.
   * `POST /api/emails/{mailboxId}/faults` → 201 with the stored rule (`hits: 0`).
   *
   * @example
   * ```ts
   * const rule = await client.addFault(mailbox.id, { at: 'rcpt', code: 451, enhancedCode: '4.3.0', times: 1 });
   * ```
   */
  async addFault(mailboxIdOrAddress: string, rule: FaultRuleBody, options?: RequestOptions): Promise<FaultRule> {
    const response = await this.#transport.send({
      method: 'POST',
      path: `/api/emails/${segment(mailboxIdOrAddress)}/faults`,
      body: rule,
      ...callOptions(options),
    });
    return parseJson(response, ANSWERS.addFault);
  }

  /**
   * A mailbox's fault rules, oldest first, each with `hits` (deliveries it applied to) and,
   * for a rule with `times`, `remaining`. Spent rules are listed too, until cleared.
   * `GET /api/emails/{mailboxId}/faults` (unwraps `{ faults }`).
   *
   * @example
   * ```ts
   * const [rule] = await client.listFaults(mailbox.id);
   * console.log(rule?.hits, rule?.remaining);
   * ```
   */
  async listFaults(mailboxIdOrAddress: string, options?: RequestOptions): Promise<FaultRule[]> {
    const response = await this.#transport.send({
      method: 'GET',
      path: `/api/emails/${segment(mailboxIdOrAddress)}/faults`,
      ...callOptions(options),
    });
    return parseJson(response, ANSWERS.listFaults).faults;
  }

  /**
   * Removes every fault rule of a mailbox: its mail is answered normally again at once.
   * `DELETE /api/emails/{mailboxId}/faults` → 204.
   *
   * @example
   * ```ts
   * await client.clearFaults(mailbox.id);
   * ```
   */
  async clearFaults(mailboxIdOrAddress: string, options?: RequestOptions): Promise<void> {
    await this.#transport.send({
      method: 'DELETE',
      path: `/api/emails/${segment(mailboxIdOrAddress)}/faults`,
      ...callOptions(options),
    });
  }

  /**
   * One mailbox (by id or address) and a page of its messages, newest first.
   * `GET /api/emails/{mailboxId}`; pass `nextCursor` as `cursor` for the next page.
   */
  async getMailbox(mailboxIdOrAddress: string, options: GetMailboxOptions = {}): Promise<MailboxMessagesResponse> {
    const query = new URLSearchParams();
    if (options.cursor !== undefined) query.set('cursor', options.cursor);
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const response = await this.#transport.send({
      method: 'GET',
      path: withQuery(`/api/emails/${segment(mailboxIdOrAddress)}`, query),
      ...callOptions(options),
    });
    return parseJson(response, ANSWERS.getMailbox);
  }

  /** One whole message. `GET /api/emails/{mailboxId}/{messageId}` (unwraps `{ message }`). */
  async getMessage(mailboxId: string, messageId: string, options?: RequestOptions): Promise<Message> {
    const response = await this.#transport.send({
      method: 'GET',
      path: `/api/emails/${segment(mailboxId)}/${segment(messageId)}`,
      ...callOptions(options),
    });
    return parseJson(response, ANSWERS.getMessage).message;
  }

  /**
   * Which HTML and CSS features of a message each mail client lacks (`no`) or supports in
   * part (`partial`), by the caniemail.com data: per feature, the clients with the data's notes,
   * up to 5 places in the mail and how many there are; most clients answering `no` first.
   * `clients` are `family.platform` ids (`outlook.windows`) or globs (`gmail.*`, `*.ios`);
   * absent: `apple-mail.*`, `gmail.*`, `outlook.*`, `yahoo.*`. A message without HTML answers
   * `hasHtml: false` and no issues. `GET /api/emails/{mailboxId}/{messageId}/html-check`; an
   * unknown client is a `400 invalid_request` with `field: 'client'`.
   *
   * @example
   * ```ts
   * const report = await client.checkHtml(mailbox.id, message.id, { clients: ['outlook.windows', 'gmail.*'] });
   * for (const issue of report.issues) console.log(issue.feature, issue.clients.map((c) => `${c.client}: ${c.support}`));
   * ```
   */
  async checkHtml(mailboxIdOrAddress: string, messageId: string, options: { clients?: readonly string[] } & RequestOptions = {}): Promise<HtmlCheckReport> {
    const query = new URLSearchParams();
    for (const client of options.clients ?? []) query.append('client', client);
    const response = await this.#transport.send({
      method: 'GET',
      path: withQuery(`/api/emails/${segment(mailboxIdOrAddress)}/${segment(messageId)}/html-check`, query),
      ...callOptions(options),
    });
    return parseJson(response, ANSWERS.checkHtml);
  }

  /**
   * The original RFC 5322 source of a message. `GET /api/emails/{mailboxId}/{messageId}/raw`.
   * Decoded as UTF-8 by default; pass `{ as: 'buffer' }` for the exact bytes.
   *
   * @example
   * ```ts
   * const eml = await client.getRawMessage(mailboxId, messageId);
   * const bytes = await client.getRawMessage(mailboxId, messageId, { as: 'buffer' });
   * ```
   */
  getRawMessage(mailboxId: string, messageId: string, options: RawMessageOptions & { as: 'buffer' }): Promise<Buffer>;
  getRawMessage(mailboxId: string, messageId: string, options?: RawMessageOptions & { as?: 'string' }): Promise<string>;
  getRawMessage(mailboxId: string, messageId: string, options?: RawMessageOptions): Promise<string | Buffer>;
  async getRawMessage(mailboxId: string, messageId: string, options: RawMessageOptions = {}): Promise<string | Buffer> {
    const response = await this.#transport.send({
      method: 'GET',
      path: `/api/emails/${segment(mailboxId)}/${segment(messageId)}/raw`,
      accept: RAW_ACCEPT,
      ...callOptions(options),
    });
    return options.as === 'buffer' ? response.body : response.body.toString('utf8');
  }

  /** Domains, expiry options, role, limits and quota usage of the account. `GET /api/config`. */
  async getConfig(options?: RequestOptions): Promise<ConfigResponse> {
    const response = await this.#transport.send({ method: 'GET', path: '/api/config', ...callOptions(options) });
    return parseJson(response, ANSWERS.getConfig);
  }

  /**
   * Registers a webhook for `message.received` events. `POST /api/config/webhooks` → 201.
   * The returned `secret` (`whsec_…`) is shown only here; keep it to verify signatures.
   */
  async createWebhook(body: CreateWebhookBody, options?: RequestOptions): Promise<CreatedWebhook> {
    const response = await this.#transport.send({
      method: 'POST',
      path: '/api/config/webhooks',
      body,
      ...callOptions(options),
    });
    return parseJson(response, ANSWERS.createWebhook);
  }

  /** The account's webhooks. `GET /api/config/webhooks` (unwraps `{ webhooks }`). */
  async listWebhooks(options?: RequestOptions): Promise<Webhook[]> {
    const response = await this.#transport.send({ method: 'GET', path: '/api/config/webhooks', ...callOptions(options) });
    return parseJson(response, ANSWERS.listWebhooks).webhooks;
  }

  /** Removes a webhook. `DELETE /api/config/webhooks/{id}` → 204. */
  async deleteWebhook(id: string, options?: RequestOptions): Promise<void> {
    await this.#transport.send({
      method: 'DELETE',
      path: `/api/config/webhooks/${segment(id)}`,
      ...callOptions(options),
    });
  }

  /**
   * Sends a signed `webhook.test` event to the webhook now and reports how it went.
   * `POST /api/config/webhooks/{id}/test`.
   */
  async testWebhook(id: string, options?: RequestOptions): Promise<WebhookTestResponse> {
    const response = await this.#transport.send({
      method: 'POST',
      path: `/api/config/webhooks/${segment(id)}/test`,
      ...callOptions(options),
    });
    return parseJson(response, ANSWERS.testWebhook);
  }

  /**
   * The webhook's delivery log with every attempt. `GET /api/config/webhooks/{id}/deliveries`
   * (unwraps `{ deliveries }`).
   */
  async listDeliveries(id: string, options: ListDeliveriesOptions = {}): Promise<Delivery[]> {
    const query = new URLSearchParams();
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const response = await this.#transport.send({
      method: 'GET',
      path: withQuery(`/api/config/webhooks/${segment(id)}/deliveries`, query),
      ...callOptions(options),
    });
    return parseJson(response, ANSWERS.listDeliveries).deliveries;
  }

  /** Redeems an admin-minted top-up code. `POST /api/config/quota/redeem`. */
  async redeem(code: string, options?: RequestOptions): Promise<RedeemResponse> {
    const body: RedeemBody = { code };
    const response = await this.#transport.send({
      method: 'POST',
      path: '/api/config/quota/redeem',
      body,
      ...callOptions(options),
    });
    return parseJson(response, ANSWERS.redeem);
  }

  /** Liveness of the service; needs no key. `GET /health`. */
  async health(options?: RequestOptions): Promise<HealthResponse> {
    const response = await this.#transport.send({ method: 'GET', path: '/health', ...callOptions(options) });
    return parseJson(response, ANSWERS.health);
  }

  /**
   * Closes the client's keep-alive connections after requests in flight finish. Calling it
   * again is fine. A `dispatcher` passed in the options is left open (the caller owns it).
   * Later calls reject with `MW_ERR_CLIENT_CLOSED`.
   */
  close(): Promise<void> {
    return this.#transport.close();
  }

  /** `await using client = new MailwrightClient(…)` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
