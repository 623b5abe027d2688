// Owns the option types of the client: how it is constructed and what each call accepts.
// Options that go on the wire as query parameters take their types from the protocol's query schemas.
import type { Dispatcher } from 'undici';
import type { DeliveriesQuery, ListEmailsQuery, MailboxMessagesQuery } from '../protocol/index.js';

/** Default per-request timeout (ms) for response headers and for gaps in the body. */
export const DEFAULT_TIMEOUT = 30_000;
/** Default upper bound (ms) on the total time spent waiting out 429 answers. */
export const DEFAULT_MAX_RETRY_WAIT = 30_000;
/** Extra time (ms) a long-poll request allows beyond its `wait`. */
export const LONG_POLL_GRACE = 10_000;
/** How many times one call retries after a 429 before giving up. */
export const MAX_429_RETRIES = 3;

/** Options of {@link MailwrightClient}. */
export interface MailwrightClientOptions {
  /** Where the service listens, e.g. `http://127.0.0.1:8025`. A path prefix is kept. */
  baseURL: string | URL;
  /**
   * The `mw_…` API key, sent as `X-API-Key`. Only `health()` works without one.
   * Create one with `mailwright keys create --email …` or start the server with `--api-key`.
   */
  apiKey?: string;
  /**
   * Wait out a 429 answer for as long as its `Retry-After` asks, then retry, while the total
   * waited stays within `maxRetryWait` (at most {@link MAX_429_RETRIES} retries).
   * @default true
   */
  retryOn429?: boolean;
  /**
   * Upper bound (ms) on the total time one call spends waiting out 429 answers; a longer
   * `Retry-After` is thrown at once as a `MailwrightApiError` with `retryAfter` set.
   * @default 30_000
   */
  maxRetryWait?: number;
  /**
   * How the client waits out a `Retry-After`: resolves after `ms`, rejects when `signal`
   * aborts. The clock seam for tests (a fake that resolves at once and records `ms`).
   * @default a real timer
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * The undici dispatcher to send requests through (a proxy agent, a mock agent…). The
   * caller keeps ownership: `close()` does not close it. By default the client owns a
   * keep-alive `Agent`.
   */
  dispatcher?: Dispatcher;
  /**
   * Time (ms) to wait for response headers, and the longest gap allowed between body
   * chunks. A long-poll (`listEmails({ wait })`) allows at least `wait` + 10 s. undici
   * checks these timers with a resolution of about one second.
   * @default 30_000
   */
  timeout?: number;
}

/** Options every call accepts. */
export interface RequestOptions {
  /** Cancels the call (including a wait for a 429 retry); it then rejects with `MW_ERR_ABORTED`. */
  signal?: AbortSignal;
  /** Overrides the client's `timeout` (ms) for this call. */
  timeout?: number;
}

/** Options of `listEmails`. */
export interface ListEmailsOptions extends RequestOptions {
  /** Mailbox id or address; an array asks for a batch (sent as a repeated `mailbox` parameter). */
  mailbox?: ListEmailsQuery['mailbox'];
  /** The opaque `cursor` of the previous answer: only newer messages are returned. */
  after?: ListEmailsQuery['after'];
  /** At most this many messages (server maximum 100). */
  limit?: ListEmailsQuery['limit'];
  /** Seconds (≤ 30) the server may hold the request until a message is there (long-poll). */
  wait?: ListEmailsQuery['wait'];
  /** Return whole messages (headers, text, html, attachments) instead of summaries. */
  includeBody?: boolean;
}

/** Options of `getMailbox`. */
export interface GetMailboxOptions extends RequestOptions {
  /** The `nextCursor` of the previous page. */
  cursor?: MailboxMessagesQuery['cursor'];
  /** Messages per page (server maximum 100). */
  limit?: MailboxMessagesQuery['limit'];
}

/** Options of `getRawMessage`. */
export interface RawMessageOptions extends RequestOptions {
  /** `'string'` (UTF-8 decoded, the default) or `'buffer'` for the exact bytes. */
  as?: 'string' | 'buffer';
}

/** Options of `listDeliveries`. */
export interface ListDeliveriesOptions extends RequestOptions {
  /** At most this many deliveries, newest first (server maximum 100). */
  limit?: DeliveriesQuery['limit'];
}
