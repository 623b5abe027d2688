// Owns waiting for the next stored message that matches a poll (the long-poll half of
// GET /api/emails). Subscribe first, query second: a message committed in between is never missed.
import type { ServiceBus } from '../events.js';
import type { StoredMessage } from '../store/store.js';

interface MessageWaiter {
  /** Resolves true when a matching message was stored, false on timeout or abort. */
  readonly arrived: Promise<boolean>;
  dispose(): void;
}

export function waitForStoredMessage(
  bus: ServiceBus,
  matches: (message: StoredMessage) => boolean,
  timeoutMs: number,
  signal: AbortSignal,
): MessageWaiter {
  let settle: (value: boolean) => void = () => {};
  const arrived = new Promise<boolean>((resolve) => (settle = resolve));
  const onStored = (message: StoredMessage) => {
    if (matches(message)) finish(true);
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
  return { arrived, dispose };
}
