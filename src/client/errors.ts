// Owns the client's error classes: `MailwrightError` for everything that goes wrong on the
// client side (connection, timeout, abort, unreadable response) and `MailwrightApiError`
// for every non-2xx answer of the service. Callers match on `code`, never on the message.
import type { AnyProblem, ApiErrorCode } from '../protocol/index.js';

/** Codes of errors raised by the client itself (not answered by the service). */
export const CLIENT_ERROR_CODES = {
  /** The service could not be reached (refused, reset, DNS, TLS). */
  connection: 'MW_ERR_CONNECTION',
  /** No response headers / body data within the timeout. */
  timeout: 'MW_ERR_TIMEOUT',
  /** The caller's `AbortSignal` fired. */
  aborted: 'MW_ERR_ABORTED',
  /** A 2xx response body that is not JSON, or does not match the endpoint's protocol schema. */
  badResponse: 'MW_ERR_BAD_RESPONSE',
  /** A request was made after `close()`. */
  clientClosed: 'MW_ERR_CLIENT_CLOSED',
  /** A constructor or method option is unusable (e.g. a baseURL that is not http(s)). */
  invalidOption: 'MW_ERR_INVALID_OPTION',
} as const;

/** One of {@link CLIENT_ERROR_CODES}. */
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[keyof typeof CLIENT_ERROR_CODES];

/**
 * The `code` of a {@link MailwrightApiError}: a problem+json code from the protocol, any
 * other code a newer server sends, or `http_<status>` when the body was not problem+json.
 */
export type ApiErrorResponseCode = ApiErrorCode | `http_${number}` | (string & {});

/**
 * Base class of every error the client throws.
 *
 * @example
 * ```ts
 * try {
 *   await client.health();
 * } catch (error) {
 *   if (error instanceof MailwrightError && error.code === 'MW_ERR_CONNECTION') {
 *     // the service is not running
 *   }
 * }
 * ```
 */
export class MailwrightError extends Error {
  /** Stable machine code: one of {@link CLIENT_ERROR_CODES}, or an API code on {@link MailwrightApiError}. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MailwrightError';
    this.code = code;
  }
}

/** What {@link MailwrightApiError} is built from. */
export interface MailwrightApiErrorInit {
  status: number;
  code: ApiErrorResponseCode;
  detail: string;
  field?: string;
  method: string;
  url: string;
  retryAfter?: number;
  problem?: AnyProblem;
  message: string;
  cause?: unknown;
}

/**
 * A non-2xx answer of the service. `code` is the problem+json `code`
 * (e.g. `'mailbox_not_found'`), or `http_<status>` when the body was not a problem document
 * (a proxy's HTML 502, say).
 *
 * @example
 * ```ts
 * try {
 *   await client.getMessage(mailboxId, messageId);
 * } catch (error) {
 *   if (error instanceof MailwrightApiError && error.code === 'message_not_found') return undefined;
 *   throw error;
 * }
 * ```
 */
export class MailwrightApiError extends MailwrightError {
  declare readonly code: ApiErrorResponseCode;
  /** The HTTP status code. */
  readonly status: number;
  /** The problem's `detail` (or the start of a non-problem body). */
  readonly detail: string;
  /** For `invalid_request`: the offending field, when the server named it. */
  readonly field?: string;
  /** The request method. */
  readonly method: string;
  /** The request URL (the API key travels in a header, never here). */
  readonly url: string;
  /** Seconds the server asked to wait (`Retry-After`), when it sent one. */
  readonly retryAfter?: number;
  /** The parsed problem document, when the body was one. */
  readonly problem?: AnyProblem;

  constructor(init: MailwrightApiErrorInit) {
    super(init.code, init.message, { cause: init.cause });
    this.name = 'MailwrightApiError';
    this.status = init.status;
    this.detail = init.detail;
    this.method = init.method;
    this.url = init.url;
    if (init.field !== undefined) this.field = init.field;
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
    if (init.problem !== undefined) this.problem = init.problem;
  }
}
