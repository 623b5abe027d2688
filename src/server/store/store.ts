// Owns the storage contract: every record the service keeps and the one interface both
// backends (SQLite, Postgres) implement. The store knows nothing of HTTP, SMTP or delivery.
import type { Address, DeliveryStatus } from '../../protocol/index.js';
import type { MessageBody } from '../mime/parse.js';
import type { Accounts } from './accounts.js';
import type { Faults } from './faults.js';
import type { Mailboxes } from './mailboxes.js';
import type { Refusals } from './refusals.js';
import type { Search } from './search.js';
import type { Sessions } from './sessions.js';
import type { Webhooks } from './webhooks.js';

/** Most mailboxes one `sweepExpired` call deletes, whatever its limit (a bound on one transaction). */
export const SWEEP_MAILBOXES_MAX = 10_000;
/** Times are epoch milliseconds throughout the store. */
export type Millis = number;

export type Scope = 'emails' | 'config';
export const ALL_SCOPES: readonly Scope[] = ['emails', 'config'];

export interface AccountRecord {
  id: string; email: string; role: string; isAdmin: boolean;
  passwordHash: string | null;
  createdAt: Millis;
}

export interface ApiKeyRecord {
  id: string; accountId: string; name: string;
  /** The first characters of the key, safe to display (`mw_ab12…`). */
  prefix: string;
  scopes: Scope[];
  createdAt: Millis; revokedAt: Millis | null;
  /** When the key last authenticated a call (recorded at most about once a minute). */
  lastUsedAt: Millis | null;
}

/** A signed-in web session; the store keeps only the hash of the session id. */
export interface SessionRecord {
  idHash: string; accountId: string;
  /** The session's own fields (JSON), opaque to the store. */
  data: string;
  expiresAt: Millis;
}

export interface MailboxRecord {
  id: string; accountId: string;
  /** Lower-case address, `local@domain`. */
  address: string;
  webhookId: string | null;
  createdAt: Millis; expiresAt: Millis;
}

/** What routing needs to know of an unbound mailbox's account (see delivery/routing.ts). */
export interface AccountRouting {
  /** The account's webhooks, oldest first. */
  webhooks: Array<Pick<WebhookRecord, 'id' | 'catchAll'>>;
  /** Ids of those webhooks that a live mailbox is bound to. */
  boundWebhookIds: string[];
  /** When that set changes by itself next: the soonest expiry of those mailboxes; null when there are none. */
  changesAt: Millis | null;
}

/** Failed sign-ins counted under one key in a window that opened with the first of them. */
export interface SignInFailures {
  count: number;
  /** When the window ends and the count starts again from nothing. */
  windowEndsAt: Millis;
}

/** Where a fault rule acts: the mailbox's RCPT TO, or the reply after the body of a message addressed to it. */
export type FaultStage = 'rcpt' | 'data';

/** A fault rule of a mailbox: what SMTP does instead of its normal answer, how often, and how many times so far. */
export interface FaultRecord {
  id: string; mailboxId: string; stage: FaultStage;
  /** The SMTP reply code (4xx or 5xx) and its enhanced status code, with an optional text. */
  code: number | null; enhancedCode: string | null; message: string | null;
  /** Wait before the reply, ms. */
  delayMs: number | null;
  /** Close the connection without a reply. */
  disconnect: boolean;
  /** How many times the rule applies (null: until cleared), and how many times it did. */
  times: number | null; hits: number;
  /** The chance that it applies to a delivery (0 < p ≤ 1). */
  probability: number;
  createdAt: Millis;
}

/** A mailbox as the SMTP recipient lookup finds it, with what routing needs to know of its account. */
export interface RecipientMailbox extends MailboxRecord {
  /**
   * Its account's routing, read with the mailbox (a bound mailbox's mail goes to its webhook,
   * so it has none): the copy's deliveries are planned from it with no further read.
   */
  routing: AccountRouting | null;
  /** Its fault rules not yet spent, oldest first (their `hits` as of the look-up). */
  faults: FaultRecord[];
}

/** A recipient SMTP refused, kept for a day so a timed-out wait can say what went wrong. */
export interface RefusalRecord {
  at: Millis;
  /** The recipient as sent in RCPT TO. */
  address: string;
  reason: 'unserved_domain' | 'unknown_mailbox' | 'expired_mailbox';
  /** The SMTP reply text sent back. */
  reply: string;
  /** Envelope sender, when there was one. */
  mailFrom: string | null;
  /** The account whose (expired) mailbox the address was; null for the others. */
  accountId: string | null;
}

/**
 * A message as ingestion hands it to the store (once, for all recipients): the source as
 * received, the only copy of its body, with the summary fields read from its headers.
 */
export interface NewMessage {
  from: Address | null; to: Address[]; cc: Address[]; subject: string;
  raw: Buffer;
}

export interface StoredMessage {
  id: string;
  /** Global, strictly increasing insertion order; the basis of poll cursors. */
  seq: number;
  accountId: string; mailboxId: string;
  /** Address of the receiving mailbox. */
  mailbox: string;
  from: Address | null; to: Address[]; cc: Address[]; subject: string;
  receivedAt: Millis; size: number;
  /** Present only when bodies were asked for: read from the stored source at that moment. */
  body?: MessageBody;
}

export interface WebhookRecord {
  id: string; accountId: string; url: string;
  /** Receives mail of unbound mailboxes while no live mailbox is bound to it. */
  catchAll: boolean;
  secret: string; createdAt: Millis;
  /**
   * Set when delivery gave up on the target: it refused every connection for a whole retry
   * schedule since this time. Cleared by the next attempt that connects.
   */
  refusingSince: Millis | null;
}

export interface DeliveryRecord {
  id: string; webhookId: string; accountId: string; event: string;
  messageId: string | null; mailboxId: string | null;
  status: DeliveryStatus;
  /** Attempts made so far. */
  attempts: number;
  nextAttemptAt: Millis | null; createdAt: Millis;
}

export interface AttemptRecord {
  attempt: number; at: Millis; durationMs: number;
  statusCode: number | null; error: string | null; ok: boolean;
}

/** Thrown by the store when a unique value is already in use. */
export class StoreConflictError extends Error {
  readonly code = 'MW_ERR_STORE_CONFLICT';
  constructor(readonly subject: string, message: string) {
    super(message);
    this.name = 'StoreConflictError';
  }
}

/** Thrown by `createMailbox` when the account already holds as many live mailboxes as its role allows. */
export class MailboxLimitError extends Error {
  readonly code = 'MW_ERR_MAILBOX_LIMIT';
  constructor(readonly live: number, readonly limit: number) {
    super(`the account has ${live} live mailboxes; the limit is ${limit}`);
    this.name = 'MailboxLimitError';
  }
}

/** What a store shared by several instances reports of commits made by the others. */
export interface CommitWatcher {
  /**
   * A message copy another instance committed (its summary, without body); `owesDeliveries`
   * when its commit made webhook deliveries (which that instance sends, or another once its lease ends).
   */
  onMessage(message: StoredMessage, owesDeliveries: boolean): void;
  /** The watch was interrupted and is back: anything may have been missed, so re-check the store. */
  onResync(): void;
}

/** One copy of an incoming message to store: its mailbox and the webhooks it is delivered to. */
export interface CopyPlan {
  mailboxId: string;
  /** Webhooks owed a `message.received` delivery of this copy, as delivery routing decided. */
  webhookIds: readonly string[];
}

export interface InsertedCopy {
  message: StoredMessage;
  /** Deliveries created in the same transaction (one per target webhook). */
  deliveries: DeliveryRecord[];
}

/**
 * What {@link Store.insertMessage} calls once its transaction has committed (the store's
 * readers see the copies from then on), with the copies stored.
 */
export type OnCommitted = (inserted: InsertedCopy[]) => void;

/** What a backend can do that the code using it may need to know. */
export interface StoreCapabilities {
  /**
   * Several service instances may share the store (Postgres); false where one process owns it
   * (SQLite). Where it is false, the deliveries a commit made are this instance's alone: it may
   * send them at once, without claiming them first.
   */
  readonly sharedByInstances: boolean;
}

/**
 * What each backend does its own way: ingest and message reads (sqlite-messages.ts,
 * postgres-messages.ts), the SMTP recipient look-up, claiming due deliveries, the fleet.
 */
export interface StoreBackend {
  readonly capabilities: StoreCapabilities;
  /**
   * Stores one copy of the message per planned mailbox, and a pending `message.received`
   * delivery (due now) to each webhook the plan names for it, in one durable transaction.
   * The store does not choose the webhooks (delivery routing does); it skips mailboxes that
   * expired and webhooks deleted since the plan was made.
   *
   * Resolves once the transaction is durable. `onCommitted` is called before that, as soon as
   * it has committed (readers of the store see the copies from then on), so listeners can be
   * told while the log is being synced; with a store whose commits are durable at once the two
   * coincide. Messages handed over together may share one transaction and one sync. On a store
   * shared by several instances (PostgreSQL) readers see a commit once every transaction begun
   * before it has ended, and `onCommitted` waits for that: it may come after the promise
   * resolved. It is not called when the transaction fails.
   */
  insertMessage(copies: readonly CopyPlan[], message: NewMessage, now: Millis, onCommitted?: OnCommitted): Promise<InsertedCopy[]>;
  /** Messages with seq > afterSeq in the account's live mailboxes (optionally only `mailboxIds`), oldest first. */
  listMessages(input: { accountId: string; mailboxIds?: string[]; afterSeq: number; limit: number; includeBody: boolean; now: Millis }): Promise<StoredMessage[]>;
  /** The highest seq ever assigned (0 when none). */
  maxSeq(): Promise<number>;
  countMailboxMessages(mailboxId: string): Promise<number>;
  /** One message with its body, only if its mailbox is `mailboxId` and it belongs to the account. */
  getMessage(accountId: string, mailboxId: string, messageId: string): Promise<StoredMessage | null>;
  getRawMessage(accountId: string, mailboxId: string, messageId: string): Promise<Buffer | null>;
  /**
   * Takes up to `limit` pending deliveries due at `now` and leases them until now + leaseMs
   * (their nextAttemptAt moves there), so no other instance tries them meanwhile.
   */
  claimDueDeliveries(now: Millis, leaseMs: number, limit: number): Promise<DeliveryRecord[]>;
  /**
   * A mailbox by address, live or expired but not yet swept (an address holds at most one), with
   * its account's routing as of `now`.
   */
  findMailboxByAddress(address: string, now: Millis): Promise<RecipientMailbox | null>;
  /**
   * Runs `fn` while no other instance sharing this store runs its own (start-up: the first
   * admin account and key are made once however many instances start together).
   */
  withStartupLock<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Reports commits made by other instances sharing the store (Postgres: LISTEN/NOTIFY).
   * Absent where one process owns the store. Returns a function that stops watching.
   */
  watchCommits?(watcher: CommitWatcher): () => Promise<void>;
  close(): Promise<void>;
}

/** The storage contract: what each backend does its own way, and the aggregates written once for both. */
export type Store = StoreBackend & Accounts & Sessions & Mailboxes & Search & Webhooks & Faults & Refusals;

type Joined<P extends object[]> = P extends [infer H, ...infer R extends object[]] ? H & Joined<R> : unknown;

/** A backend's parts put together: a method two parts define is an error at start, not a silent override. */
export function joinParts<P extends object[]>(...parts: P): Joined<P> {
  const joined: Record<string, unknown> = {};
  for (const part of parts) {
    for (const [name, value] of Object.entries(part)) {
      if (name in joined) throw new Error(`store: two of its parts define ${name}; each method must have one definition`);
      joined[name] = value;
    }
  }
  return joined as Joined<P>;
}
