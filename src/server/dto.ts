// Owns the mapping from store records to wire objects (protocol shapes), used by the API,
// ingestion (webhook payloads) and delivery alike.
import type { Mailbox, Message, MessageReceivedEvent, MessageSummary } from '../protocol/index.js';
import type { MailboxRecord, StoredMessage } from './store/store.js';

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

/** The exact JSON body of a `message.received` webhook call. */
export function messageReceivedPayload(m: StoredMessage, now: number): string {
  const event: MessageReceivedEvent = { type: 'message.received', timestamp: iso(now), data: toMessage(m) };
  return JSON.stringify(event);
}
