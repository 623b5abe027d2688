// Owns the link check's network in the service (web UI): undici through the webhook SSRF
// guard (delivery/ssrf.ts) on every redirect hop, so a mail's links cannot reach the
// service's own network unless private webhook targets are allowed.
import { interceptors, request, type Dispatcher } from 'undici';
import { LinkFetchError, type LinkFetcher } from '../checks/link-check.js';
import type { ServiceContext } from './context.js';
import { createWebhookClient, describeError } from './delivery/attempt.js';
import { checkWebhookUrl, privateWebhooksAllowed, type WebhookUrlError } from './delivery/ssrf.js';

/** Most redirects followed; after that the last 3xx is the answer. */
const MAX_REDIRECTS = 20;
/** A GET's body is read and thrown away; beyond this many bytes the connection is dropped instead. */
const MAX_DISCARDED_BODY = 64 * 1024;

const WAY_OUT = 'the service checks only public targets while it listens on a public host — start it on a loopback host or pass --allow-private-webhooks';

/** A URL the guard refused, in words with the way out. */
function refusedWords(refused: WebhookUrlError): string {
  if (refused.code === 'MW_ERR_WEBHOOK_URL_INVALID') return `refused: ${refused.url} does not pass the ${refused.rule} rule`;
  return `refused: ${new URL(refused.url).hostname} is a private or loopback target (${refused.rule}); ${WAY_OUT}`;
}

/**
 * An interceptor that runs the webhook URL check (without private targets) on every request
 * it dispatches: composed inside the redirect interceptor, that is every hop. The connect-time
 * DNS guard of the webhook Agent does not see literal addresses; this does.
 */
const guardEveryHop: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
  const refused = checkWebhookUrl(new URL(opts.path, opts.origin).href, { allowPrivate: false });
  if (!refused) return dispatch(opts, handler);
  // As undici's own dns interceptor fails a request it will not send: no controller yet.
  handler.onResponseError?.(null as unknown as Dispatcher.DispatchController, new LinkFetchError('MW_ERR_LINK_REFUSED', refusedWords(refused)));
  return false;
};

/** Whether `error`'s chain holds the DNS-time refusal of the webhook Agent (a name that resolves to a private address). */
function refusedAtLookup(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error; current && typeof current === 'object' && !seen.has(current);) {
    seen.add(current);
    const e = current as { code?: unknown; errors?: unknown; cause?: unknown };
    if (e.code === 'MW_ERR_WEBHOOK_PRIVATE_ADDRESS') return true;
    current = Array.isArray(e.errors) && e.errors.length > 0 ? e.errors[0] : e.cause;
  }
  return false;
}

/** A {@link LinkFetcher} that holds connections: close it (or `await using` it) when the check is done. */
export type ServiceLinkFetcher = LinkFetcher & {
  /** Closes the fetcher's connections. Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
};

/**
 * The service's {@link LinkFetcher}: undici over the webhook Agent (`createWebhookClient`),
 * redirects followed by undici's redirect interceptor (up to 20), each hop checked by the
 * webhook URL guard (`checkWebhookUrl`) and connected through its DNS guard. Loopback,
 * private, link-local and metadata targets are refused unless `privateWebhooksAllowed(config)`:
 * the `allowPrivateWebhooks` setting (`--allow-private-webhooks`) or a loopback `host` — the
 * same rule as for webhooks. Bodies are discarded unread; the timeout covers the redirects.
 *
 * ```ts
 * await using fetcher = serviceLinkFetcher(ctx);
 * const results = await checkLinks(message, fetcher);
 * ```
 */
export function serviceLinkFetcher(ctx: Pick<ServiceContext, 'config'>): ServiceLinkFetcher {
  const agent = createWebhookClient(ctx.config);
  const redirect = interceptors.redirect({ maxRedirections: MAX_REDIRECTS });
  const dispatcher = privateWebhooksAllowed(ctx.config) ? agent.compose(redirect) : agent.compose(guardEveryHop, redirect);
  const fetch: LinkFetcher = async (url, method, timeoutMs) => {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new LinkFetchError('MW_ERR_LINK_TIMEOUT', `no answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
    try {
      const response = await request(url, {
        dispatcher, method, signal: abort.signal, headers: { 'user-agent': 'mailwright link check', accept: '*/*' },
      });
      await response.body.dump({ limit: MAX_DISCARDED_BODY, signal: abort.signal });
      const history = (response.context as { history?: readonly URL[] } | undefined)?.history;
      return { status: response.statusCode, url: history?.at(-1)?.href ?? url };
    } catch (error) {
      if (abort.signal.aborted) throw new LinkFetchError('MW_ERR_LINK_TIMEOUT', `no answer within ${timeoutMs} ms`, { cause: error });
      if (error instanceof LinkFetchError) throw error;
      if (refusedAtLookup(error)) throw new LinkFetchError('MW_ERR_LINK_REFUSED', `refused: the host resolves to a private address; ${WAY_OUT}`, { cause: error });
      throw new LinkFetchError('MW_ERR_LINK_NETWORK', describeError(error), { cause: error });
    } finally {
      clearTimeout(timer);
    }
  };
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => (closed ??= agent.close());
  return Object.assign(fetch, { close, [Symbol.asyncDispose]: close });
}
