// Owns webhook delivery: attempts committed deliveries at once, retries failures on the
// configured schedule from the store (so retries survive a restart and several instances
// share the work through leases), records every attempt in the delivery log, and stops
// retrying a target that refused every connection for a whole schedule.
import type { Agent } from 'undici';
import type { Logger } from 'pino';
import type { ServiceContext } from '../context.js';
import { toMessageReceivedEvent } from '../dto.js';
import type { DeliveryRecord, StoredMessage, WebhookRecord } from '../store/store.js';
import { createWebhookClient, nextState, postWebhook, wasRefused } from './attempt.js';

/** The log line of a delivery not attempted, or not retried, because its target is taken for gone. */
function targetGoneReason(since: number): string {
  return `retries stopped: the webhook's target has refused every connection since ${new Date(since).toISOString()}, ` +
    'for a whole retry schedule; bring the receiver back or delete the webhook';
}

/**
 * How soon an instance looks at the store after another instance's commit owed deliveries:
 * that instance claims and sends them itself; by then the look finds when its lease ends, so
 * that this instance takes them over then should it die. Announcements that arrive meanwhile
 * share the look.
 */
const REMOTE_LOOK_MS = 1_000;

interface DispatcherOptions {
  /**
   * Attempts in flight at once.
   * @default 16
   */
  concurrency?: number;
  /**
   * Added to `webhookTimeoutMs` to make the lease on a claimed delivery: if this instance
   * dies mid-attempt, the delivery is due again (here or on another instance) after it.
   * @default 5000
   */
  leaseMarginMs?: number;
  /**
   * Longest sleep between looks at the store, so deliveries created or released by another
   * instance of a fleet are not left waiting.
   * @default 30000
   */
  maxIdleMs?: number;
}

/**
 * Delivers webhook events.
 *
 * Wiring: `const dispatcher = new WebhookDispatcher(ctx).start();` and
 * `await dispatcher.close()` on shutdown (before the store closes). It listens to
 * `bus.on('message.stored')` (whose deliveries ingestion committed with the message; on
 * SQLite, where it is the only sender, it sends those at once while below its in-flight
 * bound), otherwise sleeps until `store.nextDeliveryDue()` (one unref'ed timer), and works
 * through `store.claimDueDeliveries`. `start()` picks up every delivery left pending in the
 * store.
 */
export class WebhookDispatcher implements AsyncDisposable {
  readonly #ctx: ServiceContext;
  readonly #log: Logger;
  readonly #concurrency: number;
  readonly #leaseMs: number;
  readonly #maxIdleMs: number;
  /** Where attempts go out (see createWebhookClient); it holds nothing until the first. */
  readonly #client: Agent;
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #onStored = (message: StoredMessage, deliveries: readonly DeliveryRecord[], remote = false) => {
    // Another instance's commit owes deliveries: it sends them; look soon, so that if it dies
    // first, this instance takes them over when their lease ends (SKIP LOCKED keeps it to one sender).
    if (remote) return this.#lookWithin(REMOTE_LOOK_MS);
    if (deliveries.length === 0) return;
    this.#log.debug({ deliveryIds: deliveries.map((d) => d.id) }, 'deliveries scheduled');
    // A store no other instance shares: the deliveries this commit made are ours alone: send them now,
    // without a claiming transaction first (a look at the store that finds one of them under
    // way leaves it be, see #launch). Those past the in-flight bound wait for a claim.
    if (!remote && !this.#ctx.store.capabilities.sharedByInstances) {
      const room = this.#concurrency - this.#inFlight.size;
      for (const delivery of deliveries.slice(0, Math.max(0, room))) this.#launch(delivery, message);
      if (deliveries.length <= room) return;
    }
    this.#kick();
  };
  #timer: unknown = null;
  /** When the armed timer fires (clock ms). */
  #timerDue = 0;
  /** The latest time the store must be looked at next (clock ms), set by {@link #lookWithin}. */
  #lookBy = Number.POSITIVE_INFINITY;
  #started = false;
  #closed: Promise<void> | null = null;
  #pumping: Promise<void> | null = null;
  #again = false;
  #idleWaiters: Array<() => void> = [];

  constructor(ctx: ServiceContext, options: DispatcherOptions = {}) {
    this.#ctx = ctx;
    this.#log = ctx.log.child({ subsystem: 'delivery' });
    this.#client = createWebhookClient(ctx.config);
    this.#concurrency = Math.max(1, options.concurrency ?? 16);
    this.#leaseMs = ctx.config.webhookTimeoutMs + (options.leaseMarginMs ?? 5_000);
    this.#maxIdleMs = options.maxIdleMs ?? 30_000;
  }

  /** Starts listening and resumes pending deliveries. Returns `this`; calling it again does nothing. */
  start(): this {
    if (this.#started || this.#closed) return this;
    this.#started = true;
    this.#ctx.bus.on('message.stored', this.#onStored);
    this.#kick();
    return this;
  }

  /**
   * Resolves once nothing is in flight and the store has nothing due now. Attempts due
   * later stay scheduled. Meant for tests and orderly shutdown.
   */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Stops taking new work, lets attempts in flight finish (each is bounded by the webhook
   * timeout) so they are recorded, then closes connections. Idempotent.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#ctx.bus.off('message.stored', this.#onStored);
      this.#clearTimer();
      await this.#pumping;
      await Promise.allSettled([...this.#inFlight.values()]);
      await this.#client.close();
      this.#notifyIdle();
    })();
    return this.#closed;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #isIdle(): boolean {
    return this.#pumping === null && this.#inFlight.size === 0;
  }

  #notifyIdle(): void {
    if (!this.#isIdle() && !this.#closed) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Looks at the store soon: now, or after the running look finishes. */
  #kick(): void {
    if (this.#closed || !this.#started) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = this.#pump().finally(() => {
      this.#pumping = null;
      this.#notifyIdle();
    });
  }

  async #pump(): Promise<void> {
    const { store, clock } = this.#ctx;
    try {
      do {
        this.#again = false;
        this.#lookBy = Number.POSITIVE_INFINITY;
        let room = this.#concurrency - this.#inFlight.size;
        while (room > 0 && !this.#closed) {
          const claimed = await store.claimDueDeliveries(clock.now(), this.#leaseMs, room);
          for (const delivery of claimed) this.#launch(delivery);
          if (claimed.length < room) break;
          room = this.#concurrency - this.#inFlight.size;
        }
        if (this.#closed) return;
        if (this.#inFlight.size >= this.#concurrency) {
          // A finishing attempt kicks again; no timer needed until then.
          this.#clearTimer();
          return;
        }
        const due = await store.nextDeliveryDue();
        if (this.#closed) return;
        const now = clock.now();
        if (due !== null && due <= now) {
          this.#again = true;
          continue;
        }
        this.#arm(due === null ? this.#maxIdleMs : Math.min(due - now, this.#maxIdleMs));
      } while (this.#again && !this.#closed);
    } catch (error) {
      this.#log.error({ err: error }, 'could not read due deliveries from the store; trying again in 1 s');
      this.#arm(1_000);
    }
  }

  /** Makes sure the store is looked at within `delayMs` (sooner if already due). */
  #lookWithin(delayMs: number): void {
    if (this.#closed || !this.#started) return;
    const by = this.#ctx.clock.now() + delayMs;
    this.#lookBy = Math.min(this.#lookBy, by);
    if (!this.#pumping && (this.#timer === null || this.#timerDue > by)) this.#arm(delayMs);
  }

  #arm(delayMs: number): void {
    this.#clearTimer();
    if (this.#closed) return;
    delayMs = Math.min(delayMs, this.#lookBy - this.#ctx.clock.now());
    this.#timerDue = this.#ctx.clock.now() + Math.max(0, delayMs);
    const handle = this.#ctx.clock.setTimeout(() => {
      this.#timer = null;
      this.#kick();
    }, Math.max(0, delayMs));
    handle.unref?.();
    this.#timer = handle;
  }

  #clearTimer(): void {
    if (this.#timer !== null) this.#ctx.clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  /**
   * Starts an attempt of the delivery, unless one is under way here already. `message`, when
   * it is the delivery's own and was read with its body, is the payload's source.
   */
  #launch(delivery: DeliveryRecord, message?: StoredMessage): void {
    if (this.#inFlight.has(delivery.id)) return;
    const run = this.#deliver(delivery, message)
      .catch((error: unknown) => {
        // The lease brings the delivery back after leaseMs.
        this.#log.error({ err: error, deliveryId: delivery.id, webhookId: delivery.webhookId }, 'delivery attempt could not be recorded');
      })
      .finally(() => {
        this.#inFlight.delete(delivery.id);
        this.#kick();
        this.#notifyIdle();
      });
    this.#inFlight.set(delivery.id, run);
  }

  async #deliver(delivery: DeliveryRecord, message?: StoredMessage): Promise<void> {
    const { store, clock, config } = this.#ctx;
    const ids = { deliveryId: delivery.id, webhookId: delivery.webhookId, messageId: delivery.messageId };
    const attempt = delivery.attempts + 1;
    const webhook = await store.getWebhookById(delivery.webhookId);
    // Deleting a webhook deletes its deliveries and sweeping a mailbox its messages'; these
    // only close a delivery that survived them.
    if (!webhook) return this.#drop(delivery, `webhook ${delivery.webhookId} was deleted; delivery dropped`);
    const payload = await this.#payloadOf(delivery, message);
    if (payload === null) return this.#drop(delivery, `message ${delivery.messageId} is gone; delivery dropped`);

    const outcome = await postWebhook(this.#ctx, this.#client, webhook, { id: delivery.id, payload });
    let next = nextState(config.webhookRetrySchedule, attempt, outcome, clock.now());
    const refused = wasRefused(outcome.error);
    // A target that refused every attempt of a whole retry schedule is taken for gone (a
    // Playwright worker's receiver whose webhook outlived it refuses forever; retrying each
    // of its deliveries on the full schedule would call a dead port for over an hour each).
    // The proof is one delivery refused on all its attempts, so a receiver that merely
    // restarts within a schedule is never given up on. Then the webhook's other pending
    // deliveries fail at once with the reason as the last line of their log, and the
    // webhook keeps the mark (in the store: it holds across restarts and a fleet): a later
    // delivery that is refused again fails after that one attempt. Any attempt that connects
    // clears the mark.
    const goneNow = refused && next.status === 'failed' && webhook.refusingSince === null ? await this.#refusedThroughout(delivery, outcome.at) : null;
    const goneSince = refused ? (webhook.refusingSince ?? goneNow) : null;
    if (goneSince !== null) next = { status: 'failed', nextAttemptAt: null };
    const error = goneSince === null ? outcome.error : `${outcome.error}; ${targetGoneReason(goneSince)}`;
    await store.recordAttempt(delivery.id, { attempt, ...outcome, error }, next);
    const fields = { ...ids, attempt, statusCode: outcome.statusCode, durationMs: outcome.durationMs };
    if (outcome.ok) this.#log.info(fields, 'webhook delivered');
    else if (next.status === 'pending') this.#log.warn({ ...fields, error: outcome.error, nextAttemptAt: next.nextAttemptAt }, 'webhook attempt failed; will retry');
    else this.#log.warn({ ...fields, error }, 'webhook attempt failed; delivery failed');

    if (!refused && webhook.refusingSince !== null) {
      await store.setWebhookRefusingSince(webhook.id, null);
      this.#log.info({ webhookId: webhook.id }, 'webhook target connects again; retries resume');
    }
    if (goneNow !== null) await this.#giveUp(webhook, goneNow);
  }

  /** When every earlier attempt of the delivery was refused too: the first one's time; otherwise null. */
  async #refusedThroughout(delivery: DeliveryRecord, at: number): Promise<number | null> {
    const earlier = await this.#ctx.store.listAttempts(delivery.id);
    return earlier.every((a) => wasRefused(a.error)) ? (earlier[0]?.at ?? at) : null;
  }

  async #giveUp(webhook: WebhookRecord, since: number): Promise<void> {
    const { store, clock } = this.#ctx;
    await store.setWebhookRefusingSince(webhook.id, since);
    const failed = await store.failPendingDeliveries(webhook.id, {
      at: clock.now(), durationMs: 0, statusCode: null, error: `not sent: ${targetGoneReason(since)}`, ok: false,
    });
    this.#log.warn({ webhookId: webhook.id, refusingSince: since, failedDeliveries: failed }, 'webhook target refused every connection for a whole retry schedule; its pending deliveries failed');
  }

  /**
   * The `message.received` body, built from the stored message (identical on every attempt);
   * null when the message is gone. A first attempt at commit time builds it from `committed`,
   * the message as ingestion read it (the same record a store read gives), without a read.
   */
  async #payloadOf(delivery: DeliveryRecord, committed?: StoredMessage): Promise<string | null> {
    if (delivery.event !== 'message.received' || delivery.messageId === null || delivery.mailboxId === null) return null;
    const message = committed?.body && committed.id === delivery.messageId
      ? committed
      : await this.#ctx.store.getMessage(delivery.accountId, delivery.mailboxId, delivery.messageId);
    return message ? JSON.stringify(toMessageReceivedEvent(message, delivery.createdAt)) : null;
  }

  /** Closes a delivery that cannot be sent, with the reason as its last log line. */
  async #drop(delivery: DeliveryRecord, reason: string): Promise<void> {
    this.#log.info({ deliveryId: delivery.id, webhookId: delivery.webhookId, messageId: delivery.messageId }, reason);
    await this.#ctx.store.recordAttempt(
      delivery.id,
      { attempt: delivery.attempts + 1, at: this.#ctx.clock.now(), durationMs: 0, statusCode: null, error: reason, ok: false },
      { status: 'failed', nextAttemptAt: null },
    );
  }
}
