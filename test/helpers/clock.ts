// The one fake clock of the test suites: the server's Clock seam, moved only by the test.
import type { Clock } from '../../src/server/context.js';

/**
 * A clock that stands still until `advance(ms)`, which moves it and fires the timers then
 * due, earliest first (including due ones those timers set). Timers never fire on their own,
 * so a test decides exactly when a retry, a sweep or a lease comes due.
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #timers = new Map<number, { at: number; fn: () => void }>();

  /** @param start epoch ms the clock shows first; a fixed date unless given. */
  constructor(start = Date.UTC(2030, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number) {
    const id = ++this.#seq;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), fn });
    return { id, unref() {} };
  }

  /** Timers set on this clock and neither fired nor cleared: lets a test wait until code under test has armed one. */
  get pending(): number {
    return this.#timers.size;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete((handle as { id: number }).id);
  }

  advance(ms: number): void {
    this.#now += ms;
    for (;;) {
      const due = [...this.#timers].filter(([, t]) => t.at <= this.#now).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!due) return;
      this.#timers.delete(due[0]);
      due[1].fn();
    }
  }
}
