// Owns showing a received mail in a browser page as a mail client would: the one way the
// fixture shows a mail, used by `inbox.open()` in the test's own browser and by the report's
// PNG of each HTML mail. The mail is served by Playwright routing from an origin of its own
// (nothing is listening there) with a Content-Security-Policy that lets no script, inline
// handler, frame, font, stylesheet or form post run or load. `<link>`, `<meta http-equiv>`
// (prefetch, preconnect, refresh), frames, forms, scripts, inline handlers and `javascript:`
// URLs are taken out as well (a context made with `bypassCSP` ignores the policy). Every
// request of the page while the mail is shown is aborted except the mail itself and its `cid:`
// parts (served from the message's own source). A link of the mail is followed as a mail
// client follows it: the page goes to it as if it were typed in, with all the context's
// cookies; a `target="_blank"` link opens a new tab of the context (there, as a click from
// another site). Routing and viewport are undone once the page leaves the mail or shows
// another; the mail origin stays served for the page's life, so back or forward to a mail
// shows it again, protected again. A text-only mail is shown as its text, wrapped, with its
// URLs as links.
import type { BrowserContext, Frame, Page, Route } from '@playwright/test';
import * as cheerio from 'cheerio';
import type { CheerioAPI } from 'cheerio';
import createDebug from 'debug';
import { isTag, Text } from 'domhandler';
import PostalMime from 'postal-mime';
import type { MailMessage } from './message.js';

const debug = createDebug('mailwright:open');

/** Origin the mail is served from: routed, never resolved (`.invalid` is reserved for that). */
export const MAIL_ORIGIN = 'http://mail.mailwright.invalid';
/** Viewport width a mail is shown in, px (mail layouts aim at about 600 px). */
export const MAIL_WIDTH = 800;

/** Options of `inbox.open()`. */
export interface OpenOptions {
  /**
   * What the mail may load from elsewhere. `'block'`: nothing (remote and loopback images,
   * fonts, stylesheets, frames, prefetch): only its own `cid:` parts. `'allow'`: remote
   * images load too (a tracking pixel then fires); scripts stay off either way.
   * @default 'block'
   */
  remote?: 'block' | 'allow';
  /**
   * Viewport width while the mail is shown, px; the height stays the page's. The page's
   * former size comes back when it leaves the mail.
   * @default 800
   */
  width?: number;
}

/** Whether `target` is a Playwright Page (what a mail can be shown in). */
export function isPlaywrightPage(target: unknown): target is Page {
  return typeof target === 'object' && target !== null && typeof (target as Page).goto === 'function' && typeof (target as Page).mainFrame === 'function';
}

/** Whether `target` is a Playwright BrowserContext (whose new tab can show a mail). */
export function isPlaywrightContext(target: unknown): target is BrowserContext {
  return typeof target === 'object' && target !== null && typeof (target as BrowserContext).newPage === 'function' && typeof (target as BrowserContext).browser === 'function';
}

/** A mail to show: the message and a way to its raw source (read only for `cid:` parts). */
export interface ShownMail {
  readonly message: MailMessage;
  source(): Promise<Buffer>;
}

/** Style of a text-only mail: as a mail client shows plain text, wrapped at the viewport. */
const TEXT_STYLE = 'margin: 16px; white-space: pre-wrap; overflow-wrap: anywhere; font: 14px/1.5 ui-monospace, monospace;';

/** A mail shown in a page: serves its document and parts, and arms the page's protections. */
interface MailEntry {
  /** Answers a request of its origin under its base. */
  serve(route: Route, path: string): Promise<void>;
}

/** Per page: the mails it showed (by base), served for as long as the page lives. */
const served = new WeakMap<Page, Map<string, MailEntry>>();
/** Undoes the protections of the mail a page shows now. */
const shown = new WeakMap<Page, () => Promise<void>>();
let sequence = 0;

/**
 * Shows `mail` in `page` (navigating it, so the page's history is kept) and resolves once
 * its document has loaded. The page is left showing it; see the module header for what is
 * blocked and what is undone when the page navigates on. Back or forward to the mail shows
 * it again, protected again.
 */
export async function showMail(page: Page, mail: ShownMail, options: OpenOptions = {}): Promise<void> {
  const base = `${MAIL_ORIGIN}/${++sequence}/`;
  const remote = options.remote ?? 'block';
  const width = options.width ?? MAIL_WIDTH;
  const shownDocument = mailDocument(mail.message, base);
  let parts: Promise<Map<string, { type: string; body: Buffer }>> | undefined;
  const part = async (cid: string) => {
    parts ??= mail.source().then(inlineParts);
    const found = await parts;
    return found.get(cid) ?? found.get(cid.toLowerCase());
  };
  const onMail = () => page.mainFrame().url().startsWith(base);
  /** The link the page is following now (its request goes out as it is). */
  let leaving: string | undefined;
  // A link is followed as a mail client follows it: the browser opens it by itself, not as a
  // navigation started by the mail's page, so the app's cookies go with it whatever their
  // SameSite (a `Strict` cookie is left out of a click from another site), and no referrer.
  // A `target="_blank"` link opens its tab as the click made it (Playwright cannot hold a tab's
  // first navigation without losing the tab): a click from another site, as from a webmail.
  const follow = (url: string) => {
    page.goto(url).catch((error: unknown) => debug('following %s from %s: %O', url, mail.message.id, error));
  };
  // Every request of the page but the mail origin's (the page route below serves those).
  const guard = async (route: Route) => {
    const request = route.request();
    const url = request.url();
    // The mail's origin, and a page that has left the mail: its requests are the app's again.
    if (url.startsWith(MAIL_ORIGIN) || !onMail()) return route.fallback();
    // A click on a link (the only navigation left to a mail with its refresh and scripts taken out).
    // Another navigation (back, forward, the test's own goto) goes as it is.
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      const link = shownDocument.links.get(url);
      if (url === leaving || request.redirectedFrom() || link === undefined) return route.fallback();
      leaving = url;
      await route.abort('aborted');
      return follow(link);
    }
    // Fetched here and handed over, so the browser's rule against a page of no known address
    // loading from loopback or the private network does not refuse an image of the app under test.
    if (remote === 'allow' && request.resourceType() === 'image') return route.fulfill({ response: await route.fetch() });
    debug('blocked %s %s of %s', request.resourceType(), url, mail.message.id);
    return route.abort('blockedbyclient');
  };
  // A route still in flight when the page leaves the mail may be settled by Playwright meanwhile.
  const handler = (route: Route) =>
    guard(route).catch(async (error: unknown) => {
      debug('routing %s: %O', route.request().url(), error);
      await route.abort('failed').catch(() => {});
    });
  const everything = () => true;

  let undo: (() => Promise<void>) | undefined;
  /** Routes the page's requests and sizes its viewport for this mail, undoing those of the mail shown before; `navigating`: called while the page is on its way to the mail. */
  const arm = async (navigating: boolean) => {
    const before = shown.get(page);
    if (undo && before === undo) return;
    await page.route(everything, handler);
    // Undone only now, so no request of the page shown so far goes out unrouted meanwhile.
    await before?.();
    leaving = undefined;
    const previous = page.viewportSize();
    let undone: Promise<void> | undefined;
    const onNavigated = (frame: Frame) => {
      if (frame === page.mainFrame() && !onMail()) void disarm();
    };
    const disarm = () =>
      (undone ??= (async () => {
        page.off('framenavigated', onNavigated);
        if (shown.get(page) === disarm) shown.delete(page);
        await page.unroute(everything, handler).catch(() => {});
        if (previous && previous.width !== width && !page.isClosed()) await page.setViewportSize(previous).catch(() => {});
      })());
    undo = disarm;
    shown.set(page, disarm);
    page.on('framenavigated', onNavigated);
    if (!previous || previous.width === width) return;
    const resize = page.setViewportSize({ width, height: previous.height });
    // While the page navigates to the mail (back or forward), resizing waits for that
    // navigation, which waits for this route: the size follows instead.
    if (navigating) resize.catch((error: unknown) => debug('sizing the page for %s: %O', mail.message.id, error));
    else await resize;
  };

  const entry: MailEntry = {
    async serve(route, path) {
      if (path === '') {
        // Shown again by back or forward: protected again before its document arrives.
        await arm(true);
        return route.fulfill({ status: 200, headers: mailHeaders(remote), body: shownDocument.html });
      }
      if (path.startsWith('cid/')) {
        const found = await part(decodeURIComponent(path.slice(4))).catch((error: unknown) => debug('no parts of %s: %O', mail.message.id, error));
        if (found) return route.fulfill({ status: 200, contentType: found.type, body: found.body });
      }
      return route.fulfill({ status: 404, headers: mailHeaders('block'), body: '' });
    },
  };
  await mailOrigin(page).then((entries) => entries.set(base, entry));
  try {
    await arm(false);
    await page.goto(base, { waitUntil: 'load' });
  } catch (error) {
    await undo?.();
    throw error;
  }
}

/** The mails a page showed; on first use, routes the mail origin's requests of the page to them (only those: a glob the browser matches). */
async function mailOrigin(page: Page): Promise<Map<string, MailEntry>> {
  let entries = served.get(page);
  if (entries) return entries;
  const known = new Map<string, MailEntry>();
  entries = known;
  served.set(page, known);
  await page.route(`${MAIL_ORIGIN}/**`, async (route) => {
    const url = route.request().url();
    const [, base = '', path = ''] = /^(http:\/\/[^/]+\/[^/]+\/)(.*)$/.exec(url) ?? [];
    const entry = known.get(base);
    try {
      if (entry) await entry.serve(route, path);
      else await route.fulfill({ status: 404, headers: mailHeaders('block'), body: '' });
    } catch (error) {
      debug('serving %s: %O', url, error);
      await route.abort('failed').catch(() => {});
    }
  });
  return known;
}

/** The response headers of the mail's origin: no script, nothing loaded from elsewhere. */
function mailHeaders(remote: 'block' | 'allow'): Record<string, string> {
  const images = remote === 'allow' ? `${MAIL_ORIGIN} data: http: https:` : `${MAIL_ORIGIN} data:`;
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src ${images}; font-src data:; form-action 'none'; frame-ancestors 'none'`,
    'x-dns-prefetch-control': 'off',
    'referrer-policy': 'no-referrer',
  };
}

/** A mail as shown: the document, and the URLs its links go to. */
export interface MailDocument {
  html: string;
  /** Its links (`<a href>`, `<area href>`) by the URL the browser requests (no fragment), each to its whole absolute URL. */
  links: Map<string, string>;
}

/** The document a mail is shown as: its HTML made safe, else its text as a page, `cid:` pointing under `base`. */
export function mailDocument(message: MailMessage, base: string): MailDocument {
  if (message.html !== null) return withLinks(safeHtml(message.html, base), base);
  const $ = cheerio.load('<!DOCTYPE html><html><head><meta charset="utf-8"><title></title></head><body><pre></pre></body></html>');
  $('title').text(message.subject);
  const pre = $('pre').attr('style', TEXT_STYLE);
  const text = message.text ?? '';
  // The URLs extraction sees in the text; the longest first, so one that begins another is not cut short.
  const urls = [...new Set(message.links.filter((link) => link.source === 'text').map((link) => link.url))].sort((a, b) => b.length - a.length);
  let at = 0;
  if (urls.length > 0) {
    for (const match of text.matchAll(new RegExp(urls.map(escapeRegExp).join('|'), 'g'))) {
      pre.append(new Text(text.slice(at, match.index)));
      pre.append($('<a>').attr('href', match[0]).text(match[0]));
      at = match.index + match[0].length;
    }
  }
  pre.append(new Text(text.slice(at)));
  return withLinks($, base);
}

/** The document and the URLs of its links, resolved as the browser resolves them (against its `<base href>`). */
function withLinks($: CheerioAPI, base: string): MailDocument {
  const links = new Map<string, string>();
  let resolveFrom = base;
  try {
    resolveFrom = new URL($('base[href]').attr('href') ?? base, base).href;
  } catch {
    // An unusable <base href> is ignored, as browsers do.
  }
  $('a[href], area[href]').each((_, element) => {
    try {
      const url = new URL($(element).attr('href') ?? '', resolveFrom);
      const whole = url.href;
      url.hash = '';
      if (!links.has(url.href)) links.set(url.href, whole);
    } catch {
      // Not a URL: the browser does not follow it either.
    }
  });
  return { html: $.html(), links };
}

/** A URL that runs script when followed (browsers ignore white space and control characters in it). */
const SCRIPT_URL = /^(?:javascript|vbscript):/i;
const CID_IN_CSS = /url\(\s*(['"]?)cid:([^'")\s]+)\1\s*\)/gi;
/** Attributes that load an image. */
const IMAGE_ATTRIBUTES = ['src', 'background', 'poster', 'href', 'xlink:href'];

/** The mail's HTML with what a mail client leaves out taken out, and `cid:` references under `base`. */
function safeHtml(html: string, base: string): CheerioAPI {
  const $ = cheerio.load(html);
  // Fetches and navigations no policy header stops before a connection: prefetch, preconnect,
  // refresh, and frames (Chromium connects for a frame's navigation before the policy refuses it).
  $('link, meta[http-equiv], iframe, frame, frameset, object, embed').remove();
  // Forms post nowhere, as in a mail client: a form becomes a plain block (a click on a
  // submission the policy would block instead leaves the browser waiting for a navigation).
  $('form').each((_, form) => {
    if (isTag(form)) form.name = 'div';
    for (const name of ['action', 'method', 'target', 'enctype']) $(form).removeAttr(name);
  });
  $('[formaction]').removeAttr('formaction');
  // Scripts too, though the policy blocks them: a context made with `bypassCSP` ignores it.
  $('script').remove();
  const cid = (id: string) => `${base}cid/${encodeURIComponent(safeDecode(id))}`;
  const pointCss = (css: string) => css.replace(CID_IN_CSS, (_m, _q, id: string) => `url("${cid(id)}")`);
  $('*').each((_, element) => {
    if (!isTag(element)) return;
    for (const [name, value] of Object.entries(element.attribs)) {
      if (/^on/i.test(name) || SCRIPT_URL.test(value.replace(/[\u0000-\u0020]/g, ''))) delete element.attribs[name];
    }
    for (const name of IMAGE_ATTRIBUTES) {
      const value = element.attribs[name];
      if (value?.trim().toLowerCase().startsWith('cid:') && element.name !== 'a') element.attribs[name] = cid(value.trim().slice(4));
    }
    const style = element.attribs.style;
    if (style) element.attribs.style = pointCss(style);
  });
  $('style').each((_, element) => {
    const css = $(element).text();
    const pointed = pointCss(css);
    if (pointed !== css) $(element).text(pointed);
  });
  return $;
}

/** The message's parts that have a Content-ID, by that id without its angle brackets. */
async function inlineParts(raw: Buffer): Promise<Map<string, { type: string; body: Buffer }>> {
  const email = await PostalMime.parse(raw);
  const parts = new Map<string, { type: string; body: Buffer }>();
  for (const attachment of email.attachments) {
    if (!attachment.contentId) continue;
    const id = attachment.contentId.trim().replace(/^<|>$/g, '');
    const { content } = attachment;
    const body = typeof content === 'string' ? Buffer.from(content, 'base64') : Buffer.from(content instanceof ArrayBuffer ? new Uint8Array(content) : content);
    parts.set(id, { type: attachment.mimeType, body });
    parts.set(id.toLowerCase(), parts.get(id.toLowerCase()) ?? { type: attachment.mimeType, body });
  }
  return parts;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
