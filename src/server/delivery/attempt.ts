// Owns one webhook attempt: the HTTP agent it goes through (private addresses refused unless
// allowed, see ssrf.ts), the signed POST with a total timeout, its outcome in words, and the
// retry policy that turns an outcome into the delivery's next state.
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { webhookHeaders } from '../../protocol/index.js';
import type { ResolvedConfig, ServiceContext } from '../context.js';
import type { AttemptRecord, DeliveryRecord, Millis, WebhookRecord } from '../store/store.js';
import { checkWebhookUrl, guardedLookup, PrivateAddressError, privateWebhooksAllowed, type WebhookUrlError } from './ssrf.js';

/** The response body is read and thrown away; beyond this many bytes the connection is dropped. */
const MAX_DISCARDED_BODY = 64 * 1024;

/** How long a connection to a webhook target is kept unused (receivers on Node close theirs after 5 s). */
const KEEP_ALIVE_MS = 4_000;

/**
 * The undici Agent webhook calls go through. Without private targets allowed its connect
 * lookup refuses private addresses (see `guardedLookup`). Close it when done.
 */
export function createWebhookClient(config: Pick<ResolvedConfig, 'allowPrivateWebhooks' | 'host'>): Agent {
  return new Agent({
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MS,
    connect: privateWebhooksAllowed(config) ? {} : { lookup: guardedLookup },
  });
}

/** One attempt's result, before it is numbered. */
type AttemptOutcome = Omit<AttemptRecord, 'attempt'>;

/** A webhook URL as attempts use it: why it is refused, or where to send. */
type UrlVerdict = { refused: WebhookUrlError } | { refused: null; origin: string; path: string };

/** Verdicts by policy and URL: they never change, and each attempt asks. */
const urlVerdicts = new Map<string, UrlVerdict>();
/** Past this many URLs the verdicts are forgotten and made again. */
const URL_VERDICTS_KEPT = 1_000;

function verdictOf(url: string, allowPrivate: boolean): UrlVerdict {
  const key = `${allowPrivate ? 'private' : 'public'} ${url}`;
  let verdict = urlVerdicts.get(key);
  if (!verdict) {
    const refused = checkWebhookUrl(url, { allowPrivate });
    if (refused) verdict = { refused };
    else {
      const { origin, pathname, search } = new URL(url);
      verdict = { refused: null, origin, path: `${pathname}${search}` };
    }
    if (urlVerdicts.size >= URL_VERDICTS_KEPT) urlVerdicts.clear();
    urlVerdicts.set(key, verdict);
  }
  return verdict;
}

/**
 * POSTs `delivery.payload` to the webhook with Standard Webhooks headers (webhook-id = the
 * delivery id, a fresh timestamp) and a total timeout of `config.webhookTimeoutMs` for
 * connect, headers and body. Never throws: failures come back as `{ ok: false, error }`.
 */
export async function postWebhook(
  ctx: Pick<ServiceContext, 'config' | 'clock'> & Partial<Pick<ServiceContext, 'log'>>,
  client: Agent,
  webhook: WebhookRecord,
  delivery: { id: string; payload: string },
): Promise<AttemptOutcome> {
  const { config, clock } = ctx;
  const at = clock.now();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // Webhooks stored before a configuration change are checked again here.
  const verdict = verdictOf(webhook.url, privateWebhooksAllowed(config));
  if (verdict.refused) return { at, durationMs: 0, statusCode: null, error: verdict.refused.message, ok: false };

  const timeoutMs = config.webhookTimeoutMs;
  const abort = new AbortController();
  // Connect, answer and body together.
  const timer = setTimeout(() => abort.abort(TIMED_OUT), timeoutMs);
  timer.unref();
  try {
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'mailwright',
      ...webhookHeaders(webhook.secret, delivery.id, delivery.payload, clock.now()),
    };
    const { statusCode, body } = await request(`${verdict.origin}${verdict.path}`, {
      dispatcher: client, method: 'POST', headers, body: delivery.payload, signal: abort.signal,
    });
    // Read to its end and thrown away; a longer body ends the connection instead.
    await body.dump({ limit: MAX_DISCARDED_BODY, signal: abort.signal });
    const ok = statusCode >= 200 && statusCode < 300;
    return { at, durationMs: elapsed(), statusCode, error: ok ? null : `HTTP ${statusCode}`, ok };
  } catch (error) {
    // Where a name resolved is for the server's log only: in the API's answer it would be an internal-DNS oracle.
    const refusal = privateAddressRefusal(error);
    if (refusal) ctx.log?.warn({ webhookId: webhook.id, hostname: refusal.hostname, address: refusal.address, rule: refusal.rule }, 'webhook target resolves to a private address; refused');
    const text = error === TIMED_OUT ? `timeout after ${timeoutMs} ms` : describeError(error);
    return { at, durationMs: elapsed(), statusCode: null, error: text, ok: false };
  } finally {
    clearTimeout(timer);
  }
}

/** Why an attempt was aborted when its time was up. */
const TIMED_OUT = new Error('the webhook attempt ran out of time');

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
