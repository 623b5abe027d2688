// Owns one webhook attempt: the signed POST with a total timeout, its outcome in words, and
// the retry policy that turns an outcome into the delivery's next state.
import { performance } from 'node:perf_hooks';
import type { Agent, Dispatcher } from 'undici';
import { webhookHeaders } from '../../protocol/index.js';
import type { ResolvedConfig, ServiceContext } from '../context.js';
import type { AttemptRecord, DeliveryRecord, Millis, WebhookRecord } from '../store/store.js';
import { checkWebhookUrl, guardedLookup, PrivateAddressError, privateWebhooksAllowed } from './ssrf.js';

/** The response body is read and thrown away; beyond this many bytes the connection is dropped. */
const MAX_DISCARDED_BODY = 64 * 1024;

let undici: Promise<typeof import('undici')> | null = null;
/** undici, loaded with the first webhook call: a service that never makes one does not carry it (~20 MB). */
const loadUndici = () => (undici ??= import('undici'));

/**
 * The undici Agent webhook calls go through. Without private targets allowed its DNS
 * lookup refuses private addresses (see `guardedLookup`). Close it when done.
 */
export async function createWebhookAgent(config: Pick<ResolvedConfig, 'allowPrivateWebhooks' | 'host' | 'webhookTimeoutMs'>): Promise<Agent> {
  const allowPrivate = privateWebhooksAllowed(config);
  const { Agent } = await loadUndici();
  return new Agent({
    connect: {
      timeout: config.webhookTimeoutMs,
      ...(allowPrivate ? {} : { lookup: guardedLookup }),
    },
    headersTimeout: config.webhookTimeoutMs,
    bodyTimeout: config.webhookTimeoutMs,
    keepAliveTimeout: 4_000,
  });
}

/** One attempt's result, before it is numbered. */
type AttemptOutcome = Omit<AttemptRecord, 'attempt'>;

/**
 * POSTs `delivery.payload` to the webhook with Standard Webhooks headers (webhook-id = the
 * delivery id, a fresh timestamp) and a total timeout of `config.webhookTimeoutMs` for
 * connect, headers and body. Never throws: failures come back as `{ ok: false, error }`.
 */
export async function postWebhook(
  ctx: Pick<ServiceContext, 'config' | 'clock'> & Partial<Pick<ServiceContext, 'log'>>,
  agent: Agent,
  webhook: WebhookRecord,
  delivery: { id: string; payload: string },
): Promise<AttemptOutcome> {
  const { config, clock } = ctx;
  const at = clock.now();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // Webhooks stored before a configuration change are checked again here.
  const refused = checkWebhookUrl(webhook.url, { allowPrivate: privateWebhooksAllowed(config) });
  if (refused) return { at, durationMs: 0, statusCode: null, error: refused.message, ok: false };

  const timeoutMs = config.webhookTimeoutMs;
  try {
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'mailwright',
      ...webhookHeaders(webhook.secret, delivery.id, delivery.payload, clock.now()),
    };
    const statusCode = await post(agent, webhook.url, headers, delivery.payload, timeoutMs);
    const ok = statusCode >= 200 && statusCode < 300;
    return { at, durationMs: elapsed(), statusCode, error: ok ? null : `HTTP ${statusCode}`, ok };
  } catch (error) {
    // Where a name resolved is for the server's log only: in the API's answer it would be an internal-DNS oracle.
    const refusal = privateAddressRefusal(error);
    if (refusal) ctx.log?.warn({ webhookId: webhook.id, hostname: refusal.hostname, address: refusal.address, rule: refusal.rule }, 'webhook target resolves to a private address; refused');
    const text = error === TIMED_OUT ? `timeout after ${timeoutMs} ms` : describeError(error);
    return { at, durationMs: elapsed(), statusCode: null, error: text, ok: false };
  }
}

/** What {@link post} rejects with when its time is up. */
const TIMED_OUT = new Error('the webhook attempt ran out of time');

/**
 * POSTs `body` to `url` through `agent`; resolves the answer's status once its body has ended.
 * The body is thrown away as it comes; past MAX_DISCARDED_BODY the connection is dropped, and
 * a body that breaks off after the status line does not change the verdict either. Rejects
 * with what undici reports, or with TIMED_OUT when connect, answer and body took longer than
 * `timeoutMs` together. A dispatch with a handler of its own rather than undici's request():
 * the POST leaves sooner (~0.1 ms on an idle service here, on the path from SMTP to a waiting
 * test) and no stream is made for a body nobody reads.
 */
function post(agent: Agent, url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let status: number | null = null;
    let received = 0;
    let settled = false;
    let request: Dispatcher.DispatchController | null = null;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done();
    };
    // A request still connecting is dropped once it starts (the agent's connect timeout, the
    // same length, ends a connect that hangs); the attempt is over now either way.
    const timer = setTimeout(() => {
      settle(() => reject(TIMED_OUT));
      request?.abort(TIMED_OUT);
    }, timeoutMs);
    timer.unref();
    // onRequestStart marks the handler as undici's current kind (without it, undici asks for the old callbacks).
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(controller) {
        request = controller;
        if (settled) controller.abort(TIMED_OUT);
      },
      onResponseStart(_controller, statusCode) {
        status = statusCode;
      },
      onResponseData(controller, chunk) {
        received += chunk.length;
        if (received > MAX_DISCARDED_BODY) controller.abort(new Error(`the answer's body passed ${MAX_DISCARDED_BODY} bytes; not read further`));
      },
      onResponseEnd() {
        settle(() => resolve(status ?? 0));
      },
      onResponseError(_controller, error) {
        settle(() => (status !== null ? resolve(status) : reject(error)));
      },
    };
    try {
      const target = new URL(url);
      agent.dispatch({ origin: target.origin, path: `${target.pathname}${target.search}`, method: 'POST', headers, body }, handler);
    } catch (error) {
      settle(() => reject(error as Error));
    }
  });
}

/** How an attempt whose connection was refused (ECONNREFUSED) reads in the delivery log. */
const CONNECTION_REFUSED = 'connection refused';

/** Whether a logged attempt error says the connection was refused. */
export function wasRefused(error: string | null): boolean {
  return error !== null && error.startsWith(CONNECTION_REFUSED);
}

const ERROR_WORDS: Record<string, string> = {
  ECONNREFUSED: CONNECTION_REFUSED,
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed by the receiver',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed (temporary)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connect timeout',
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout waiting for response headers',
  UND_ERR_BODY_TIMEOUT: 'timeout reading the response body',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate chain is self-signed',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
};

/** What API callers (the test endpoint, the delivery log) learn of a DNS-time SSRF refusal. */
const PRIVATE_ADDRESS_REFUSED = 'refused: private address';

/** The PrivateAddressError somewhere in `error`'s chain, if any. */
function privateAddressRefusal(error: unknown): PrivateAddressError | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    if (current instanceof PrivateAddressError) return current;
    const e = current as { errors?: unknown; cause?: unknown };
    current = Array.isArray(e.errors) && e.errors.length > 0 ? e.errors[0] : e.cause;
  }
  return undefined;
}

/** A request error in words: "connection refused", "host not found", the SSRF refusal… */
export function describeError(error: unknown): string {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const e = current as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown; name?: unknown };
    if (e.name === 'PrivateAddressError') return PRIVATE_ADDRESS_REFUSED;
    if (typeof e.code === 'string' && ERROR_WORDS[e.code]) return ERROR_WORDS[e.code]!;
    // Happy eyeballs reports one error per address tried.
    if (Array.isArray(e.errors) && e.errors.length > 0) {
      current = e.errors[0];
      continue;
    }
    if (e.cause) {
      current = e.cause;
      continue;
    }
    break;
  }
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? ` (${e.code})` : '';
  return `${typeof e?.message === 'string' && e.message ? e.message : String(error)}${code}`;
}

/**
 * The delivery's state after attempt number `attempt` (1-based) with `outcome`: delivered on
 * success; otherwise pending again after `schedule[attempt - 1]` ms, or failed when the
 * schedule has no more entries.
 */
export function nextState(
  schedule: readonly number[],
  attempt: number,
  outcome: Pick<AttemptOutcome, 'ok'>,
  now: Millis,
): { status: DeliveryRecord['status']; nextAttemptAt: Millis | null } {
  if (outcome.ok) return { status: 'delivered', nextAttemptAt: null };
  const delay = schedule[attempt - 1];
  if (delay === undefined) return { status: 'failed', nextAttemptAt: null };
  return { status: 'pending', nextAttemptAt: now + Math.max(0, delay) };
}
