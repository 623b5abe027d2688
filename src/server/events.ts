// Owns the in-process event bus: a message committed (here or by another instance; long-polls,
// webhook delivery and the web UI's live views listen), shutdown, web sessions ended, and resync.
import { EventEmitter } from 'node:events';
import type { DeliveryRecord, StoredMessage } from './store/store.js';

interface ServiceEvents {
  /**
   * A message copy was durably committed, with the webhook deliveries it is owed (due now).
   * `remote`: another instance sharing the store committed it with deliveries (not listed here; the dispatcher looks for them).
   */
  'message.stored': [message: StoredMessage, deliveries: readonly DeliveryRecord[], remote?: boolean];
  /** The service is stopping: long-polls answer now with what they have. */
  shutdown: [];
  /** Web sessions of this account ended here (sign-out, password change): its live streams check theirs. */
  'sessions.ended': [accountId: string];
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
