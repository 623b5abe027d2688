// Owns turning database rows into store records, for both backends: column names are the
// same in SQLite and Postgres, and every value is normalised here (Postgres BIGINT arrives as
// a string, SQLite booleans as 0/1).
import { withBody } from '../mime/parse.js';
import type { AccountRecord, ApiKeyRecord, AttemptRecord, DeliveryRecord, FaultRecord, MailboxRecord, RecipientMailbox, RefusalRecord, Scope, StoredMessage, WebhookRecord } from './store.js';

export type Row = Record<string, unknown>;

export const num = (v: unknown) => Number(v);
export const str = (v: unknown) => String(v);
export const optNum = (v: unknown) => (v === null || v === undefined ? null : Number(v));
export const optStr = (v: unknown) => (v === null || v === undefined ? null : String(v));

export function accountFromRow(r: Row): AccountRecord {
  return { id: str(r.id), email: str(r.email), role: str(r.role), isAdmin: Boolean(r.is_admin), passwordHash: optStr(r.password_hash), createdAt: num(r.created_at) };
}

export function apiKeyFromRow(r: Row): ApiKeyRecord {
  return {
    id: str(r.id), accountId: str(r.account_id), name: str(r.name), prefix: str(r.prefix), scopes: str(r.scopes).split(',').filter(Boolean) as Scope[],
    createdAt: num(r.created_at), revokedAt: optNum(r.revoked_at), lastUsedAt: optNum(r.last_used_at),
  };
}

/**
 * The SMTP recipient lookup reads the mailbox with its account's routing (`routing_json`, null
 * for a bound mailbox): `[webhooks as [id, catchAll], oldest first, [ids bound by a live mailbox,
 * the soonest expiry of those]]`, the second read only when the account has a webhook. Each
 * backend writes it in its own JSON functions; this reads either.
 */
export function recipientFromRow(r: Row): RecipientMailbox {
  const faults = (JSON.parse(str(r.faults_json ?? '[]')) as unknown[][]).map((values) => faultFromRow(Object.fromEntries(FAULT_COLUMNS.map((c, i) => [c, values[i]]))));
  const mailbox = { ...mailboxFromRow(r), faults };
  if (r.routing_json == null) return { ...mailbox, routing: null };
  const [webhooks, bound] = JSON.parse(str(r.routing_json)) as [Array<[string, unknown]>, [string[], number | null] | null];
  return {
    ...mailbox,
    routing: { webhooks: webhooks.map(([id, catchAll]) => ({ id, catchAll: Boolean(catchAll) })), boundWebhookIds: bound?.[0] ?? [], changesAt: bound?.[1] ?? null },
  };
}

export function mailboxFromRow(r: Row): MailboxRecord {
  return { id: str(r.id), accountId: str(r.account_id), address: str(r.address), webhookId: optStr(r.webhook_id), createdAt: num(r.created_at), expiresAt: num(r.expires_at) };
}

export function messageFromRow(r: Row): StoredMessage {
  return {
    id: str(r.id), seq: num(r.seq), accountId: str(r.account_id), mailboxId: str(r.mailbox_id), mailbox: str(r.mailbox),
    from: r.from_json ? JSON.parse(str(r.from_json)) : null, to: JSON.parse(str(r.to_json)), cc: JSON.parse(str(r.cc_json)),
    subject: str(r.subject), receivedAt: num(r.received_at), size: num(r.size),
  };
}

/** A BLOB/bytea column as a Buffer: both drivers already give one, so it is not copied. */
export function bytes(value: unknown): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value as Uint8Array);
}

/** A row of {@link RAW_COLUMNS} as its message with the body, read from the source. */
export const messageWithBodyFromRow = (r: Row) => withBody(messageFromRow(r), bytes(r.raw));

export function webhookFromRow(r: Row): WebhookRecord {
  return {
    id: str(r.id), accountId: str(r.account_id), url: str(r.url), catchAll: Boolean(r.catch_all), secret: str(r.secret),
    createdAt: num(r.created_at), refusingSince: optNum(r.refusing_since),
  };
}

export function deliveryFromRow(r: Row): DeliveryRecord {
  return {
    id: str(r.id), webhookId: str(r.webhook_id), accountId: str(r.account_id), event: str(r.event), messageId: optStr(r.message_id), mailboxId: optStr(r.mailbox_id),
    status: str(r.status) as DeliveryRecord['status'], attempts: num(r.attempts), nextAttemptAt: optNum(r.next_attempt_at), createdAt: num(r.created_at),
  };
}

export function attemptFromRow(r: Row): AttemptRecord {
  return { attempt: num(r.attempt), at: num(r.at), durationMs: num(r.duration_ms), statusCode: optNum(r.status_code), error: optStr(r.error), ok: Boolean(r.ok) };
}

export const SUMMARY_COLUMNS = 'seq, id, account_id, mailbox_id, mailbox, from_json, to_json, cc_json, subject, received_at, size';
/** The summary and the source, from which a body is read. */
export const RAW_COLUMNS = `${SUMMARY_COLUMNS}, raw`;

export function refusalFromRow(row: Row): RefusalRecord {
  return {
    at: num(row.at), address: str(row.address), reason: str(row.reason) as RefusalRecord['reason'], reply: str(row.reply),
    mailFrom: optStr(row.mail_from), accountId: optStr(row.account_id),
  };
}

export function sessionFromRow(row: Row) {
  return { idHash: str(row.id_hash), accountId: str(row.account_id), data: str(row.data), expiresAt: num(row.expires_at) };
}

export function signInFailuresFromRow(row: Row) {
  return { count: num(row.count), windowEndsAt: num(row.window_ends_at) };
}

export function faultFromRow(r: Row): FaultRecord {
  return {
    id: str(r.id), mailboxId: str(r.mailbox_id), stage: str(r.stage) as FaultRecord['stage'], code: optNum(r.code), enhancedCode: optStr(r.enhanced_code),
    message: optStr(r.message), delayMs: optNum(r.delay_ms), disconnect: Boolean(r.disconnect), times: optNum(r.times), hits: num(r.hits),
    probability: num(r.probability), createdAt: num(r.created_at),
  };
}

/** The columns of a fault rule, in the order the recipient look-up's `faults_json` arrays carry them. */
export const FAULT_COLUMNS = ['id', 'mailbox_id', 'stage', 'code', 'enhanced_code', 'message', 'delay_ms', 'disconnect', 'times', 'hits', 'probability', 'created_at'];
