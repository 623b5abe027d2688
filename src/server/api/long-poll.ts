// Owns waiting for the next stored message that matches a poll (the long-poll half of
// GET /api/emails). Subscribe first, query second: a message committed in between is never missed.
import type { FreshCopy, ServiceBus } from '../events.js';
import type { StoredMessage } from '../store/store.js';

/** A message that woke a wait and is, on its own, everything the poll has to answer (see {@link MessageWaiter.woke}). */
export interface WakingMessage {
  message: StoredMessage;
  raw: Buffer;
}

interface MessageWaiter {
  /** Resolves true when a matching message was stored, false on timeout or abort. */
  readonly arrived: Promise<boolean>;
  /**
   * Once `arrived` resolved true: the message that woke the wait when this instance committed
   * it in order (nothing committed before it can still turn up), so the poll answers with it
   * without reading the store; null when the store must be read (another thread's or
   * instance's commit, or a resync).
   */
  readonly woke: WakingMessage | null;
  dispose(): void;
}

export function waitForStoredMessage(
  bus: ServiceBus,
  matches: (message: StoredMessage) => boolean,
  timeoutMs: number,
  signal: AbortSignal,
): MessageWaiter {
  let settle: (value: boolean) => void = () => {};
  let woke: WakingMessage | null = null;
  const arrived = new Promise<boolean>((resolve) => (settle = resolve));
  const onStored = (message: StoredMessage, _deliveries: unknown, _remote?: boolean, fresh?: FreshCopy) => {
    if (!matches(message)) return;
    // Messages before it that matched would have woken the wait first: none did, so it is the whole answer.
    if (fresh) woke = { message, raw: fresh.raw };
    finish(true);
  };
  const onAbort = () => finish(false);
  // Something may have been committed unseen: answer "look again" and let the caller re-query.
  const onResync = () => finish(true);
  const timer = setTimeout(() => finish(false), timeoutMs);
  timer.unref();
  function finish(value: boolean) {
    dispose();
    settle(value);
  }
  function dispose() {
    clearTimeout(timer);
    bus.off('message.stored', onStored);
    bus.off('shutdown', onAbort);
    bus.off('resync', onResync);
    signal.removeEventListener('abort', onAbort);
  }
  bus.on('message.stored', onStored);
  bus.on('shutdown', onAbort);
  bus.on('resync', onResync);
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) finish(false);
  return { arrived, get woke() { return woke; }, dispose };
}
