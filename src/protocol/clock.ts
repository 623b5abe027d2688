// Owns the time seam the service and the fixture share: what "now" is and how a timer is
// set. Production uses the system clock; tests substitute one they move themselves.

/** Time source and timers; tests substitute a controllable one. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): { unref?(): unknown };
  clearTimeout(handle: unknown): void;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
