// Owns the link check of a mail: which URLs of its HTML and text parts are checked, and how
// each is asked (HEAD, then GET where HEAD is refused) through a network it is handed, a few
// at a time and each within a time limit. The network is a LinkFetcher: the Playwright
// fixture hands the test's own (src/playwright/link-fetcher.ts), the service its guarded
// one (src/server/link-fetcher.ts).
import { STATUS_CODES } from 'node:http';
import { load } from 'cheerio';
import type { Element } from 'domhandler';
import { findLinks } from '../extract/index.js';
import { cleanHref } from '../extract/link-collect.js';

/** Where a URL was found: an anchor (`a`, `area`), an image (`img`, `source`, `background`, CSS `url()` in a `style` attribute), or the text part. */
export type LinkPlace = 'html-link' | 'html-image' | 'text';

/** The parts of a mail the link check reads. Either may be missing. */
export interface LinkCheckInput {
  /** The decoded `text/html` body. */
  html?: string | null;
  /** The decoded `text/plain` body. */
  text?: string | null;
}

/** A URL to check, as {@link linksToCheck} finds it. */
export interface LinkToCheck {
  /** The URL as it first appears (entities decoded, white space removed); resolved against `<base href>` when it was relative. */
  url: string;
  /** What is requested: {@link LinkToCheck.url} absolute, normalised, without its fragment. URLs with the same request are one link. */
  request: string;
  /** Every kind of place the URL appears in, in the order first seen. */
  places: LinkPlace[];
}

/**
 * One request as the core asks it: follow redirects to the end and answer the final status
 * and URL. Reject on a network failure; reject with a {@link LinkFetchError} of code
 * `MW_ERR_LINK_TIMEOUT` when no answer came within `timeoutMs` (other errors' messages are
 * shown as they are, so make them words: "connection refused").
 */
export type LinkFetcher = (url: string, method: 'HEAD' | 'GET', timeoutMs: number) => Promise<{ status: number; url: string }>;

/** Options of {@link checkLinks}. */
export interface LinkCheckOptions {
  /**
   * Most requests in flight at once.
   * @default 6
   */
  concurrency?: number;
  /**
   * Time limit of each request (HEAD and GET apart, redirects included), ms.
   * @default 10_000
   */
  timeout?: number;
  /**
   * Links not to fetch: a URL containing one of these strings, or matching one of these
   * RegExps, is left out of the check and its results. For a one-time link the app spends on
   * any GET or HEAD (a verification or magic link), when the test still has to follow it.
   */
  skip?: ReadonlyArray<string | RegExp>;
}

/** The verdict on one URL. */
export interface LinkCheckResult {
  /** The URL as it first appears (see {@link LinkToCheck.url}). */
  url: string;
  /** Final HTTP status after redirects; null when no answer came. */
  status: number | null;
  /** Whether the final status is 200–299. */
  ok: boolean;
  /** Why the link is not ok: the URL, what happened and, where there is one, the way out. */
  error?: string;
  /** Where the redirects ended, when that is not the URL requested. */
  finalUrl?: string;
  /** The method of the answer: GET when HEAD was refused (405 or 501). */
  method: 'HEAD' | 'GET';
  /** Every kind of place the URL appears in. */
  places: LinkPlace[];
}

/** Why a fetcher failed: no answer in time, refused by the service's SSRF guard, or the network failed. */
export type LinkFetchErrorCode = 'MW_ERR_LINK_TIMEOUT' | 'MW_ERR_LINK_REFUSED' | 'MW_ERR_LINK_NETWORK';

/** A fetcher's failure. `code` is stable (match on it); the message is words shown after the URL and method. */
export class LinkFetchError extends Error {
  override readonly name = 'LinkFetchError';
  constructor(readonly code: LinkFetchErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

const DEFAULT_CONCURRENCY = 6;
const DEFAULT_TIMEOUT_MS = 10_000;
/** How long past its timeout a fetcher may take before the core stops waiting for it. */
const FETCHER_GRACE_MS = 1_000;

/** The URL of `raw` to check, or undefined when it is not checked (another scheme, a fragment, relative without a base). */
function resolveUrl(raw: string, base: URL | undefined): Omit<LinkToCheck, 'places'> | undefined {
  const cleaned = cleanHref(raw);
  if (cleaned === '' || cleaned.startsWith('#')) return undefined;
  const scheme = /^([a-z][a-z\d+.-]*):/i.exec(cleaned)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https') return undefined;
  // A scheme-relative URL names its host: mail clients load it over https.
  const absolute = scheme === undefined && cleaned.startsWith('//') && base === undefined ? `https:${cleaned}` : cleaned;
  if (absolute === cleaned && scheme === undefined && base === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(absolute, base);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  const url = scheme !== undefined ? cleaned : parsed.href;
  parsed.hash = '';
  return { url, request: parsed.href };
}

/** The URLs of a `srcset` (`a.png 1x, b.png 2x`), after the HTML candidate-list rules: a URL ends at white space, or at its trailing commas. */
function srcsetUrls(srcset: string): string[] {
  const urls: string[] = [];
  let i = 0;
  while (i < srcset.length) {
    while (i < srcset.length && /[\s,]/.test(srcset[i]!)) i++;
    let end = i;
    while (end < srcset.length && !/\s/.test(srcset[end]!)) end++;
    let url = srcset.slice(i, end);
    i = end;
    if (url.endsWith(',')) url = url.replace(/,+$/, '');
    else {
      // descriptors run to the next comma outside parentheses
      let depth = 0;
      while (i < srcset.length && (srcset[i] !== ',' || depth > 0)) {
        if (srcset[i] === '(') depth++;
        else if (srcset[i] === ')') depth = Math.max(0, depth - 1);
        i++;
      }
    }
    if (url) urls.push(url);
  }
  return urls;
}

const CSS_URL = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)"'\s]*))\s*\)/gi;

/** The URLs of `element` with the place each appears in, in attribute order. */
function elementUrls(el: Element): Array<[string, LinkPlace]> {
  const tag = el.tagName.toLowerCase();
  const { attribs } = el;
  const found: Array<[string, LinkPlace]> = [];
  if ((tag === 'a' || tag === 'area') && attribs.href !== undefined) found.push([attribs.href, 'html-link']);
  if (tag === 'img' && attribs.src !== undefined) found.push([attribs.src, 'html-image']);
  if ((tag === 'img' || tag === 'source') && attribs.srcset !== undefined) {
    for (const url of srcsetUrls(attribs.srcset)) found.push([url, 'html-image']);
  }
  if (attribs.background !== undefined) found.push([attribs.background, 'html-image']);
  if (attribs.style?.includes('url(')) {
    for (const m of attribs.style.matchAll(CSS_URL)) found.push([m[1] ?? m[2] ?? m[3] ?? '', 'html-image']);
  }
  return found;
}

/**
 * The URLs a link check asks, each once, in the order they first appear: the HTML part
 * (anchors `a[href]`/`area[href]`, images `img[src]`, `img[srcset]`, `source[srcset]`,
 * `[background]` and CSS `url()` in `style` attributes; hidden elements too), then URLs
 * that only the text part has (found as `findLinks` of mailwright/extract finds them).
 * Only http and https are checked: `mailto:`, `tel:`, `cid:`, `data:`… are left out, and so
 * are relative URLs unless `<base href>` gives an absolute base (scheme-relative `//host/…`
 * is taken as https). URLs that differ only in their fragment are one link, its places merged.
 */
export function linksToCheck(message: LinkCheckInput): LinkToCheck[] {
  const byRequest = new Map<string, LinkToCheck>();
  const add = (raw: string, place: LinkPlace, base: URL | undefined) => {
    const resolved = resolveUrl(raw, base);
    if (!resolved) return;
    const existing = byRequest.get(resolved.request);
    if (!existing) byRequest.set(resolved.request, { ...resolved, places: [place] });
    else if (!existing.places.includes(place)) existing.places.push(place);
  };
  const html = message.html ?? '';
  if (html.trim() !== '') {
    const $ = load(html);
    const baseHref = $('base[href]').first().attr('href');
    const baseUrl = baseHref === undefined ? undefined : resolveUrl(baseHref, undefined)?.url;
    const base = baseUrl === undefined ? undefined : new URL(baseUrl);
    // One selector list: cheerio answers it in document order.
    for (const node of $('a[href], area[href], img, source[srcset], [background], [style*="url("]').toArray()) {
      for (const [raw, place] of elementUrls(node)) add(raw, place, base);
    }
  }
  const text = message.text ?? '';
  if (text.trim() !== '') for (const link of findLinks({ text })) add(link.url, 'text', undefined);
  return [...byRequest.values()];
}

/** `fetch(url, method)`, failing with MW_ERR_LINK_TIMEOUT should the fetcher outlive its own timeout. */
async function ask(fetch: LinkFetcher, url: string, method: 'HEAD' | 'GET', timeoutMs: number): Promise<{ status: number; url: string }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LinkFetchError('MW_ERR_LINK_TIMEOUT', `no answer within ${timeoutMs} ms`)), timeoutMs + FETCHER_GRACE_MS);
    timer.unref();
  });
  try {
    return await Promise.race([fetch(url, method, timeoutMs), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `error` in words, after the URL and method. */
function failure(url: string, method: 'HEAD' | 'GET', error: unknown, timeoutMs: number): string {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (e?.code === 'MW_ERR_LINK_TIMEOUT') {
    return `${url}: no answer to ${method} within ${timeoutMs} ms; the server is down or slow — if only slow, raise the \`timeout\` option`;
  }
  const words = typeof e?.message === 'string' && e.message !== '' ? e.message : String(error);
  return `${url}: ${method} failed: ${words}`;
}

/** The request's final URL when redirects moved it, else undefined. */
function movedTo(request: string, answered: string): string | undefined {
  try {
    const final = new URL(answered);
    final.hash = '';
    return final.href === request ? undefined : answered;
  } catch {
    return answered === request ? undefined : answered;
  }
}

async function checkOne(link: LinkToCheck, fetch: LinkFetcher, timeoutMs: number): Promise<LinkCheckResult> {
  const { url, request, places } = link;
  let method: 'HEAD' | 'GET' = 'HEAD';
  try {
    let answer = await ask(fetch, request, method, timeoutMs);
    let headStatus: number | undefined;
    if (answer.status === 405 || answer.status === 501) {
      headStatus = answer.status;
      method = 'GET';
      answer = await ask(fetch, request, method, timeoutMs);
    }
    const { status } = answer;
    const ok = status >= 200 && status <= 299;
    const finalUrl = movedTo(request, answer.url);
    const result: LinkCheckResult = { url, status, ok, method, places };
    if (finalUrl !== undefined) result.finalUrl = finalUrl;
    if (!ok) {
      const reason = `${method} ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`;
      result.error = `${url}: ${reason}${finalUrl !== undefined ? ` at ${finalUrl}` : ''}${headStatus !== undefined ? ` (HEAD answered ${headStatus})` : ''}`;
    }
    return result;
  } catch (error) {
    return { url, status: null, ok: false, error: failure(url, method, error, timeoutMs), method, places };
  }
}

/**
 * Checks every http(s) link and image of `message` (see {@link linksToCheck}) through
 * `fetch`: HEAD, then GET where HEAD is refused (405 or 501); redirects are the fetcher's to
 * follow. At most `concurrency` requests are in flight, each within `timeout` ms. Never
 * throws: a failure is a result with `ok: false` and an `error`. Results come in the order
 * the URLs first appear.
 */
export async function checkLinks(message: LinkCheckInput, fetch: LinkFetcher, options: LinkCheckOptions = {}): Promise<LinkCheckResult[]> {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_CONCURRENCY));
  const timeoutMs = options.timeout ?? DEFAULT_TIMEOUT_MS;
  const skip = options.skip ?? [];
  const skipped = (url: string) => skip.some((s) => (typeof s === 'string' ? url.includes(s) : ((s.lastIndex = 0), s.test(url))));
  const links = linksToCheck(message).filter(({ url }) => !skipped(url));
  const results = new Array<LinkCheckResult>(links.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < links.length; i = next++) results[i] = await checkOne(links[i]!, fetch, timeoutMs);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, links.length) }, worker));
  return results;
}
