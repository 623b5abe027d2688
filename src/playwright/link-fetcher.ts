// Owns the link check's network inside a test: the test's own APIRequestContext, so links to
// the app under test (`localhost`, private addresses) are reached as the test reaches them.
import type { APIRequestContext } from '@playwright/test';
import { LinkFetchError, type LinkFetcher } from '../checks/link-check.js';

/** Most redirects followed before a link counts as broken. */
const MAX_REDIRECTS = 20;

/** Words for the network errors Playwright reports in its message (it gives no code). */
const ERROR_WORDS: ReadonlyArray<[RegExp, string]> = [
  [/ECONNREFUSED/, 'connection refused'],
  [/ECONNRESET|EPIPE|socket hang up/, 'connection reset'],
  [/ENOTFOUND/, 'host not found'],
  [/EAI_AGAIN/, 'DNS lookup failed (temporary)'],
  [/EHOSTUNREACH/, 'host unreachable'],
  [/ENETUNREACH/, 'network unreachable'],
  [/Max redirect count exceeded/i, `more than ${MAX_REDIRECTS} redirects`],
  [/CERT_HAS_EXPIRED|certificate has expired/i, 'TLS certificate expired'],
  [/SELF_SIGNED|self[- ]signed/i, 'TLS certificate is self-signed (set ignoreHTTPSErrors in the test\'s `use` to accept it)'],
  [/ERR_TLS_CERT_ALTNAME_INVALID|altnames/i, 'TLS certificate does not match the host'],
];

/** A Playwright request error in words: its first line without the `apiRequestContext.fetch:` prefix, known causes named. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = (message.split('\n')[0] ?? message).replace(/^apiRequestContext\.\w+:\s*/, '');
  return ERROR_WORDS.find(([pattern]) => pattern.test(first))?.[1] ?? first;
}

/**
 * A {@link LinkFetcher} over Playwright's `request` (the fixture, or `page.request` to share
 * the page's cookies): `request.fetch` with up to 20 redirects, the per-request timeout and
 * no throw on an error status; the body is disposed unread. Its proxy, certificates and
 * `extraHTTPHeaders` apply.
 *
 * ```ts
 * const results = await checkLinks(mail, playwrightLinkFetcher(request), { timeout: 5_000 });
 * expect(results.filter((r) => !r.ok)).toEqual([]);
 * ```
 */
export function playwrightLinkFetcher(request: APIRequestContext): LinkFetcher {
  return async (url, method, timeoutMs) => {
    let response;
    try {
      response = await request.fetch(url, { method, maxRedirects: MAX_REDIRECTS, timeout: timeoutMs, failOnStatusCode: false });
    } catch (error) {
      if (error instanceof Error && error.name === 'TimeoutError') {
        throw new LinkFetchError('MW_ERR_LINK_TIMEOUT', `no answer within ${timeoutMs} ms`, { cause: error });
      }
      throw new LinkFetchError('MW_ERR_LINK_NETWORK', describe(error), { cause: error });
    }
    const answer = { status: response.status(), url: response.url() };
    await response.dispose();
    return answer;
  };
}
