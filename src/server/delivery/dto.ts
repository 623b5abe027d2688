// Owns the wire shape of the delivery log: store records (epoch ms) to protocol `Delivery` (ISO).
import type { Delivery, DeliveryAttempt } from '../../protocol/index.js';
import type { AttemptRecord, DeliveryRecord } from '../store/store.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** One stored attempt as the API shows it. */
export function toAttemptDto(attempt: AttemptRecord): DeliveryAttempt {
  return {
    attempt: attempt.attempt,
    at: iso(attempt.at),
    durationMs: Math.round(attempt.durationMs),
    statusCode: attempt.statusCode,
    error: attempt.error,
    ok: attempt.ok,
  };
}

/**
 * A delivery with its attempts (as `store.listDeliveries` returns them) as the protocol
 * `Delivery` of `GET /api/config/webhooks/{id}/deliveries`:
 * `{ deliveries: (await store.listDeliveries(id, limit)).map(toDeliveryDto) }`.
 */
export function toDeliveryDto(record: DeliveryRecord & { attemptLog: AttemptRecord[] }): Delivery {
  return {
    id: record.id,
    event: record.event,
    messageId: record.messageId,
    mailboxId: record.mailboxId,
    status: record.status,
    createdAt: iso(record.createdAt),
    nextAttemptAt: record.status === 'pending' && record.nextAttemptAt !== null ? iso(record.nextAttemptAt) : null,
    attempts: record.attemptLog.map(toAttemptDto),
  };
}
