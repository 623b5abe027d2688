// Owns what the worker knows about its mailboxes, whatever brought the mail: each mailbox's
// messages de-duplicated by id, the waits subscribed to it, and routing a newly seen message
// to those waits. How mail arrives (webhook receiver, poll loop, a listing) is the hub's and
// the webhook link's business; this only counts which path saw a message first.
import createDebug from 'debug';
import { systemClock, type Clock, type Mailbox, type Message } from '../protocol/index.js';
import type { SubscriptionHandlers } from './inbox.js';
import { MailMessage } from './message.js';

const debug = createDebug('mailwright:mailboxes');

/** The paths a message can reach the worker by. */
export type ArrivalPath = 'webhook' | 'poll' | 'api';

/** One pending wait on a mailbox. */
export interface Subscriber extends SubscriptionHandlers {
  /** Whether the poll loop must cover this wait's mailbox. */
  polled: boolean;
  /** Whether polling joined in because webhooks stayed silent. */
  usedFallback: boolean;
  fallbackTimer?: unknown;
  checkTimer?: unknown;
}

/** A mailbox of this worker. */
export interface MailboxState {
  mailbox: Mailbox;
  /** Messages seen, by id, in arrival order. */
  messages: Map<string, MailMessage>;
  subscribers: Set<Subscriber>;
  /** Cursor of the last single-mailbox listing (`fetchAll` / the start-of-wait check). */
  cursor: string | undefined;
  /** A listing in flight, shared by concurrent callers. */
  listing: Promise<MailMessage[]> | undefined;
}

/** Messages first seen per path, and repeats dropped. */
export type ArrivalCounts = Record<ArrivalPath | 'duplicates', number>;

/** The worker's mailboxes and their waits; see the file comment. */
export class Mailboxes {
  readonly #states = new Map<string, MailboxState>();
  readonly #counts: ArrivalCounts = { webhook: 0, poll: 0, api: 0, duplicates: 0 };

  /** @param clock where the waits' timers were set (the hub's). */
  constructor(readonly clock: Clock = systemClock) {}

  add(mailbox: Mailbox): MailboxState {
    const state: MailboxState = { mailbox, messages: new Map(), subscribers: new Set(), cursor: undefined, listing: undefined };
    this.#states.set(mailbox.id, state);
    return state;
  }

  get(mailboxId: string): MailboxState | undefined {
    return this.#states.get(mailboxId);
  }

  /** Forgets a mailbox; its waits are ended with `onDropped` (they never settle). */
  remove(mailboxId: string): MailboxState | undefined {
    const state = this.#states.get(mailboxId);
    if (!state) return undefined;
    this.#states.delete(mailboxId);
    endWaits(state, (subscriber) => subscriber.onDropped(), this.clock);
    return state;
  }

  /** Forgets every mailbox (see {@link remove}) and returns them. */
  clear(): MailboxState[] {
    return [...this.#states.keys()].map((id) => this.remove(id)!);
  }

  /** Messages of the mailbox seen so far, oldest first. */
  known(mailboxId: string): MailMessage[] {
    const state = this.#states.get(mailboxId);
    if (!state) return [];
    return [...state.messages.values()].sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
  }

  /**
   * Records a message once (by id) and hands it to the mailbox's waits. Returns it (or the
   * copy seen before), or undefined when the mailbox is not this worker's.
   */
  ingest(message: Message, via: ArrivalPath): MailMessage | undefined {
    const state = this.#states.get(message.mailboxId);
    if (!state) return undefined; // another worker's or a forgotten mailbox
    const existing = state.messages.get(message.id);
    if (existing) {
      this.#counts.duplicates++;
      return existing;
    }
    const mail = new MailMessage(message);
    state.messages.set(message.id, mail);
    this.#counts[via]++;
    debug('message %s "%s" to %s received via %s', message.id, message.subject, state.mailbox.email, via);
    for (const subscriber of [...state.subscribers]) subscriber.onMessage(mail);
    return mail;
  }

  /** Ids of the mailboxes with a wait the poll loop must cover. */
  polled(): string[] {
    const ids: string[] = [];
    for (const [id, state] of this.#states) {
      for (const subscriber of state.subscribers) {
        if (subscriber.polled) {
          ids.push(id);
          break;
        }
      }
    }
    return ids;
  }

  get counts(): Readonly<ArrivalCounts> {
    return { ...this.#counts };
  }
}

/** Takes one wait off its mailbox: its timers (set on `clock`) stop and it gets no more messages. */
export function detach(state: MailboxState, subscriber: Subscriber, clock: Clock): void {
  if (subscriber.fallbackTimer !== undefined) clock.clearTimeout(subscriber.fallbackTimer);
  if (subscriber.checkTimer !== undefined) clock.clearTimeout(subscriber.checkTimer);
  state.subscribers.delete(subscriber);
}

/** Detaches every wait of the mailbox and tells each how it ended. */
export function endWaits(state: MailboxState, end: (subscriber: Subscriber) => void, clock: Clock): void {
  for (const subscriber of [...state.subscribers]) {
    detach(state, subscriber, clock);
    end(subscriber);
  }
}
