// Owns picturing received HTML mail for the report: a PNG of each mail as `inbox.open()`
// shows it (the same code: mail-view.ts), taken in a browser of the test's engine that is
// launched lazily (on the first mail rendered in the worker, never for suites that render
// nothing) and closed with the worker. Each mail gets a fresh context whose proxy is a dead
// loopback port, so what routing does not see (a preconnect) cannot leave the machine either.
// Starting the browser has a time bound of its own, apart from each mail's: on a busy machine
// a slow start must not eat the time of the render. A render that fails or runs out of time
// is logged (`DEBUG=mailwright:render`) and yields no picture; it never throws.
import type { Browser, BrowserContext, BrowserType, LaunchOptions, PlaywrightWorkerOptions } from '@playwright/test';
import createDebug from 'debug';
import { MAIL_WIDTH, showMail, type ShownMail } from './mail-view.js';

const debug = createDebug('mailwright:render');

/** Height of the viewport, px: the shortest picture, so a short mail gives a short one. */
const RENDER_MIN_HEIGHT = 240;
/** Tallest picture, px: a longer mail is cut there. */
const RENDER_MAX_HEIGHT = 5_000;
/** Widest picture, px: a mail wider than the viewport is shown whole up to this. */
const RENDER_MAX_WIDTH = 1_600;
/** Longest one mail may take once the browser is there, ms. */
const RENDER_TIMEOUT = 10_000;
/** Longest the renders of one test's report may take together, the browser's start included, ms. */
const RENDER_BUDGET = 30_000;
/** Longest the browser may take to start, ms, unless `launchOptions.timeout` says otherwise. */
const LAUNCH_TIMEOUT = 30_000;
/**
 * Proxy of the render contexts: a loopback port nothing should serve (9, "discard"), so
 * what request routing does not see, such as a preconnect, cannot reach the network.
 */
const DEAD_PROXY = 'http://127.0.0.1:9';

/** Pictures HTML mail; the worker's `_mailwrightRenderer`. */
export interface MailRenderer {
  /**
   * A PNG of the mail as `inbox.open()` shows it, or `undefined` when it could not be made by
   * `deadline` (ms since the epoch; the render itself at most {@link RENDER_TIMEOUT} after the
   * browser is there) or at all. Never throws.
   */
  render(mail: ShownMail, deadline?: number): Promise<Buffer | undefined>;
  /** Closes the browser when one was started. Idempotent. */
  close(): Promise<void>;
}

/** How to get the browser: the test's engine with its launch or connect options. */
export interface RendererBrowser {
  browserType: BrowserType;
  launchOptions?: LaunchOptions;
  /** When set (a remote browser), the renderer connects instead of launching. */
  connectOptions?: NonNullable<PlaywrightWorkerOptions['connectOptions']>;
}

/** The deadline of the renders of a test's report that starts now: within {@link RENDER_BUDGET} and half the test's timeout. */
export function renderDeadline(testTimeout: number, now = Date.now()): number {
  // Fixture teardown has a time slot of its own of at least the test's timeout (Playwright
  // 1.65); the renders take at most half of it, leaving the rest to other teardown.
  return now + (testTimeout > 0 ? Math.min(RENDER_BUDGET, testTimeout / 2) : RENDER_BUDGET);
}

/** A renderer that starts its browser on the first {@link MailRenderer.render}. */
export function createMailRenderer(source: RendererBrowser): MailRenderer {
  return new LazyRenderer(source);
}

class LazyRenderer implements MailRenderer {
  readonly #source: RendererBrowser;
  #browser: Promise<Browser> | undefined;
  /** The browser could not be had: no render is tried after that. */
  #unavailable = false;
  #closed = false;

  constructor(source: RendererBrowser) {
    this.#source = source;
  }

  async render(mail: ShownMail, deadline = Infinity): Promise<Buffer | undefined> {
    if (this.#closed || this.#unavailable) return undefined;
    const started = Date.now();
    if (deadline <= started) {
      debug('no time left to render a mail');
      return undefined;
    }
    let context: BrowserContext | undefined;
    let end = deadline;
    try {
      const browser = await before(deadline, this.#started(), 'the browser did not start');
      end = Math.min(deadline, Date.now() + RENDER_TIMEOUT);
      context = await browser.newContext({
        proxy: { server: DEAD_PROXY },
        serviceWorkers: 'block',
        viewport: { width: MAIL_WIDTH, height: RENDER_MIN_HEIGHT },
      });
      const page = await context.newPage();
      page.setDefaultTimeout(Math.max(1, end - Date.now()));
      await showMail(page, mail);
      const png = await page.screenshot({ fullPage: true, clip: { x: 0, y: 0, width: RENDER_MAX_WIDTH, height: RENDER_MAX_HEIGHT }, animations: 'disabled' });
      // Closed before its context, so a `screenshot: 'on'` run does not picture it a second time.
      await page.close();
      debug('rendered %d characters of HTML in %d ms', mail.message.html?.length ?? 0, Date.now() - started);
      return png;
    } catch (error) {
      debug('could not render a mail (%d characters of HTML) within %d ms; no PNG attached: %O', mail.message.html?.length ?? 0, end - started, error);
      return undefined;
    } finally {
      await context?.close().catch((error: unknown) => debug('closing a render context failed: %O', error));
    }
  }

  /** The browser, started on first use; a crashed one is started again on the next render. */
  #started(): Promise<Browser> {
    if (this.#browser) return this.#browser;
    const { browserType, launchOptions = {}, connectOptions } = this.#source;
    const starting = connectOptions
      ? browserType.connect(connectOptions.wsEndpoint, connectOptions)
      : // Headless and at full speed even when the tests run headed or slowed down: no window should flash up at test end.
        browserType.launch({ timeout: LAUNCH_TIMEOUT, ...launchOptions, headless: true, slowMo: 0 });
    this.#browser = starting;
    starting.then(
      (browser) => {
        debug('started %s %s to render mail', browserType.name(), browser.version());
        browser.once('disconnected', () => {
          if (this.#browser === starting) this.#browser = undefined;
        });
      },
      (error: unknown) => {
        this.#unavailable = true;
        debug('no browser to render mail with, so no PNGs in this worker: %O', error);
      },
    );
    return starting;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const browser = await this.#browser?.catch(() => undefined);
    this.#browser = undefined;
    await browser?.close().catch((error: unknown) => debug('closing the render browser failed: %O', error));
  }
}

/** `promise`, or a rejection saying `what` when it is not settled by `deadline`. */
async function before<T>(deadline: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} in time`)), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
