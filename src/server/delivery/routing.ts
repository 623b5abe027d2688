// Owns which webhooks get a `message.received` delivery of an incoming message. The rule
// lives here, not in a store backend, so every backend only stores what it is given.
//
// Durability: ingestion asks `planCopies` for the targets *before* the insert and hands the
// plan to `store.insertMessage`, which commits the message copies and their pending
// deliveries in one transaction. A crash after SMTP's `250` therefore cannot lose a
// delivery: the rows are already there and the dispatcher resumes them on start. The
// webhook body is not stored; the dispatcher builds it from the stored message when it sends.
import type { CopyPlan, MailboxRecord, RecipientMailbox, WebhookRecord } from '../store/store.js';

/**
 * The webhooks a copy in `mailbox` is delivered to: a mailbox bound to a webhook goes to
 * that webhook only (when it still exists); an unbound mailbox goes to each catch-all
 * webhook of its account that no live mailbox is bound to, oldest first.
 *
 * @param webhooks the account's webhooks, oldest first
 * @param boundWebhookIds ids of the account's webhooks that a live mailbox is bound to
 */
export function webhookTargets(
  mailbox: Pick<MailboxRecord, 'webhookId'>,
  webhooks: ReadonlyArray<Pick<WebhookRecord, 'id' | 'catchAll'>>,
  boundWebhookIds: ReadonlySet<string>,
): string[] {
  if (mailbox.webhookId !== null) return webhooks.some((w) => w.id === mailbox.webhookId) ? [mailbox.webhookId] : [];
  return webhooks.filter((w) => w.catchAll && !boundWebhookIds.has(w.id)).map((w) => w.id);
}

/**
 * One copy per mailbox with the webhooks it is owed, from what the recipient look-up read with
 * each mailbox (its account's routing): nothing more is read on the ingest path. A webhook
 * created or bound after that look-up is not considered for this message; one deleted meanwhile
 * is skipped by the insert.
 */
export function planCopies(mailboxes: readonly RecipientMailbox[]): CopyPlan[] {
  return mailboxes.map((mailbox) => ({
    mailboxId: mailbox.id,
    // A bound mailbox (every fixture inbox) goes to its webhook; an account without webhooks owes none.
    webhookIds: mailbox.webhookId !== null ? [mailbox.webhookId]
      : webhookTargets(mailbox, mailbox.routing?.webhooks ?? [], new Set(mailbox.routing?.boundWebhookIds)),
  }));
}
