// Owns the worker's mail hub (the `mail` fixture): creating and releasing inboxes, choosing how
// mail arrives (webhooks through webhook-link.ts, else the long-poll loop, which also backs up a
// slow webhook in `auto`), listing a mailbox from the API, and failing the waits of a mailbox
// that is gone. What is known per mailbox is mailboxes.ts's. One hub per worker.
import createDebug from 'debug';
import { MailwrightApiError, MailwrightClient } from '../client/index.js';
import { systemClock, type Clock, type Mailbox, type Message, type Refusal } from '../protocol/index.js';
import { describeError, FIXTURE_ERROR_CODES, formatClock, formatDuration, MailwrightFixtureError } from './errors.js';
import { Inbox, type InboxHost, type InboxSubscription, type SubscriptionHandlers } from './inbox.js';
import type { MailMessage } from './message.js';
import { detach, endWaits, Mailboxes, type ArrivalPath, type MailboxState, type Subscriber } from './mailboxes.js';
import { currentTestScope, testFailed, type TestScope } from './test-scope.js';
import { explainRefusedKey } from './refused-key.js';
import type { ResolvedMailOptions } from './options.js';
import { Poller } from './poller.js';
import { WebhookLink } from './webhook-link.js';

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

/**
 * With webhooks, how long a new wait relies on them alone before listing its mailbox once
 * from the API (a message that arrived just before the wait, whose delivery is slow or
 * being retried). Waits that resolve sooner cost no API call.
 */
const START_CHECK_DELAY = 250;

/** Not public API: seams for tests. */
export interface HubInternals {
  /** Where the hub's and its waits' timers run (a fake clock in tests). */
  clock?: Clock;
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
  readonly #mailboxes: Mailboxes;
  readonly #clock: Clock;
  readonly #poller: Poller;
  #delivery: ActiveDelivery = 'poll';
  #link: WebhookLink | undefined;
  #lastError: string | undefined;
  #closing: Promise<void> | undefined;
  readonly #host: InboxHost;

  private constructor(options: ResolvedMailOptions, clock: Clock) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the host's getter reads live state
    const hub = this;
    this.options = options;
    this.#clock = clock;
    this.#mailboxes = new Mailboxes(clock);
    this.client = new MailwrightClient({ baseURL: options.baseURL, apiKey: options.apiKey });
    this.#poller = new Poller(this.client, { wait: Math.round(options.longPollTimeout / 1000) }, {
      onMessages: (messages) => this.#ingestAll(messages, 'poll'),
      onMailboxGone: (ids, error) => this.#onMailboxGone(ids, error),
      onError: (error) => {
        this.#lastError = `polling failed: ${describeError(error)}`;
      },
    });
    this.#host = {
      known: (id) => this.#mailboxes.known(id),
      subscribe: (id, handlers) => this.#subscribe(id, handlers),
      fetchAll: (id, opts) => this.#fetchAll(id, opts),
      rawSource: (mailboxId, messageId) => this.client.getRawMessage(mailboxId, messageId, { as: 'buffer' }),
      refusals: (since) => this.#refusals(since),
      faults: this.client,
      get lastError() {
        return hub.#lastError;
      },
      defaultTimeout: options.timeout,
      attach: options.attach,
      // Only when a failed test's inbox outlives it: with keep 'never' the page is gone once the error is read.
      ...(options.keep === 'never' ? {} : { webUI: (mailboxId: string) => mailboxPageURL(options.baseURL, mailboxId) }),
      clock,
    };
  }

  /**
   * Starts a hub: in `auto`/`webhook` mode with a confirmed webhook receiver, in `poll`
   * mode (or when `auto` finds the receiver unreachable) without. If start-up fails half
   * way, what started is undone and the first error is rethrown.
   */
  static async start(options: ResolvedMailOptions, internals: HubInternals = {}): Promise<MailHub> {
    const hub = new MailHub(options, internals.clock ?? systemClock);
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
    return this.#link?.url;
  }

  /** Which path brought this worker's messages first, and how many long-polls were sent (diagnostics). */
  get stats(): HubStats {
    return { ...this.#mailboxes.counts, pollRequests: this.#poller.requests };
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
      ...(this.#delivery === 'webhook' && this.#link ? { webhookId: this.#link.webhookId } : {}),
    }).catch((error: unknown) => {
      throw explainRefusedKey(error, this.options);
    });
    this.#mailboxes.add(mailbox);
    debug('inbox %s (%s) created, delivery %s', mailbox.email, mailbox.id, this.#delivery);
    const inbox = new Inbox(this.#host, mailbox, createdAt);
    // An inbox made during a test ends with it (after its report attachments), so a long
    // suite never piles up live mailboxes against the account's limit; unless the `keep`
    // option keeps it, e.g. that of a failed test, for a look at its mail in the web UI.
    const scope = currentTestScope();
    scope?.cleanups.push(() => this.#endOfTest(inbox, scope));
    return inbox;
  }

  /** The test that made `inbox` ended: release it, or keep it live on the service as `keep` says. */
  async #endOfTest(inbox: Inbox, scope: TestScope): Promise<void> {
    const keep = this.options.keep === 'always' || (this.options.keep === 'on-failure' && testFailed(scope));
    if (!keep) return this.release(inbox);
    this.#forget(inbox.id);
    debug('inbox %s kept live until %s (keep: %s)', inbox.address, inbox.expiresAt.toISOString(), this.options.keep);
    scope.testInfo.annotations.push({
      type: 'mailwright inbox kept',
      description: `${inbox.address} is live until ${formatClock(inbox.expiresAt)}: ${mailboxPageURL(this.options.baseURL, inbox.id)}`,
    });
  }

  /** Drops what this worker knows of a mailbox (its pending waits never settle); undefined when it knew none. */
  #forget(mailboxId: string): MailboxState | undefined {
    const pending = this.#mailboxes.get(mailboxId)?.subscribers.size ?? 0;
    if (pending > 0) debug('%d wait(s) on %s were still pending when the test ended (a missing await?)', pending, mailboxId);
    const state = this.#mailboxes.remove(mailboxId);
    if (state) this.#updatePollSet();
    return state;
  }

  /**
   * Ends an inbox: its mailbox is expired on the service (it refuses mail from then on and
   * no longer counts against the account's live-mailbox limit), the messages this worker
   * kept for it are dropped, and waits still pending on it never settle (a test that ends
   * with a pending wait forgot an `await`). Afterwards the Inbox's waits throw
   * `MW_ERR_MAILBOX_GONE`.
   *
   * Done for you: inboxes created during a test (the `inbox` fixture, `mail.createInbox()`
   * in a test or `beforeEach`) end when that test ends, after its report attachments, unless
   * the `keep` option keeps them (by default those of a failed test); inboxes created outside
   * a test (a worker fixture, `beforeAll`) end when the hub closes (kept with `keep: 'always'`).
   * Never throws: a mailbox the service no longer has is already ended.
   */
  async release(inbox: Inbox): Promise<void> {
    const state = this.#forget(inbox.id);
    if (!state) return;
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
    const left = this.#mailboxes.clear();
    await this.#poller.close().catch((error: unknown) => errors.push(error));
    if (this.options.keep !== 'always') await this.#expire(left.map((state) => state.mailbox));
    await this.#link?.close();
    await this.client.close().catch((error: unknown) => errors.push(error));
    if (errors.length > 0) debug('errors while closing: %O', errors);
  }

  #assertOpen(): void {
    if (this.#closing) throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.hubClosed, 'the mailwright hub of this worker is closed; create inboxes inside tests or worker fixtures that depend on `mail`');
  }

  async #startWebhook(): Promise<void> {
    const result = await WebhookLink.start(this.client, this.options, (message) => this.#mailboxes.ingest(message, 'webhook'));
    if ('link' in result) {
      this.#link = result.link;
      this.#delivery = 'webhook';
      return;
    }
    if (this.options.delivery === 'webhook') {
      throw new MailwrightFixtureError(
        FIXTURE_ERROR_CODES.webhookUnreachable,
        `delivery 'webhook' was asked for, but ${result.reason}. The service at ${this.options.baseURL} must reach the receiver on ${this.options.receiverHost}: ` +
          `set receiverHost (e.g. '0.0.0.0') and receiverURL (e.g. 'http://host.docker.internal:{port}{path}') for a service in a container, ` +
          `or use test.use({ mailwright: { delivery: 'auto' } }) to fall back to polling.`,
        { cause: result.cause },
      );
    }
    debug('delivery: poll, because %s', result.reason);
    this.#delivery = 'poll';
  }

  #ingestAll(messages: Message[], via: ArrivalPath): MailMessage[] {
    const out: MailMessage[] = [];
    for (const message of messages) {
      const known = this.#mailboxes.ingest(message, via);
      if (known) out.push(known);
    }
    return out;
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
      subscriber.checkTimer = this.#clock.setTimeout(() => {
        if (!state.subscribers.has(subscriber)) return;
        this.#list(state).catch((error: unknown) => this.#onListError(state, error));
      }, START_CHECK_DELAY);
      if (this.options.delivery === 'auto') {
        subscriber.fallbackTimer = this.#clock.setTimeout(() => {
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
        detach(state, subscriber, hub.#clock);
        if (subscriber.polled) hub.#updatePollSet();
      },
      get delivery() {
        if (hub.#delivery === 'poll') return 'poll';
        return subscriber.usedFallback ? 'webhook+poll fallback' : 'webhook';
      },
    };
  }

  #updatePollSet(): void {
    this.#poller.setMailboxes(this.#mailboxes.polled());
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
        return this.#mailboxes.known(state.mailbox.id);
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
    const expired = expiresAt.getTime() <= this.#clock.now() + 1_000;
    return new MailwrightFixtureError(
      FIXTURE_ERROR_CODES.mailboxGone,
      expired
        ? `mailbox ${state.mailbox.email} expired at ${formatClock(expiresAt)}; give it a longer life with test.use({ mailwright: { expiryTime: … } }) or createInbox({ expiryTime })`
        : `mailbox ${state.mailbox.email} is gone from the service at ${this.options.baseURL} (was the service restarted with an in-memory store?)`,
      { cause },
    );
  }

  #markGone(state: MailboxState, error: Error): void {
    endWaits(state, (subscriber) => subscriber.onGone(error), this.#clock);
    this.#updatePollSet();
  }

  /** A batch poll answered 404: find the mailbox(es) that are gone and fail their waits. */
  async #onMailboxGone(ids: string[], error: MailwrightApiError): Promise<void> {
    const states = ids.map((id) => this.#mailboxes.get(id)).filter((s): s is MailboxState => s !== undefined);
    let gone = states.filter((s) => new Date(s.mailbox.expiresAt).getTime() <= this.#clock.now() + 1_000);
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

/** The web UI's page of a mailbox: `http://127.0.0.1:8025/mailboxes/mbx_…`. */
export function mailboxPageURL(baseURL: string, mailboxId: string): string {
  return `${baseURL.replace(/\/+$/, '')}/mailboxes/${encodeURIComponent(mailboxId)}`;
}
