// Owns the worker's mail hub (the `mail` fixture): the API client, the webhook receiver
// and its registration, the one long-poll loop, the messages seen per mailbox with
// de-duplication, and routing arrivals to waiting inboxes. One hub per worker.
import createDebug from 'debug';
import { MailwrightApiError, MailwrightClient, MailwrightError } from '../client/index.js';
import type { Mailbox, Message, Refusal } from '../protocol/index.js';
import { FIXTURE_ERROR_CODES, formatClock, formatDuration, MailwrightFixtureError } from './errors.js';
import { Inbox, type InboxHost, type InboxSubscription, type SubscriptionHandlers } from './inbox.js';
import { MailMessage } from './message.js';
import { currentTestScope } from './test-scope.js';
import { DEFAULT_PLAYWRIGHT_API_KEY } from './config.js';
import { describeKeySource, type ResolvedMailOptions } from './options.js';
import { Poller } from './poller.js';
import { WebhookReceiver } from './receiver.js';

const debug = createDebug('mailwright:hub');

/** How this hub learns about arrivals: pushed by webhook, or pulled by polling. */
export type ActiveDelivery = 'webhook' | 'poll';

/** Options of {@link MailHub.createInbox}. */
export interface CreateInboxOptions {
  /** Custom local part (`alice` → `alice@<domain>`); random when absent. */
  name?: string;
  /** Lifetime in ms. @default the `expiryTime` fixture option (10 min) */
  expiryTime?: number;
  /** Domain; must be one the service serves. @default the `domain` fixture option */
  domain?: string;
}

interface Subscriber extends SubscriptionHandlers {
  polled: boolean;
  usedFallback: boolean;
  fallbackTimer?: ReturnType<typeof setTimeout>;
  checkTimer?: ReturnType<typeof setTimeout>;
}

/**
 * With webhooks, how long a new wait relies on them alone before listing its mailbox once
 * from the API (a message that arrived just before the wait, whose delivery is slow or
 * being retried). Waits that resolve sooner cost no API call.
 */
const START_CHECK_DELAY = 250;

interface MailboxState {
  mailbox: Mailbox;
  /** Messages seen, by id, in arrival order. */
  messages: Map<string, MailMessage>;
  subscribers: Set<Subscriber>;
  /** Cursor of the last single-mailbox listing (`fetchAll` / the start-of-wait check). */
  cursor: string | undefined;
  /** A listing in flight, shared by concurrent callers. */
  listing: Promise<MailMessage[]> | undefined;
}

/** Which path brought messages to the hub first; see {@link MailHub.stats}. */
export interface HubStats {
  /** Messages first seen in a webhook delivery. */
  webhook: number;
  /** Messages first seen by the long-poll loop. */
  poll: number;
  /** Messages first seen in a plain listing (start of a wait, `messages()`, a timed-out wait's final check). */
  api: number;
  /** Deliveries or listings of messages already seen (dropped). */
  duplicates: number;
  /** Long-poll requests sent. */
  pollRequests: number;
}

/** Pages fetched at most by one listing (100 messages each). */
const MAX_LIST_PAGES = 20;

/**
 * The worker-scoped hub behind the `mail` fixture. It creates inboxes and resolves their
 * waits from whichever path brings a message first: the webhook receiver or the poll loop.
 *
 * Start-up in `auto`/`webhook`: start the receiver on a free port, register it as a
 * webhook, call the service's test endpoint and check that the signed test event reached
 * the receiver. In `auto`, a failure at any step means polling (the webhook is deleted).
 * `close()` stops the loop, deletes the webhook and closes the receiver; it is idempotent
 * and `await using` works.
 *
 * @example
 * ```ts
 * test('two users', async ({ mail }) => {
 *   const alice = await mail.createInbox({ name: `alice-${Date.now()}` });
 *   const bob = await mail.createInbox();
 *   // …
 * });
 * ```
 */
export class MailHub implements AsyncDisposable {
  /** The API client the hub uses (for calls the fixture does not wrap). */
  readonly client: MailwrightClient;
  /** The options in force. */
  readonly options: Readonly<ResolvedMailOptions>;
  readonly #mailboxes = new Map<string, MailboxState>();
  readonly #poller: Poller;
  #delivery: ActiveDelivery = 'poll';
  #receiver: WebhookReceiver | undefined;
  #webhookId: string | undefined;
  #lastError: string | undefined;
  readonly #stats = { webhook: 0, poll: 0, api: 0, duplicates: 0 };
  #closing: Promise<void> | undefined;
  readonly #host: InboxHost;

  private constructor(options: ResolvedMailOptions) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the host's getter reads live state
    const hub = this;
    this.options = options;
    this.client = new MailwrightClient({ baseURL: options.baseURL, apiKey: options.apiKey });
    this.#poller = new Poller(this.client, { wait: Math.round(options.longPollTimeout / 1000) }, {
      onMessages: (messages) => this.#ingestAll(messages, 'poll'),
      onMailboxGone: (ids, error) => this.#onMailboxGone(ids, error),
      onError: (error) => {
        this.#lastError = `polling failed: ${describeError(error)}`;
      },
    });
    this.#host = {
      known: (id) => this.#known(id),
      subscribe: (id, handlers) => this.#subscribe(id, handlers),
      fetchAll: (id, opts) => this.#fetchAll(id, opts),
      rawSource: (mailboxId, messageId) => this.client.getRawMessage(mailboxId, messageId, { as: 'buffer' }),
      refusals: (since) => this.#refusals(since),
      get lastError() {
        return hub.#lastError;
      },
      defaultTimeout: options.timeout,
      attach: options.attach,
    };
  }

  /**
   * Starts a hub: in `auto`/`webhook` mode with a confirmed webhook receiver, in `poll`
   * mode (or when `auto` finds the receiver unreachable) without. If start-up fails half
   * way, what started is undone and the first error is rethrown.
   */
  static async start(options: ResolvedMailOptions): Promise<MailHub> {
    const hub = new MailHub(options);
    try {
      if (options.delivery !== 'poll') await hub.#startWebhook();
      else debug('delivery: poll (as configured)');
      return hub;
    } catch (error) {
      await hub.close().catch((closeError: unknown) => debug('closing after a failed start failed: %O', closeError));
      throw explainRefusedKey(error, options);
    }
  }

  /** The delivery in use: `webhook` (with polling as a safety net in `auto`) or `poll`. */
  get delivery(): ActiveDelivery {
    return this.#delivery;
  }

  /** The receiver's URL as registered with the service, when webhooks are in use. */
  get webhookURL(): string | undefined {
    return this.#receiver && this.#webhookId ? this.#registeredURL(this.#receiver) : undefined;
  }

  /** Which path brought this worker's messages first, and how many long-polls were sent (diagnostics). */
  get stats(): HubStats {
    return { ...this.#stats, pollRequests: this.#poller.requests };
  }

  /**
   * Creates a fresh mailbox bound to this worker (its mail is delivered only to this
   * worker's webhook) and returns its Inbox. Its messages are attached to the report of the
   * test that created or used it.
   */
  async createInbox(options: CreateInboxOptions = {}): Promise<Inbox> {
    this.#assertOpen();
    const createdAt = new Date();
    const domain = options.domain ?? this.options.domain;
    const mailbox = await this.client.createMailbox({
      expiryTime: options.expiryTime ?? this.options.expiryTime,
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(domain !== undefined ? { domain } : {}),
      ...(this.#delivery === 'webhook' && this.#webhookId ? { webhookId: this.#webhookId } : {}),
    }).catch((error: unknown) => {
      throw explainRefusedKey(error, this.options);
    });
    this.#mailboxes.set(mailbox.id, { mailbox, messages: new Map(), subscribers: new Set(), cursor: undefined, listing: undefined });
    debug('inbox %s (%s) created, delivery %s', mailbox.email, mailbox.id, this.#delivery);
    const inbox = new Inbox(this.#host, mailbox, createdAt);
    // An inbox made during a test ends with it (after its report attachments), so a long
    // suite never piles up live mailboxes against the account's limit.
    currentTestScope()?.cleanups.push(() => this.release(inbox));
    return inbox;
  }

  /**
   * Ends an inbox: its mailbox is expired on the service (it refuses mail from then on and
   * no longer counts against the account's live-mailbox limit), the messages this worker
   * kept for it are dropped, and waits still pending on it never settle (a test that ends
   * with a pending wait forgot an `await`). Afterwards the Inbox's waits throw
   * `MW_ERR_MAILBOX_GONE`.
   *
   * Done for you: inboxes created during a test (the `inbox` fixture, `mail.createInbox()`
   * in a test or `beforeEach`) end when that test ends, after its report attachments;
   * inboxes created outside a test (a worker fixture, `beforeAll`) end when the hub closes.
   * Never throws: a mailbox the service no longer has is already ended.
   */
  async release(inbox: Inbox): Promise<void> {
    const state = this.#mailboxes.get(inbox.id);
    if (!state) return;
    if (state.subscribers.size > 0) debug('%d wait(s) on %s were still pending when the test ended (a missing await?)', state.subscribers.size, inbox.address);
    this.#drop(state);
    this.#mailboxes.delete(inbox.id);
    this.#updatePollSet();
    await this.#expire([state.mailbox]);
  }

  /** Refusals since `since` for a timed-out wait's message; undefined when they cannot be listed (e.g. an older service). */
  async #refusals(since: Date): Promise<Refusal[] | undefined> {
    try {
      return await this.client.listRefusals({ since, limit: 50, timeout: 2_000 });
    } catch (error) {
      debug('listing refusals failed: %s', describeError(error));
      return undefined;
    }
  }

  /** Expires mailboxes on the service; failures (already gone, service down) are only logged. */
  async #expire(mailboxes: Mailbox[]): Promise<void> {
    await Promise.all(mailboxes.map(async (mailbox) => {
      try {
        await this.client.expireMailbox(mailbox.id);
        debug('mailbox %s expired', mailbox.email);
      } catch (error) {
        debug('expiring mailbox %s failed: %s', mailbox.email, describeError(error));
      }
    }));
  }

  /** Stops the poll loop, deletes the webhook, closes the receiver and the client. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #close(): Promise<void> {
    debug('closing');
    const errors: unknown[] = [];
    // Waits still pending now belong to tests that ended without awaiting them.
    for (const state of this.#mailboxes.values()) this.#drop(state);
    await this.#poller.close().catch((error: unknown) => errors.push(error));
    await this.#expire([...this.#mailboxes.values()].map((state) => state.mailbox));
    this.#mailboxes.clear();
    await this.#dropWebhook();
    if (this.#receiver) await this.#receiver.close().catch((error: unknown) => errors.push(error));
    await this.client.close().catch((error: unknown) => errors.push(error));
    if (errors.length > 0) debug('errors while closing: %O', errors);
  }

  /** Ends every wait on the mailbox without settling it. */
  #drop(state: MailboxState): void {
    for (const subscriber of [...state.subscribers]) {
      clearTimeout(subscriber.fallbackTimer);
      clearTimeout(subscriber.checkTimer);
      state.subscribers.delete(subscriber);
      subscriber.onDropped();
    }
  }

  #assertOpen(): void {
    if (this.#closing) throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.hubClosed, 'the mailwright hub of this worker is closed; create inboxes inside tests or worker fixtures that depend on `mail`');
  }

  #registeredURL(receiver: WebhookReceiver): string {
    const template = this.options.receiverURL;
    if (!template) return receiver.url;
    return template.replaceAll('{port}', String(receiver.port)).replaceAll('{path}', receiver.path).replaceAll('{host}', receiver.host);
  }

  async #startWebhook(): Promise<void> {
    const mode = this.options.delivery;
    let reason: string | undefined;
    let cause: unknown;
    try {
      this.#receiver = await WebhookReceiver.start({ host: this.options.receiverHost, onMessage: (message) => this.#ingest(message, 'webhook') });
      const url = this.#registeredURL(this.#receiver);
      // Only this worker's mailboxes (bound with webhookId) come here, never other workers' unbound mail.
      const webhook = await this.client.createWebhook({ url, catchAll: false });
      this.#webhookId = webhook.id;
      this.#receiver.setSecret(webhook.secret);
      const test = await this.client.testWebhook(webhook.id);
      if (!test.delivered) reason = `the service could not deliver a test event to ${url}: ${test.error ?? `HTTP ${test.statusCode}`}`;
      else if (!this.#receiver.hasTestEvent(webhook.id)) reason = `the test event to ${url} was answered with HTTP ${test.statusCode}, but not by this worker's receiver (a proxy or another process answered)`;
      else debug('delivery: webhook via %s (test event took %d ms)', url, test.durationMs);
    } catch (error) {
      cause = error;
      if (error instanceof MailwrightApiError && (error.code === 'missing_api_key' || error.code === 'invalid_api_key' || error.code === 'quota_exhausted')) throw error;
      if (error instanceof MailwrightError && error.code === 'MW_ERR_CONNECTION') throw error;
      reason = `setting up the webhook receiver failed: ${describeError(error)}`;
    }
    if (reason === undefined) {
      this.#delivery = 'webhook';
      return;
    }
    await this.#dropWebhook();
    await this.#receiver?.close();
    this.#receiver = undefined;
    if (mode === 'webhook') {
      throw new MailwrightFixtureError(
        FIXTURE_ERROR_CODES.webhookUnreachable,
        `delivery 'webhook' was asked for, but ${reason}. The service at ${this.options.baseURL} must reach the receiver on ${this.options.receiverHost}: ` +
          `set receiverHost (e.g. '0.0.0.0') and receiverURL (e.g. 'http://host.docker.internal:{port}{path}') for a service in a container, ` +
          `or use test.use({ mailwright: { delivery: 'auto' } }) to fall back to polling.`,
        { cause },
      );
    }
    debug('delivery: poll, because %s', reason);
    this.#lastError = undefined;
    this.#delivery = 'poll';
  }

  async #dropWebhook(): Promise<void> {
    const id = this.#webhookId;
    if (!id) return;
    this.#webhookId = undefined;
    try {
      await this.client.deleteWebhook(id);
      debug('webhook %s deleted', id);
    } catch (error) {
      debug('deleting webhook %s failed: %s', id, describeError(error));
    }
  }

  #known(mailboxId: string): MailMessage[] {
    const state = this.#mailboxes.get(mailboxId);
    if (!state) return [];
    return [...state.messages.values()].sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
  }

  #ingestAll(messages: Message[], via: 'webhook' | 'poll' | 'api'): MailMessage[] {
    const out: MailMessage[] = [];
    for (const message of messages) {
      const known = this.#ingest(message, via);
      if (known) out.push(known);
    }
    return out;
  }

  /** Records a message once (by id) and hands it to the mailbox's waits. */
  #ingest(message: Message, via: 'webhook' | 'poll' | 'api'): MailMessage | undefined {
    const state = this.#mailboxes.get(message.mailboxId);
    if (!state) return undefined; // another worker's or a forgotten mailbox
    const existing = state.messages.get(message.id);
    if (existing) {
      this.#stats.duplicates++;
      return existing;
    }
    const mail = new MailMessage(message);
    state.messages.set(message.id, mail);
    this.#stats[via]++;
    debug('message %s "%s" to %s received via %s', message.id, message.subject, state.mailbox.email, via);
    for (const subscriber of [...state.subscribers]) subscriber.onMessage(mail);
    return mail;
  }

  #subscribe(mailboxId: string, handlers: SubscriptionHandlers): InboxSubscription {
    this.#assertOpen();
    const state = this.#mailboxes.get(mailboxId);
    if (!state) throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.mailboxGone, `mailbox ${mailboxId} is not known to this worker's hub (its test ended); create inboxes per test`);
    const subscriber: Subscriber = { ...handlers, polled: this.#delivery === 'poll', usedFallback: false };
    state.subscribers.add(subscriber);
    if (this.#delivery === 'poll') {
      this.#updatePollSet();
    } else {
      // A message may have arrived before the wait with its delivery still in flight or
      // being retried: if the wait is still pending shortly, look once. If webhooks stay
      // silent longer, poll as a safety net.
      subscriber.checkTimer = setTimeout(() => {
        if (!state.subscribers.has(subscriber)) return;
        this.#list(state).catch((error: unknown) => this.#onListError(state, error));
      }, START_CHECK_DELAY);
      if (this.options.delivery === 'auto') {
        subscriber.fallbackTimer = setTimeout(() => {
          if (!state.subscribers.has(subscriber)) return;
          debug('a wait on %s is pending for %s with webhooks; polling as well', state.mailbox.email, formatDuration(this.options.fallbackAfter));
          subscriber.polled = true;
          subscriber.usedFallback = true;
          this.#updatePollSet();
        }, this.options.fallbackAfter);
      }
    }
    const hub = this;
    let closed = false;
    return {
      close() {
        if (closed) return;
        closed = true;
        clearTimeout(subscriber.fallbackTimer);
        clearTimeout(subscriber.checkTimer);
        state.subscribers.delete(subscriber);
        if (subscriber.polled) hub.#updatePollSet();
      },
      get delivery() {
        if (hub.#delivery === 'poll') return 'poll';
        return subscriber.usedFallback ? 'webhook+poll fallback' : 'webhook';
      },
    };
  }

  #updatePollSet(): void {
    const ids: string[] = [];
    for (const [id, state] of this.#mailboxes) {
      for (const subscriber of state.subscribers) {
        if (subscriber.polled) {
          ids.push(id);
          break;
        }
      }
    }
    this.#poller.setMailboxes(ids);
  }

  /** Lists the mailbox from the API from its last cursor; concurrent callers share one listing. */
  #list(state: MailboxState, options: { timeout?: number } = {}): Promise<MailMessage[]> {
    state.listing ??= (async () => {
      try {
        for (let page = 0; page < MAX_LIST_PAGES; page++) {
          const answer = await this.client.listEmails({
            mailbox: state.mailbox.id,
            after: state.cursor,
            limit: 100,
            includeBody: true,
            ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
          });
          state.cursor = answer.cursor;
          this.#ingestAll(answer.messages, 'api');
          if (answer.messages.length < 100) break;
        }
        return this.#known(state.mailbox.id);
      } finally {
        state.listing = undefined;
      }
    })();
    return state.listing;
  }

  async #fetchAll(mailboxId: string, options: { timeout?: number } = {}): Promise<MailMessage[]> {
    const state = this.#mailboxes.get(mailboxId);
    if (!state) throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.mailboxGone, `mailbox ${mailboxId} is not known to this worker's hub (its test ended)`);
    try {
      return await this.#list(state, options);
    } catch (error) {
      if (error instanceof MailwrightApiError && error.code === 'mailbox_not_found') throw this.#goneError(state, error);
      throw error;
    }
  }

  #onListError(state: MailboxState, error: unknown): void {
    if (error instanceof MailwrightApiError && error.code === 'mailbox_not_found') {
      this.#markGone(state, this.#goneError(state, error));
      return;
    }
    this.#lastError = `listing ${state.mailbox.email} failed: ${describeError(error)}`;
    debug(this.#lastError);
  }

  #goneError(state: MailboxState, cause: unknown): MailwrightFixtureError {
    const expiresAt = new Date(state.mailbox.expiresAt);
    const expired = expiresAt.getTime() <= Date.now() + 1_000;
    return new MailwrightFixtureError(
      FIXTURE_ERROR_CODES.mailboxGone,
      expired
        ? `mailbox ${state.mailbox.email} expired at ${formatClock(expiresAt)}; give it a longer life with test.use({ mailwright: { expiryTime: … } }) or createInbox({ expiryTime })`
        : `mailbox ${state.mailbox.email} is gone from the service at ${this.options.baseURL} (was the service restarted with an in-memory store?)`,
      { cause },
    );
  }

  #markGone(state: MailboxState, error: Error): void {
    for (const subscriber of [...state.subscribers]) {
      clearTimeout(subscriber.fallbackTimer);
      clearTimeout(subscriber.checkTimer);
      state.subscribers.delete(subscriber);
      subscriber.onGone(error);
    }
    this.#updatePollSet();
  }

  /** A batch poll answered 404: find the mailbox(es) that are gone and fail their waits. */
  async #onMailboxGone(ids: string[], error: MailwrightApiError): Promise<void> {
    const states = ids.map((id) => this.#mailboxes.get(id)).filter((s): s is MailboxState => s !== undefined);
    let gone = states.filter((s) => new Date(s.mailbox.expiresAt).getTime() <= Date.now() + 1_000);
    if (gone.length === 0) {
      gone = [];
      for (const state of states) {
        try {
          await this.client.listEmails({ mailbox: state.mailbox.id, limit: 1 });
        } catch (probeError) {
          if (probeError instanceof MailwrightApiError && probeError.code === 'mailbox_not_found') gone.push(state);
        }
      }
    }
    for (const state of gone) this.#markGone(state, this.#goneError(state, error));
    if (gone.length === 0) {
      this.#lastError = `polling failed: ${describeError(error)}`;
      throw error;
    }
  }
}

/**
 * A 401 `invalid_api_key` rewritten for the fixture: which key, where it came from, that the
 * service at that URL does not know it, and the fix for that source. Other errors pass through.
 */
export function explainRefusedKey(error: unknown, options: Pick<ResolvedMailOptions, 'baseURL' | 'apiKey' | 'apiKeySource'>): unknown {
  if (!(error instanceof MailwrightApiError) || error.code !== 'invalid_api_key') return error;
  const isDefault = options.apiKey === DEFAULT_PLAYWRIGHT_API_KEY;
  const shown = isDefault || options.apiKey.length <= 12 ? options.apiKey : `${options.apiKey.slice(0, 10)}…`;
  const fromServerEntry = options.apiKeySource === 'server-default' || options.apiKeySource === 'server-option';
  const flag = isDefault ? `--api-key ${DEFAULT_PLAYWRIGHT_API_KEY}` : '--api-key <that key>';
  const fix = fromServerEntry
    ? `Outside CI, Playwright reuses a server already listening on that port (reuseExistingServer) instead of starting mailwrightServer()'s own, so the one answering was most likely started by hand with another key. ` +
      `Fix: restart it with \`npx mailwright serve ${flag}\`, or stop it so Playwright starts its own.`
    : `Fix: use a key of that service (\`npx mailwright keys create --email you@example.com\` prints one), or start the service with \`npx mailwright serve ${flag}\`.`;
  return new MailwrightApiError({
    status: error.status,
    code: error.code,
    detail: error.detail,
    method: error.method,
    url: error.url,
    ...(error.problem !== undefined ? { problem: error.problem } : {}),
    // No `cause`: its message repeats the generic way out this one replaces.
    message: `the service at ${options.baseURL} does not know the API key ${shown} (401 invalid_api_key); the key came from ${describeKeySource(options.apiKeySource)}. ${fix}`,
  });
}

function describeError(error: unknown): string {
  if (error instanceof MailwrightError) return `${error.code}: ${error.message.split('\n')[0]}`;
  return error instanceof Error ? error.message : String(error);
}
