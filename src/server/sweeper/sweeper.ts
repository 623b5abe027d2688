// Owns expiry housekeeping: on an interval, removes expired mailboxes with their messages
// and pending deliveries. (The API and SMTP already treat an expired mailbox as gone; the
// sweep only reclaims the space.) A sweep deletes in chunks of SWEEP_CHUNK rows, each its own
// short transaction, and lets the event loop run between them, so ingestion never waits
// behind a large expiry for more than one chunk.
import type { Logger } from 'pino';
import type { ServiceContext } from '../context.js';

/** Messages and deliveries deleted per transaction of a sweep. */
export const SWEEP_CHUNK = 500;

/** What one sweep removed. */
interface SweepResult {
  mailboxes: number;
  messages: number;
  deliveries: number;
}

/**
 * Calls `store.sweepExpired(clock.now())` every `config.sweepIntervalMs` (unref'ed timer,
 * re-armed after each sweep so sweeps never overlap).
 *
 * Wiring: `const sweeper = new Sweeper(ctx).start();` and `await sweeper.close()` on
 * shutdown, before the store closes.
 */
export class Sweeper implements AsyncDisposable {
  readonly #ctx: ServiceContext;
  readonly #log: Logger;
  #timer: unknown = null;
  #running: Promise<SweepResult> | null = null;
  #started = false;
  #closed: Promise<void> | null = null;

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
    this.#log = ctx.log.child({ subsystem: 'sweeper' });
  }

  /** Schedules the first sweep one interval from now. Returns `this`; calling it again does nothing. */
  start(): this {
    if (this.#started || this.#closed) return this;
    this.#started = true;
    this.#arm();
    return this;
  }

  /**
   * Sweeps now and resolves with what was removed. While a sweep is running, returns that
   * one. Rejects when the store fails (the interval keeps going regardless).
   */
  sweepNow(): Promise<SweepResult> {
    this.#running ??= this.#sweep().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  /** Stops the interval and waits for a running sweep. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      if (this.#timer !== null) this.#ctx.clock.clearTimeout(this.#timer);
      this.#timer = null;
      await this.#running?.catch(() => {});
    })();
    return this.#closed;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #sweep(): Promise<SweepResult> {
    const now = this.#ctx.clock.now();
    const started = performance.now();
    const result: SweepResult = { mailboxes: 0, messages: 0, deliveries: 0 };
    let chunks = 0;
    for (;;) {
      const chunk = await this.#ctx.store.sweepExpired(now, SWEEP_CHUNK);
      chunks++;
      result.mailboxes += chunk.mailboxes;
      result.messages += chunk.messages;
      result.deliveries += chunk.deliveries;
      if (!chunk.more || this.#closed) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const fields = { ...result, chunks, durationMs: Math.round(performance.now() - started) };
    if (result.mailboxes > 0) this.#log.info(fields, 'expired mailboxes removed');
    else this.#log.debug(fields, 'nothing expired');
    return result;
  }

  #arm(): void {
    if (this.#closed) return;
    const handle = this.#ctx.clock.setTimeout(() => {
      this.#timer = null;
      this.sweepNow()
        .catch((error: unknown) => this.#log.error({ err: error }, `sweep failed; trying again in ${this.#ctx.config.sweepIntervalMs} ms`))
        .finally(() => this.#arm());
    }, this.#ctx.config.sweepIntervalMs);
    handle.unref?.();
    this.#timer = handle;
  }
}
