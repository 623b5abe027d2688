// Owns which webhooks get a `message.received` delivery of an incoming message. The rule
// lives here, not in a store backend, so every backend only stores what it is given.
//
// Durability: ingestion asks `planCopies` for the targets *before* the insert and hands the
// plan to `store.insertMessage`, which commits the message copies and their pending
// deliveries in one transaction. A crash after SMTP's `250` therefore cannot lose a
// delivery: the rows are already there and the dispatcher resumes them on start. The
// webhook body is not stored; the dispatcher builds it from the stored message when it sends.
import type { CopyPlan, MailboxRecord, Millis, RecipientMailbox, Store, WebhookRecord } from '../store/store.js';

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
 * One copy per mailbox with the webhooks it is owed, read from the store as of `now` (only
 * for unbound mailboxes of an account that has webhooks: a bound one needs no read, and
 * neither does one whose account had no webhook when SMTP looked its recipient up, see
 * {@link RecipientMailbox}). A webhook created or bound between that read and the insert is
 * not considered for this message; one deleted meanwhile is skipped by the insert.
 */
export async function planCopies(
  store: Store,
  mailboxes: ReadonlyArray<MailboxRecord | RecipientMailbox>,
  now: Millis,
): Promise<CopyPlan[]> {
  const accounts = new Map<string, Promise<{ webhooks: WebhookRecord[]; bound: Set<string> }>>();
  const routingOf = (accountId: string) => {
    let facts = accounts.get(accountId);
    if (!facts) {
      // An account without webhooks (mail only read over the API) needs no second read.
      facts = store.listWebhooks(accountId).then(async (webhooks) => ({
        webhooks,
        bound: new Set(webhooks.length === 0 ? [] : await store.listBoundWebhookIds(accountId, now)),
      }));
      accounts.set(accountId, facts);
    }
    return facts;
  };
  return Promise.all(mailboxes.map(async (mailbox) => {
    // A bound mailbox (every fixture inbox) goes to its webhook: nothing to read on the ingest
    // path, since the insert itself skips a webhook deleted meanwhile.
    if (mailbox.webhookId !== null) return { mailboxId: mailbox.id, webhookIds: [mailbox.webhookId] };
    // Mail of an account without webhooks (read over the API only) owes no delivery.
    if ('accountHasWebhooks' in mailbox && !mailbox.accountHasWebhooks) return { mailboxId: mailbox.id, webhookIds: [] };
    const { webhooks, bound } = await routingOf(mailbox.accountId);
    return { mailboxId: mailbox.id, webhookIds: webhookTargets(mailbox, webhooks, bound) };
  }));
}
