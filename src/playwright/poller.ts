// Owns the worker's one long-poll loop: a single `GET /api/emails?mailbox=…&mailbox=…&wait=…`
// request at a time over every mailbox the hub asks for, restarted (aborted and re-sent)
// when a mailbox joins the set, stopped when the set is empty. Never one loop per wait.
import createDebug from 'debug';
import { MailwrightApiError, MailwrightError, type MailwrightClient } from '../client/index.js';
import type { Message } from '../protocol/index.js';

const debug = createDebug('mailwright:poller');

/** Most mailboxes the API accepts in one poll. */
const MAX_BATCH = 100;
/** Messages per page. */
const PAGE_LIMIT = 100;
/** Backoff after a failed request, ms. */
const BACKOFF = [250, 500, 1_000, 2_000, 5_000];

/** What the poller reports to its owner. */
export interface PollerHandlers {
  /** Whole messages of a page, oldest first. */
  onMessages(messages: Message[]): void;
  /**
   * The API answered 404 `mailbox_not_found` for a batch: some mailbox in `ids` is gone.
   * Resolves once the owner dropped the gone ones; rejects when none could be identified.
   */
  onMailboxGone(ids: string[], error: MailwrightApiError): Promise<void>;
  /** A request failed for another reason (it is retried with backoff). */
  onError(error: unknown): void;
}

/**
 * One long-poll loop per worker. `setMailboxes(ids)` says which mailboxes to watch; the
 * loop runs while that set is not empty.
 *
 * Cursors are opaque, so the poller keeps one: the `cursor` of its last answer, valid for
 * the mailboxes that request covered. When a mailbox joins that the cursor does not cover,
 * the next request starts from the beginning (`after` omitted) for the whole batch;
 * messages seen before are dropped by the hub's de-duplication. Test mailboxes hold a
 * handful of messages, so that costs little and can never skip one.
 */
export class Poller {
  readonly #client: MailwrightClient;
  readonly #handlers: PollerHandlers;
  readonly #wait: number;
  #wanted = new Set<string>();
  #cursor: string | undefined;
  #covered = new Set<string>();
  #request: AbortController | undefined;
  #requestIds = new Set<string>();
  #running: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #closed = false;
  #requests = 0;

  constructor(client: MailwrightClient, options: { wait: number }, handlers: PollerHandlers) {
    this.#client = client;
    this.#wait = options.wait;
    this.#handlers = handlers;
  }

  /** How many poll requests were sent (for tests and debugging). */
  get requests(): number {
    return this.#requests;
  }

  /**
   * Sets the mailboxes to watch. A mailbox the running request does not cover restarts it;
   * an empty set stops the loop. Removing mailboxes does not restart the request: it still
   * covers the remaining ones.
   */
  setMailboxes(ids: Iterable<string>): void {
    if (this.#closed) return;
    this.#wanted = new Set(ids);
    if (this.#wanted.size === 0) {
      if (this.#request) {
        debug('no mailbox to watch; stopping');
        this.#request.abort();
      }
      return;
    }
    const uncovered = [...this.#wanted].some((id) => !this.#requestIds.has(id));
    if (!this.#running) {
      let crashed = false;
      this.#running = this.#loop()
        .catch((error: unknown) => {
          crashed = true;
          this.#handlers.onError(error);
          debug('loop failed: %O', error);
        })
        .finally(() => {
          this.#running = undefined;
          if (this.#closed || this.#wanted.size === 0) return;
          // A mailbox was added while the loop was finishing, or the loop failed: go on
          // (after a pause when it failed, so a persistent fault cannot spin).
          if (!crashed) this.setMailboxes(this.#wanted);
          else setTimeout(() => this.setMailboxes(this.#wanted), 1_000).unref();
        });
    } else if (uncovered && this.#request) {
      debug('mailbox set grew to %d; restarting the request', this.#wanted.size);
      this.#request.abort();
    }
    this.#wake?.();
  }

  async #loop(): Promise<void> {
    let failures = 0;
    while (!this.#closed && this.#wanted.size > 0) {
      const ids = [...this.#wanted].slice(0, MAX_BATCH);
      const after = ids.every((id) => this.#covered.has(id)) ? this.#cursor : undefined;
      const controller = new AbortController();
      this.#request = controller;
      this.#requestIds = new Set(ids);
      try {
        this.#requests++;
        debug('poll #%d over %d mailbox(es) after %s', this.#requests, ids.length, after ?? '(start)');
        const page = await this.#client.listEmails({
          mailbox: ids,
          after,
          wait: this.#wait,
          limit: PAGE_LIMIT,
          includeBody: true,
          signal: controller.signal,
        });
        failures = 0;
        // Answered: there is nothing to abort any more (a wait it resolves may empty the set).
        this.#settled(controller);
        this.#cursor = page.cursor;
        this.#covered = new Set(ids);
        if (page.messages.length > 0) this.#handlers.onMessages(page.messages);
      } catch (error) {
        if (controller.signal.aborted || this.#closed) continue;
        if (error instanceof MailwrightApiError && error.code === 'mailbox_not_found') {
          try {
            await this.#handlers.onMailboxGone(ids, error);
            continue;
          } catch {
            // Which mailbox is gone could not be told: back off like any failure.
          }
        }
        this.#handlers.onError(error);
        const delay = BACKOFF[Math.min(failures, BACKOFF.length - 1)]!;
        failures++;
        debug('poll failed (%s); retrying in %d ms', error instanceof MailwrightError ? error.code : String(error), delay);
        await this.#sleep(delay);
      } finally {
        this.#settled(controller);
      }
    }
    debug('loop stopped');
  }

  /** The request of `controller` is over (answered, failed or aborted): nothing is running to abort or restart. */
  #settled(controller: AbortController): void {
    if (this.#request !== controller) return;
    this.#request = undefined;
    this.#requestIds = new Set();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = undefined;
        done();
      };
    });
  }

  /** Stops the loop and waits for it to end. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wanted.clear();
    this.#request?.abort();
    this.#wake?.();
    await this.#running;
  }
}
