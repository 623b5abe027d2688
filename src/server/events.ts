// Owns the in-process event bus: ingestion emits after commit; long-poll and delivery listen.
import { EventEmitter } from 'node:events';
import type { DeliveryRecord, StoredMessage } from './store/store.js';

/**
 * What ingestion knows of a copy it committed just now, beyond the stored record. Given only
 * when every message committed before the copy was emitted before it (`inOrder`, see
 * OnCommitted in store.ts): a long-poll woken by it may answer with it alone.
 */
export interface FreshCopy {
  /** The message's source as it came in (its body, when asked for, is read from it). */
  raw: Buffer;
}

interface ServiceEvents {
  /**
   * A message copy was durably committed, with the webhook deliveries it is owed (due now).
   * `remote`: another instance sharing the store committed it with deliveries (not listed here; the dispatcher looks for them).
   * `fresh`: this instance's SMTP committed it just now, in order (see {@link FreshCopy}).
   */
  'message.stored': [message: StoredMessage, deliveries: readonly DeliveryRecord[], remote?: boolean, fresh?: FreshCopy];
  /** The service is stopping: long-polls answer now with what they have. */
  shutdown: [];
  /** Commits of other instances may have been missed (their feed reconnected): waiters re-check the store. */
  resync: [];
}

/** A typed EventEmitter for {@link ServiceEvents}. */
export class ServiceBus extends EventEmitter<ServiceEvents> {
  constructor() {
    super();
    // Every long-poll adds a listener; many concurrent polls are normal.
    this.setMaxListeners(0);
  }
}
