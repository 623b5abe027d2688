// Owns the mapping from store records to wire objects: one mapper per protocol type, used by
// the API routes and by webhook delivery alike. The store keeps epoch milliseconds; the
// wire carries ISO-8601 strings, converted only here.
import type {
  CreatedWebhook,
  Delivery,
  DeliveryAttempt,
  Mailbox,
  Message,
  MessageReceivedEvent,
  MessageSummary,
  QuotaUsage,
  Refusal,
  Webhook,
  WebhookTestEvent,
} from '../protocol/index.js';
import type { QuotaState } from './auth/quota.js';
import type { AttemptRecord, DeliveryRecord, MailboxRecord, RefusalRecord, StoredMessage, WebhookRecord } from './store/store.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function toMailbox(record: MailboxRecord): Mailbox {
  return { id: record.id, email: record.address, createdAt: iso(record.createdAt), expiresAt: iso(record.expiresAt), webhookId: record.webhookId };
}

export function toMessageSummary(m: StoredMessage): MessageSummary {
  return { id: m.id, mailboxId: m.mailboxId, mailbox: m.mailbox, from: m.from, to: m.to, cc: m.cc, subject: m.subject, receivedAt: iso(m.receivedAt), size: m.size };
}

/** A whole message; the record must have been read with its body. */
export function toMessage(m: StoredMessage): Message {
  if (!m.body) throw new Error(`message ${m.id} was read without its body`);
  return { ...toMessageSummary(m), headers: m.body.headers, text: m.body.text, html: m.body.html, attachments: m.body.attachments };
}

export function toWebhook(record: WebhookRecord): Webhook {
  return { id: record.id, url: record.url, catchAll: record.catchAll, createdAt: iso(record.createdAt) };
}

/** A webhook as its creation answers it: the only time its signing secret is shown. */
export function toCreatedWebhook(record: WebhookRecord): CreatedWebhook {
  return { ...toWebhook(record), secret: record.secret };
}

function toDeliveryAttempt(attempt: AttemptRecord): DeliveryAttempt {
  return {
    attempt: attempt.attempt,
    at: iso(attempt.at),
    durationMs: Math.round(attempt.durationMs),
    statusCode: attempt.statusCode,
    error: attempt.error,
    ok: attempt.ok,
  };
}

/** A delivery with its attempts, as `store.listDeliveries` returns them. */
export function toDelivery(record: DeliveryRecord & { attemptLog: AttemptRecord[] }): Delivery {
  return {
    id: record.id,
    event: record.event,
    messageId: record.messageId,
    mailboxId: record.mailboxId,
    status: record.status,
    createdAt: iso(record.createdAt),
    nextAttemptAt: record.status === 'pending' && record.nextAttemptAt !== null ? iso(record.nextAttemptAt) : null,
    attempts: record.attemptLog.map(toDeliveryAttempt),
  };
}

export function toRefusal(record: RefusalRecord): Refusal {
  return { at: iso(record.at), address: record.address, reason: record.reason, reply: record.reply, from: record.mailFrom };
}

export function toQuotaUsage(state: QuotaState): QuotaUsage {
  return {
    period: state.period,
    allowance: state.allowance,
    topUps: state.topUps,
    used: state.used,
    remaining: state.allowance === null ? null : Math.max(0, state.allowance - state.used),
    resetsAt: iso(state.resetsAt),
  };
}

/** The `message.received` webhook event for a stored message (read with its body), stamped `at`. */
export function toMessageReceivedEvent(m: StoredMessage, at: number): MessageReceivedEvent {
  return { type: 'message.received', timestamp: iso(at), data: toMessage(m) };
}

/** The `webhook.test` event of `POST /api/config/webhooks/{id}/test`. */
export function toWebhookTestEvent(webhookId: string, nonce: string, at: number): WebhookTestEvent {
  return { type: 'webhook.test', timestamp: iso(at), data: { webhookId, nonce } };
}
