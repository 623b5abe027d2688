// Owns one HTTP exchange with the service over undici: headers and timeouts, mapping of
// network failures to coded errors, problem+json answers to MailwrightApiError, waiting
// out 429s per Retry-After, and remembering the quota headers of every response.
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import type { Static, TSchema } from 'typebox';
import { wireCheck, type WireCheck } from '../protocol/check.js';
import { AnyProblem, API_KEY_HEADER } from '../protocol/index.js';
import { apiErrorHint } from './api-error-hints.js';
import { CLIENT_ERROR_CODES, MailwrightApiError, MailwrightError } from './errors.js';
import {
  DEFAULT_MAX_RETRY_WAIT,
  DEFAULT_TIMEOUT,
  MAX_429_RETRIES,
  type MailwrightClientOptions,
} from './options.js';
import { hasQuotaHeaders, parseQuotaHeaders, type QuotaSnapshot, type ResponseHeaders } from './quota-headers.js';
import { parseRetryAfter } from './retry-after.js';

/** One call as the client describes it. */
export interface TransportRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path below the base URL, starting with `/`, query included and already encoded. */
  path: string;
  /** A JSON body. */
  body?: unknown;
  /** The `accept` header. */
  accept?: string;
  signal?: AbortSignal | undefined;
  /** Per-call timeout (ms) overriding the client's. */
  timeout?: number | undefined;
  /** A floor for the timeout (ms), e.g. a long-poll's wait plus grace. */
  minTimeout?: number;
}

/** A received 2xx (or, internally, any) answer with its body read. */
interface TransportResponse {
  status: number;
  headers: ResponseHeaders;
  body: Buffer;
  method: string;
  url: string;
}

const DEFAULT_ACCEPT = 'application/json, application/problem+json;q=0.9, */*;q=0.1';
const USER_AGENT = 'mailwright-client';
const KEEP_ALIVE_TIMEOUT = 10_000;
const SNIPPET_LENGTH = 200;
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const PROBLEM = wireCheck(AnyProblem);

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new MailwrightError(
      CLIENT_ERROR_CODES.invalidOption,
      `MailwrightClient option \`${name}\` must be a finite number of milliseconds ≥ 0, got ${String(value)}; leave it out for the default ${fallback}.`,
    );
  }
  return value;
}

function parseBaseURL(value: string | URL): { origin: string; prefix: string } {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch (cause) {
    throw new MailwrightError(
      CLIENT_ERROR_CODES.invalidOption,
      `MailwrightClient option \`baseURL\` is not a URL: ${JSON.stringify(String(value))}; pass e.g. 'http://127.0.0.1:8025'.`,
      { cause },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new MailwrightError(
      CLIENT_ERROR_CODES.invalidOption,
      `MailwrightClient option \`baseURL\` must be http(s), got ${url.protocol}; pass e.g. 'http://127.0.0.1:8025'.`,
    );
  }
  if (url.username || url.password) {
    throw new MailwrightError(
      CLIENT_ERROR_CODES.invalidOption,
      'MailwrightClient option `baseURL` must not contain credentials; pass the API key as `apiKey` instead.',
    );
  }
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '') };
}

/** Collapses a body into a short single-line excerpt for an error message. */
function snippet(body: Buffer): string {
  const text = body.toString('utf8').replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return text.length > SNIPPET_LENGTH ? `${text.slice(0, SNIPPET_LENGTH)}…` : text;
}

function contentType(headers: ResponseHeaders): string {
  const value = headers['content-type'];
  return (Array.isArray(value) ? value[0] : value) ?? '(none)';
}

function readProblem(body: Buffer): AnyProblem | undefined {
  if (body.length === 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (PROBLEM.matches(parsed)) return parsed;
  } catch {
    // not JSON: handled as a non-problem body
  }
  return undefined;
}

function describeQuota(quota: QuotaSnapshot | undefined): string {
  if (!quota) return '';
  const parts = [`policy "${quota.policy}"`];
  if (quota.remaining !== null || quota.limit !== null) {
    parts.push(`${quota.remaining ?? '?'} of ${quota.limit ?? 'unlimited'} calls left`);
  }
  if (quota.resetSeconds !== null) parts.push(`resets in ${quota.resetSeconds} s`);
  return ` Quota: ${parts.join(', ')}.`;
}

/** Sends requests for one client; owns its keep-alive Agent unless given a dispatcher. */
export class Transport {
  readonly #origin: string;
  readonly #prefix: string;
  readonly #apiKey: string | undefined;
  readonly #retryOn429: boolean;
  readonly #maxRetryWait: number;
  readonly #timeout: number;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  #closed = false;
  #closing: Promise<void> | undefined;
  /**
   * The last response that reported a quota, read when the quota is asked for: reading it on
   * every answer cost ~0.05 ms after a pause, on the way from a message's arrival to a waiting test.
   */
  #quotaReport: ResponseHeaders | undefined;
  #quotaRead: QuotaSnapshot | undefined;

  readonly #sleepFor: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(options: MailwrightClientOptions) {
    if (!options || options.baseURL === undefined) {
      throw new MailwrightError(
        CLIENT_ERROR_CODES.invalidOption,
        "MailwrightClient needs `baseURL`, e.g. new MailwrightClient({ baseURL: 'http://127.0.0.1:8025', apiKey }).",
      );
    }
    const { origin, prefix } = parseBaseURL(options.baseURL);
    this.#origin = origin;
    this.#prefix = prefix;
    this.#apiKey = options.apiKey;
    this.#retryOn429 = options.retryOn429 ?? true;
    this.#sleepFor = options.sleep ?? ((ms, signal) => delay(ms, undefined, signal ? { signal } : undefined));
    this.#maxRetryWait = positive('maxRetryWait', options.maxRetryWait, DEFAULT_MAX_RETRY_WAIT);
    this.#timeout = positive('timeout', options.timeout, DEFAULT_TIMEOUT);
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT });
  }

  /** The base URL as given, without a trailing slash. */
  get baseURL(): string {
    return this.#origin + this.#prefix;
  }

  /** The quota of the last response that reported one. */
  get quota(): QuotaSnapshot | undefined {
    const quota = this.#lastQuota();
    return quota ? { ...quota } : undefined;
  }

  #lastQuota(): QuotaSnapshot | undefined {
    if (this.#quotaReport) {
      this.#quotaRead = parseQuotaHeaders(this.#quotaReport);
      this.#quotaReport = undefined;
    }
    return this.#quotaRead;
  }

  /** Sends `request`, waiting out 429s as configured; resolves with a 2xx answer or throws. */
  async send(request: TransportRequest): Promise<TransportResponse> {
    let waited = 0;
    for (let retries = 0; ; retries++) {
      const response = await this.#exchange(request);
      if (response.status >= 200 && response.status < 300) return response;

      const retryAfter = parseRetryAfter(response.headers['retry-after']);
      if (response.status !== 429) throw this.#apiError(response, retryAfter, '');

      const waitMs = retryAfter === undefined ? undefined : retryAfter * 1000;
      let reason: string;
      if (!this.#retryOn429) reason = 'Not retried: `retryOn429` is off.';
      else if (waitMs === undefined) reason = 'Not retried: the server sent no usable Retry-After.';
      else if (retries >= MAX_429_RETRIES) reason = `Still 429 after ${retries} retries (waited ${waited} ms in all).`;
      else if (waited + waitMs > this.#maxRetryWait) {
        reason = `Not retried: Retry-After ${retryAfter} s exceeds \`maxRetryWait\` ${this.#maxRetryWait} ms${waited ? ` (already waited ${waited} ms)` : ''}.`;
      } else {
        await this.#sleep(waitMs, request);
        waited += waitMs;
        continue;
      }
      throw this.#apiError(response, retryAfter, reason);
    }
  }

  /** Closes the owned Agent (waiting for requests in flight); idempotent. A given dispatcher stays open. */
  close(): Promise<void> {
    this.#closed = true;
    this.#closing ??= this.#ownsDispatcher ? this.#dispatcher.close() : Promise.resolve();
    return this.#closing;
  }

  #url(request: TransportRequest): string {
    return this.#origin + this.#prefix + request.path;
  }

  async #exchange(request: TransportRequest): Promise<TransportResponse> {
    const url = this.#url(request);
    const method = request.method;
    if (this.#closed) {
      throw new MailwrightError(
        CLIENT_ERROR_CODES.clientClosed,
        `${method} ${url}: this MailwrightClient was closed; create a new client for further calls.`,
      );
    }
    const timeout = Math.max(
      positive('timeout', request.timeout, this.#timeout),
      request.minTimeout ?? 0,
    );
    const headers: Record<string, string> = {
      accept: request.accept ?? DEFAULT_ACCEPT,
      'user-agent': USER_AGENT,
    };
    if (this.#apiKey !== undefined) headers[API_KEY_HEADER] = this.#apiKey;
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }

    try {
      request.signal?.throwIfAborted();
      const answer = await this.#dispatcher.request({
        origin: this.#origin,
        path: this.#prefix + request.path,
        method,
        headers,
        body,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: request.signal,
      });
      const bytes = Buffer.from(await answer.body.arrayBuffer());
      if (hasQuotaHeaders(answer.headers)) this.#quotaReport = answer.headers;
      return { status: answer.statusCode, headers: answer.headers, body: bytes, method, url };
    } catch (cause) {
      throw this.#networkError(request, url, timeout, cause);
    }
  }

  #networkError(request: TransportRequest, url: string, timeout: number, cause: unknown): MailwrightError {
    const method = request.method;
    if (request.signal?.aborted) return this.#aborted(request, url, cause);
    const code = (cause as { code?: unknown } | undefined)?.code;
    const detail = cause instanceof Error ? cause.message : String(cause);
    if (typeof code === 'string' && TIMEOUT_CODES.has(code)) {
      return new MailwrightError(
        CLIENT_ERROR_CODES.timeout,
        `${method} ${url}: no response within ${timeout} ms (${detail}). Check that the service is not hung (its log), or raise the client's \`timeout\` option.`,
        { cause },
      );
    }
    if (this.#closed && (code === 'UND_ERR_CLOSED' || code === 'UND_ERR_DESTROYED')) {
      return new MailwrightError(
        CLIENT_ERROR_CODES.clientClosed,
        `${method} ${url}: this MailwrightClient was closed; create a new client for further calls.`,
        { cause },
      );
    }
    return new MailwrightError(
      CLIENT_ERROR_CODES.connection,
      `Cannot reach mailwright at ${this.baseURL} (${method} ${url}): ${detail}. Is \`mailwright serve\` running and is \`baseURL\` right? Start it with \`npx mailwright serve\` or point MAILWRIGHT_URL at a running instance.`,
      { cause },
    );
  }

  #aborted(request: TransportRequest, url: string, cause: unknown): MailwrightError {
    const reason = request.signal?.reason;
    const why = reason instanceof Error ? reason.message : reason === undefined ? '' : String(reason);
    return new MailwrightError(
      CLIENT_ERROR_CODES.aborted,
      `${request.method} ${url} was aborted by the caller's AbortSignal${why ? ` (${why})` : ''}; pass a signal that stays open for longer to let it finish.`,
      { cause: reason ?? cause },
    );
  }

  async #sleep(ms: number, request: TransportRequest): Promise<void> {
    try {
      await this.#sleepFor(ms, request.signal);
    } catch (cause) {
      throw this.#aborted(request, this.#url(request), cause);
    }
  }

  #apiError(response: TransportResponse, retryAfter: number | undefined, note: string): MailwrightApiError {
    const { status, method, url } = response;
    const problem = readProblem(response.body);
    const quota = status === 429 ? describeQuota(this.#lastQuota()) : '';
    if (problem) {
      const { detail, field } = problem;
      const sentence = detail.replace(/[.\s]+$/, '');
      const wayOut =
        problem.code === 'quota_exhausted'
          ? 'Raise the allowance with `mailwright quota grant --email <you> --calls <n>` or `client.redeem(code)`, or wait for the reset.'
          : apiErrorHint(problem.code, { status, ...(field !== undefined ? { field } : {}) });
      const retry = retryAfter !== undefined && status === 429 ? ` Retry-After: ${retryAfter} s.` : '';
      const message = [
        `${method} ${url} failed with ${status} ${problem.code}: ${sentence}${field ? ` (field \`${field}\`)` : ''}.${quota}${retry}`,
        note,
        wayOut,
      ]
        .filter(Boolean)
        .join(' ');
      return new MailwrightApiError({
        status,
        code: problem.code,
        detail,
        method,
        url,
        problem,
        message,
        ...(field !== undefined ? { field } : {}),
        ...(retryAfter !== undefined ? { retryAfter } : {}),
      });
    }
    const excerpt = snippet(response.body);
    const detail = excerpt || `HTTP ${status} with an empty body`;
    const message = [
      `${method} ${url} failed with ${status} and a body that is not a mailwright problem document (content-type ${contentType(response.headers)}): ${JSON.stringify(detail)}.${quota}`,
      note,
      `Something other than mailwright answered (a proxy or another server); check \`baseURL\` and that \`mailwright serve\` is running behind it.`,
    ]
      .filter(Boolean)
      .join(' ');
    return new MailwrightApiError({
      status,
      code: `http_${status}`,
      detail,
      method,
      url,
      message,
      ...(retryAfter !== undefined ? { retryAfter } : {}),
    });
  }
}

/** A 2xx JSON answer the client expects: the endpoint it comes from and the protocol schema its body matches. */
interface ExpectedAnswer<T> {
  /** Method and route, e.g. `GET /api/emails/{mailboxId}`. */
  readonly endpoint: string;
  readonly check: WireCheck<T>;
}

/** The answer of `endpoint` must match `schema` (compiled here, once). */
export function expectAnswer<const Schema extends TSchema>(endpoint: string, schema: Schema): ExpectedAnswer<Static<Schema>> {
  return { endpoint, check: wireCheck(schema) };
}

/**
 * Parses a 2xx JSON body and checks it against the endpoint's protocol schema, throwing
 * `MW_ERR_BAD_RESPONSE` when it is not JSON or does not match (naming the first mismatch).
 */
export function parseJson<T>(response: TransportResponse, expected: ExpectedAnswer<T>): T {
  const { method, url, status } = response;
  const fail = (what: string, cause?: unknown) =>
    new MailwrightError(
      CLIENT_ERROR_CODES.badResponse,
      `${method} ${url} answered ${status} with ${what} (content-type ${contentType(response.headers)}, body ${JSON.stringify(snippet(response.body))}). Check that \`baseURL\` points at mailwright and that client and server versions match.`,
      cause === undefined ? undefined : { cause },
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body.toString('utf8'));
  } catch (cause) {
    throw fail('a body that is not JSON', cause);
  }
  if (expected.check.matches(parsed)) return parsed;
  throw fail(`JSON that is not the answer of ${expected.endpoint}: ${expected.check.mismatch(parsed)}`);
}
