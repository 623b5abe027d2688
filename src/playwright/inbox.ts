// Owns Inbox, the object tests hold: its address, the waits (message, verification link, code),
// expectNoMessage, messages(), source(), open(), the inbox's fault rules (injectFault, faults,
// clearFaults) and the mail checks of its messages (checkHtml, checkLinks, checkAccessibility,
// run by mail-checks.ts). Each wait is a test.step (with an inner step naming what arrived), sees only
// messages in its window (since the test started, or `since`), and times out with a
// MailwrightTimeoutError that also names the fault rules that turned mail away.
import { test as base, type BrowserContext, type Page } from '@playwright/test';
import createDebug from 'debug';
import { checkCodeHints, checkLinkHints, findCode, findVerificationLink } from '../extract/index.js';
import type { CodeHints, LinkHints } from '../extract/index.js';
import type { MailwrightClient } from '../client/index.js';
import type { Clock, FaultRule, FaultRuleBody, Mailbox, Refusal } from '../protocol/index.js';
import {
  FIXTURE_ERROR_CODES,
  formatClock,
  formatDuration,
  MailwrightFixtureError,
  MailwrightTimeoutError,
  MailwrightUnexpectedMessageError,
  type WaitTimeoutDetails,
} from './errors.js';
import { explainMiss } from './explain.js';
import { describeMatch, matchesMessage, validateMatch, type MatchInput } from './match.js';
import { isPlaywrightContext, isPlaywrightPage, showMail, type OpenOptions } from './mail-view.js';
import type { HtmlCheckOptions, HtmlCheckReport } from '../checks/html-check.js';
import type { LinkCheckResult } from '../checks/link-check.js';
import type { AccessibilityViolation } from './accessibility.js';
import { accessibilityCheckOf, htmlCheckOf, linkCheckOf, type CheckAccessibilityOptions, type CheckLinksOptions } from './mail-checks.js';
import type { MailMessage } from './message.js';
import type { AttachPolicy } from './options.js';
import { callSite, type CallSite } from './call-site.js';
import { currentTestScope, trackPending } from './test-scope.js';

/** Options of the waits. */
export interface WaitOptions {
  /**
   * Longest time to wait, in ms.
   * @default the `timeout` fixture option (30 s), kept within the test's remaining time
   */
  timeout?: number;
  /**
   * Only messages received at or after this instant count, compared with the service's
   * receive time (mind clock skew when the service runs on another machine). Use it to
   * skip an earlier mail of the same kind: `const since = new Date(); await resend();
   * await inbox.waitForCode(undefined, { since })`.
   * @default the start of the current test (every message of an inbox created in it)
   */
  since?: Date | number;
}

/**
 * Options of {@link Inbox.waitForVerificationLink}: the wait's options and the extraction
 * hints of `findVerificationLink`.
 *
 * @example
 * ```ts
 * await inbox.waitForVerificationLink({ subject: 'Reset' }, { urlIncludes: '/reset' });
 * ```
 */
export interface LinkWaitOptions extends WaitOptions, LinkHints {}

/**
 * Options of {@link Inbox.waitForCode}: the wait's options and the extraction hints of
 * `findCode`.
 *
 * @example
 * ```ts
 * await inbox.waitForCode(undefined, { digits: 6 });
 * await inbox.waitForCode(undefined, { pattern: /[A-Z0-9]{8}/ });
 * ```
 */
export interface CodeWaitOptions extends WaitOptions, CodeHints {}

/** Options of {@link Inbox.expectNoMessage}. */
export interface NoMessageOptions {
  /**
   * How long to watch, in ms.
   * @default 3000
   */
  within?: number;
  /** As {@link WaitOptions.since}. */
  since?: Date | number;
}

/** Options of {@link Inbox.messages}. */
export interface MessagesOptions {
  /** As {@link WaitOptions.since}. */
  since?: Date | number;
}

/**
 * A fault rule to add with {@link Inbox.injectFault}: where it acts (`at: 'rcpt'`, this
 * recipient's `RCPT TO`; `at: 'data'`, the reply after the body, for the whole transaction),
 * then one or more of: `code` (a 4xx/5xx reply instead of the normal one, `421` also closes
 * the connection; `enhancedCode`, `message`), `delay` (ms before the reply, ≤ 60 s),
 * `disconnect: true` (close without a reply, not with `code`); `times` (how many deliveries;
 * absent: until cleared) and `probability` (0 < p ≤ 1, default 1).
 *
 * @example
 * ```ts
 * const once451: FaultRuleInput = { at: 'rcpt', code: 451, enhancedCode: '4.3.0', times: 1 };
 * ```
 */
export type FaultRuleInput = FaultRuleBody;

/** What an Inbox needs to manage its mailbox's fault rules (the hub's API client has it). */
export type FaultRulesApi = Pick<MailwrightClient, 'addFault' | 'listFaults' | 'clearFaults'>;

/** A running subscription to a mailbox's arrivals. */
export interface InboxSubscription {
  /** Stops it. Idempotent. */
  close(): void;
  /** The delivery mode that served it: `webhook`, `poll` or `webhook+poll fallback`. */
  readonly delivery: string;
}

/** What a subscriber is told. */
export interface SubscriptionHandlers {
  onMessage(message: MailMessage): void;
  onGone(error: Error): void;
  onDropped(): void;
}

/** What an Inbox needs from the worker's hub. */
export interface InboxHost {
  /** Messages of the mailbox this worker has seen, oldest first. */
  known(mailboxId: string): MailMessage[];
  /**
   * Calls `onMessage` for every new message of the mailbox until closed; `onGone` when the
   * mailbox expired; `onDropped` when the hub forgot the mailbox (its test ended) or closed.
   */
  subscribe(mailboxId: string, handlers: SubscriptionHandlers): InboxSubscription;
  /** Every message of the mailbox, from the API (also fed to subscribers). */
  fetchAll(mailboxId: string, options?: { timeout?: number }): Promise<MailMessage[]>;
  /** The raw RFC 5322 source of a message. */
  rawSource(mailboxId: string, messageId: string): Promise<Buffer>;
  /**
   * Recipients the service refused since `since` that this key may see (admin: all; others:
   * their own expired mailboxes), or undefined when they could not be listed.
   */
  refusals(since: Date): Promise<Refusal[] | undefined>;
  /**
   * The API calls on a mailbox's fault rules (the hub passes its client); without them
   * `injectFault()`, `faults()` and `clearFaults()` throw and a timed-out wait names no rule.
   */
  readonly faults?: FaultRulesApi;
  /** The last error of the delivery machinery, if any. */
  readonly lastError: string | undefined;
  /** The `timeout` option. */
  readonly defaultTimeout: number;
  /** The `attach` option. */
  readonly attach: AttachPolicy;
  /** The web UI's page of a mailbox, for a timed-out wait's error; absent when the inbox will not outlive its test. */
  readonly webUI?: (mailboxId: string) => string;
  /** Where wait timeouts run (the hub's clock). */
  readonly clock: Clock;
}

const debug = createDebug('mailwright:wait');

/** Splits wait options from extraction hints. */
function splitOptions<H extends object>(options: WaitOptions & H): { wait: WaitOptions; hints: H } {
  const { timeout, since, ...hints } = options;
  const wait: WaitOptions = {};
  if (timeout !== undefined) wait.timeout = timeout;
  if (since !== undefined) wait.since = since;
  return { wait, hints: hints as unknown as H };
}

/** The hints for a step title: ` (urlIncludes "/reset")`. */
function describeHints(hints: object): string {
  const parts = Object.entries(hints)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key} ${value instanceof RegExp ? String(value) : JSON.stringify(value)}`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/** Default `within` of {@link Inbox.expectNoMessage}, ms. */
export const DEFAULT_NO_MESSAGE_WITHIN = 3_000;
/** Bound on the API listing made when a wait times out, ms. */
const FINAL_LISTING_TIMEOUT = 5_000;
/** Bound on listing the inbox's fault rules for a timed-out wait's message, ms. */
const FAULT_LISTING_TIMEOUT = 2_000;
/** Room left before the test's own timeout when picking a default wait timeout, ms. */
const TEST_TIMEOUT_MARGIN = 1_000;

type Target = WaitTimeoutDetails['target'];

type RaceResult<T> =
  | { found: true; message: MailMessage; value: T }
  | { found: false; arrived: MailMessage[]; matched: Set<string>; delivery: string; listIncomplete?: string };

function toTime(value: Date | number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.invalidArgument, `${name} must be a Date or a time in ms since the epoch, got ${String(value)}`);
  return ms;
}

function inTest(): boolean {
  try {
    base.info();
    return true;
  } catch {
    return false;
  }
}

/** Longest subject, link or code shown in a step title; a longer one is cut with `…`. */
const TITLE_VALUE_LENGTH = 72;

function clipForTitle(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > TITLE_VALUE_LENGTH ? `${line.slice(0, TITLE_VALUE_LENGTH - 1)}…` : line;
}

/**
 * The title of the step that tells what a wait got, e.g.
 * `received "Verify your email" at 12:03:04.120 (waited 800 ms) → link https://app.test/verify?t=…`.
 */
function receivedTitle(target: Target, message: MailMessage, value: unknown, waited: number): string {
  const got = target === 'message' ? '' : ` → ${target === 'code' ? 'code' : 'link'} ${clipForTitle(String(value))}`;
  return `received "${clipForTitle(message.subject) || '(no subject)'}" at ${formatClock(message.receivedAt)} (waited ${formatDuration(waited)})${got}`;
}

/**
 * Runs `body` as a boxed test.step at the user's call site when a test is running, plainly
 * otherwise. `testing` is given when the caller has asked already: outside a test, asking
 * costs a thrown error (~0.1 ms after a pause), which the step telling of an arrival would
 * otherwise pay on the way to the wait's answer.
 */
async function step<T>(title: string, body: () => Promise<T>, site: CallSite | undefined, testing = inTest()): Promise<T> {
  if (!testing) return body();
  return base.step(title, body, site ? { box: true, location: site.location } : { box: true });
}

/** A fault rule as a step title and an error name it: `451 4.3.0 at rcpt`, `delay 2000 ms at data`, `disconnect at data`. */
export function describeFaultRule(rule: Pick<FaultRuleBody, 'at' | 'code' | 'enhancedCode' | 'delay' | 'disconnect'>): string {
  const parts = [
    rule.code === undefined ? undefined : `${rule.code}${rule.enhancedCode ? ` ${rule.enhancedCode}` : ''}`,
    rule.delay === undefined ? undefined : `delay ${rule.delay} ms`,
    rule.disconnect ? 'disconnect' : undefined,
  ].filter((part): part is string => part !== undefined);
  return `${parts.length > 0 ? parts.join(' + ') : 'nothing'} at ${rule.at}`;
}

/** What a rule does to a delivery it applies to: a reply refuses it, a close drops it, a bare delay delays it. */
function faultEffect(rule: Pick<FaultRule, 'code' | 'disconnect'>): 'refused' | 'delayed' | 'dropped' {
  if (rule.disconnect) return 'dropped';
  return rule.code === undefined ? 'delayed' : 'refused';
}

/** Symbol-keyed access for the matchers; not public API. */
export const INBOX_INTERNALS = Symbol('mailwright.inbox.internals');

/**
 * A disposable mailbox of the mailwright service, bound to this worker's hub.
 *
 * String matches ignore case and match substrings; `to` matches a recipient exactly. A
 * wait resolves with the **first** matching message in its window, also one that arrived
 * before the wait started; pass a narrower match or `since` to wait for a later one.
 *
 * @example
 * ```ts
 * test('sign-up', async ({ page, inbox }) => {
 *   await page.getByLabel('Email').fill(inbox.address);
 *   await page.getByRole('button', { name: 'Create account' }).click();
 *   await page.goto(await inbox.waitForVerificationLink({ subject: 'Verify' }));
 * });
 * ```
 */
export class Inbox {
  /** Mailbox id. */
  readonly id: string;
  /** The address to send to (lower-case). */
  readonly address: string;
  /** When the service deletes the mailbox and its messages. */
  readonly expiresAt: Date;
  /** When this worker created it (local clock). */
  readonly createdAt: Date;
  readonly #host: InboxHost;

  constructor(host: InboxHost, mailbox: Mailbox, createdAt = new Date()) {
    this.#host = host;
    this.id = mailbox.id;
    this.address = mailbox.email;
    this.expiresAt = new Date(mailbox.expiresAt);
    this.createdAt = createdAt;
    this.#touch();
  }

  /** The address. */
  toString(): string {
    return this.address;
  }

  /**
   * Waits for the first message in the window that satisfies `match`.
   * @throws {MailwrightTimeoutError} `MW_ERR_WAIT_TIMEOUT` naming the address, match, timeout, delivery mode and what did arrive.
   */
  waitForMessage(match?: MatchInput, options: WaitOptions = {}): Promise<MailMessage> {
    return trackPending('inbox.waitForMessage()', async (site) => {
      const found = await this.#waitFor('message', 'waitForMessage', match, options, () => true, {}, site);
      return found.message;
    });
  }

  /**
   * Waits for the first message that satisfies `match` **and** holds a verification link
   * (as `findVerificationLink` sees it), and returns the link. Matching messages without a
   * link are passed over; if only those arrive, the timeout error says why for each (the
   * candidates extraction turned down and their reasons).
   *
   * `options` also takes the hints of `findVerificationLink`: `{ urlIncludes: '/reset' }`
   * (a string or RegExp) keeps only links whose URL has it, before ranking.
   */
  waitForVerificationLink(match?: MatchInput, options: LinkWaitOptions = {}): Promise<string> {
    return this.#waitForValue('verification link', 'waitForVerificationLink', match, options, checkLinkHints, findVerificationLink, (m) => m.verificationLink);
  }

  /**
   * Waits for the first message that satisfies `match` **and** shows a one-time code (as
   * `findCode` sees it), and returns the code.
   *
   * `options` also takes the hints of `findCode`: `{ digits: 6 }` or `{ pattern: /[A-Z0-9]{8}/ }`
   * keep only codes of that shape, before ranking.
   */
  waitForCode(match?: MatchInput, options: CodeWaitOptions = {}): Promise<string> {
    return this.#waitForValue('code', 'waitForCode', match, options, checkCodeHints, findCode, (m) => m.code);
  }

  /**
   * Watches the inbox for `within` ms and fails as soon as a matching message is there
   * (one already in the window counts).
   * @throws {MailwrightUnexpectedMessageError} `MW_ERR_UNEXPECTED_MESSAGE`
   */
  expectNoMessage(match?: MatchInput, options: NoMessageOptions = {}): Promise<void> {
    return trackPending('inbox.expectNoMessage()', (site) => this.#expectNoMessage(match, options, site));
  }

  async #expectNoMessage(match: MatchInput | undefined, options: NoMessageOptions, site: CallSite | undefined): Promise<void> {
    const valid = validateMatch(match, 'expectNoMessage');
    const within = options.within ?? DEFAULT_NO_MESSAGE_WITHIN;
    const since = this.#since(options.since);
    const description = describeMatch(valid);
    this.#touch();
    await step(`expect no message to ${this.address}${description === 'any message' ? '' : ` matching ${description}`} within ${formatDuration(within)}`, async () => {
      const result = await this.#race(valid, () => true, within, since, true);
      if (result.found) {
        throw new MailwrightUnexpectedMessageError(
          `a message matching ${description} arrived at ${this.address} although none was expected within ${formatDuration(within)}: ` +
            `"${result.message.subject}" from ${result.message.from || '(no sender)'} at ${formatClock(result.message.receivedAt)}.`,
        );
      }
    }, site);
  }

  /**
   * The inbox's messages in the window (received since the test started, or `since`),
   * oldest first, listed from the API.
   */
  async messages(options: MessagesOptions = {}): Promise<MailMessage[]> {
    const since = this.#since(options.since);
    this.#touch();
    const all = await this.#host.fetchAll(this.id);
    return all.filter((m) => since === undefined || m.receivedAt.getTime() >= since);
  }

  /**
   * The original RFC 5322 source of one of this inbox's messages, as bytes (for checking
   * headers such as DKIM-Signature, or saving an `.eml`).
   */
  async source(message: MailMessage | string): Promise<Buffer> {
    return this.#host.rawSource(this.id, typeof message === 'string' ? message : message.id);
  }

  /**
   * Shows one of this inbox's messages as a mail client would, in the test's own browser,
   * so a locator finds and clicks its button as a user would:
   * `email.getByRole('link', { name: 'Sign in' }).click()` follows the link in the target's
   * browser context (its cookies and storage), a `target="_blank"` link opens a new tab of
   * that context. Given a `Page`, that page shows the mail (its history is kept: `goBack()`
   * returns); given a `BrowserContext`, a new tab of it does. Resolves with the page showing
   * the mail. A boxed step in the report.
   *
   * While the mail is shown nothing it references is fetched (remote or loopback images,
   * fonts, stylesheets, frames, prefetch, form posts) except its own `cid:` parts, and no
   * script or inline handler in it runs; `{ remote: 'allow' }` lets remote images load. A
   * text-only mail is shown as its text, wrapped, its URLs as links; an HTML mail as its HTML.
   * The viewport is {@link OpenOptions.width} (800 px) wide while the mail is shown, so
   * `await expect(email).toHaveScreenshot()` is stable; the page's routing and size are
   * restored when it navigates away. The fixture never starts a browser for this.
   *
   * @throws {MailwrightFixtureError} `MW_ERR_INVALID_ARGUMENT` when `target` is neither a
   * Page nor a BrowserContext, or the message was received by another inbox.
   *
   * @example
   * ```ts
   * const message = await inbox.waitForMessage({ subject: 'Sign in' });
   * const email = await inbox.open(message, page);
   * await email.getByRole('link', { name: 'Sign in to Shop' }).click();
   * await expect(page.getByText('Welcome')).toBeVisible();
   * ```
   */
  open(message: MailMessage, target: Page | BrowserContext, options: OpenOptions = {}): Promise<Page> {
    return trackPending('inbox.open()', async (site) => {
      if (message?.mailboxId !== this.id) {
        throw new MailwrightFixtureError(
          FIXTURE_ERROR_CODES.invalidArgument,
          `inbox.open() of ${this.address} got ${message?.mailbox ? `a message received by ${message.mailbox}` : 'no message'}; open a message with the inbox that received it (inbox.waitForMessage() returns one).`,
        );
      }
      const isPage = isPlaywrightPage(target);
      if (!isPage && !isPlaywrightContext(target)) {
        throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.invalidArgument, `inbox.open() needs the test's page or context to show "${message.subject}" in, e.g. inbox.open(message, page) or inbox.open(message, context)`);
      }
      const { remote, width } = options;
      if (remote !== undefined && remote !== 'block' && remote !== 'allow') {
        throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.invalidArgument, `inbox.open() got remote: ${JSON.stringify(remote)}; use 'block' (the default: nothing the mail references is fetched) or 'allow' (its images load)`);
      }
      if (width !== undefined && (!Number.isInteger(width) || width < 1)) {
        throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.invalidArgument, `inbox.open() got width: ${String(width)}; give the viewport width in px as a whole number ≥ 1 (default 800)`);
      }
      this.#touch();
      const title = `open "${clipForTitle(message.subject) || '(no subject)'}" ${isPage ? 'in the page' : 'in a new tab'}`;
      return step(title, async () => {
        const page = isPage ? target : await target.newPage();
        await showMail(page, { message, source: () => this.source(message) }, options);
        return page;
      }, site);
    });
  }

  /**
   * Adds a fault rule to this inbox: the service's SMTP refuses, delays or drops mail to it
   * as the rule says, so the test sees how the app copes (retries a `451`, reports a `550`,
   * does not mark a dropped mail sent). Only this inbox's mail is affected, so tests running
   * in parallel never feel it; the rule ends with the inbox, or with {@link clearFaults}.
   * Resolves with the stored rule (`hits: 0`). A boxed step in the report.
   *
   * @throws {MailwrightApiError} `invalid_request` naming the field for a rule the service
   * turns down (no `code`, `delay` or `disconnect`; `code` with `disconnect`; a `delay` over 60 s).
   *
   * @example
   * ```ts
   * await inbox.injectFault({ at: 'rcpt', code: 451, enhancedCode: '4.3.0', times: 1 });
   * ```
   */
  async injectFault(rule: FaultRuleInput): Promise<FaultRule> {
    const site = callSite();
    if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) {
      throw new MailwrightFixtureError(
        FIXTURE_ERROR_CODES.invalidArgument,
        `inbox.injectFault() needs a rule object like { at: 'rcpt', code: 451, times: 1 }, got ${rule === null ? 'null' : Array.isArray(rule) ? 'an array' : typeof rule}`,
      );
    }
    const api = this.#faultsApi('injectFault');
    this.#touch();
    const extras = [rule.times === undefined ? 'until cleared' : `times ${rule.times}`, rule.probability === undefined ? undefined : `probability ${rule.probability}`].filter(Boolean).join(', ');
    return step(`inject fault ${describeFaultRule(rule)} (${extras}) into ${this.address}`, () => api.addFault(this.id, rule), site);
  }

  /**
   * This inbox's fault rules, oldest first, each with `hits` (deliveries it applied to) and,
   * for a rule with `times`, `remaining`. Spent rules are listed until cleared.
   *
   * @example
   * ```ts
   * expect(await inbox.faults()).toMatchObject([{ code: 451, hits: 1, remaining: 0 }]);
   * ```
   */
  async faults(): Promise<FaultRule[]> {
    const api = this.#faultsApi('faults');
    this.#touch();
    return api.listFaults(this.id);
  }

  /**
   * Removes every fault rule of this inbox: its mail is accepted normally again at once.
   *
   * @example
   * ```ts
   * await inbox.clearFaults();
   * ```
   */
  async clearFaults(): Promise<void> {
    const site = callSite();
    const api = this.#faultsApi('clearFaults');
    this.#touch();
    return step(`clear fault rules of ${this.address}`, () => api.clearFaults(this.id), site);
  }

  /**
   * Checks the HTML of one of this inbox's messages against the caniemail.com data: which
   * HTML and CSS features it uses that each mail client lacks (`'no'`) or supports partly
   * (`'partial'`), by feature slug (`css-display-flex`), with where in the mail each is used.
   * `clients` are `family.platform` ids or globs (`outlook.windows`, `gmail.*`); default: the
   * families with the most readers (Apple Mail, Gmail, Outlook, Yahoo). Runs in the test
   * process, no network. A boxed step; the report is attached to the test.
   *
   * @throws {HtmlCheckError} `MW_ERR_HTML_CHECK_CLIENT` for a client the data does not know.
   *
   * @example
   * ```ts
   * const report = await inbox.checkHtml(message, { clients: ['outlook.windows', 'gmail.*'] });
   * expect(report.issues.map((i) => i.feature)).not.toContain('css-display-flex');
   * ```
   */
  checkHtml(message: MailMessage, options: HtmlCheckOptions = {}): Promise<HtmlCheckReport> {
    return trackPending('inbox.checkHtml()', async (site) => htmlCheckOf(this.#own(message, 'checkHtml'), options, site));
  }

  /**
   * Checks every http(s) link and image of one of this inbox's messages (HTML and text parts)
   * through the test's own network, so links to a `localhost` app work: HEAD, then GET where
   * HEAD is refused (405, 501), redirects followed to the end; `mailto:` and `tel:` skipped,
   * each URL once, a few at a time. `ok` is a final 2xx. A boxed step; the results are
   * attached to the test. Pass `{ request: page.request }` to send a browser context's cookies.
   *
   * @example
   * ```ts
   * const broken = (await inbox.checkLinks(message)).filter((link) => !link.ok);
   * expect(broken).toEqual([]);
   * ```
   */
  checkLinks(message: MailMessage, options: CheckLinksOptions = {}): Promise<LinkCheckResult[]> {
    return trackPending('inbox.checkLinks()', async (site) => linkCheckOf(this.#own(message, 'checkLinks'), options, site));
  }

  /**
   * Runs axe-core on one of this inbox's messages as {@link open} shows it (its scripts stay
   * off), with the rules that apply to mail: language, alternative text, contrast, link names,
   * document title, and layout tables marked `role="presentation"`; page-landmark rules are
   * off. Given a page, the page is left showing the mail; given a context, a new tab shows it
   * and is closed after. Resolves the violations, most severe first. A boxed step; the result
   * is attached to the test.
   *
   * @example
   * ```ts
   * expect(await inbox.checkAccessibility(message, page)).toEqual([]);
   * ```
   */
  checkAccessibility(message: MailMessage, target: Page | BrowserContext, options: CheckAccessibilityOptions = {}): Promise<AccessibilityViolation[]> {
    return trackPending('inbox.checkAccessibility()', async (site) => {
      const mail = this.#own(message, 'checkAccessibility');
      return accessibilityCheckOf(mail, target, () => this.source(mail), options, site);
    });
  }

  /** `message`, when this inbox received it; else an error naming the inbox that did. */
  #own(message: MailMessage, method: string): MailMessage {
    if (message?.mailboxId === this.id) return message;
    throw new MailwrightFixtureError(
      FIXTURE_ERROR_CODES.invalidArgument,
      `inbox.${method}() of ${this.address} got ${message?.mailbox ? `a message received by ${message.mailbox}` : 'no message'}; check a message with the inbox that received it (inbox.waitForMessage() returns one).`,
    );
  }

  #faultsApi(method: string): FaultRulesApi {
    const api = this.#host.faults;
    if (!api) throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.invalidArgument, `inbox.${method}() needs the worker's hub to reach the service's fault rules API, and this inbox's host has none`);
    return api;
  }

  /**
   * The inbox's rules that acted on a delivery, for a timed-out wait's message: best effort
   * and bounded, so it never turns the timeout into another error.
   */
  async #faultsThatActed(): Promise<WaitTimeoutDetails['faults']> {
    const api = this.#host.faults;
    if (!api) return undefined;
    try {
      const rules = await api.listFaults(this.id, { timeout: FAULT_LISTING_TIMEOUT, signal: AbortSignal.timeout(FAULT_LISTING_TIMEOUT) });
      return rules
        .filter((r) => r.hits > 0)
        .map((r) => ({ id: r.id, rule: describeFaultRule(r), effect: faultEffect(r), hits: r.hits, ...(r.times === undefined ? {} : { times: r.times }) }));
    } catch (error) {
      debug('%s: listing fault rules for the timeout error failed: %s', this.address, error instanceof Error ? error.message.split('\n')[0] : String(error));
      return undefined;
    }
  }

  /** @internal Used by the matchers. */
  get [INBOX_INTERNALS]() {
    return {
      race: <T>(match: MatchInput | undefined, extract: (m: MailMessage) => T | undefined, timeout: number, since: Date | number | undefined, finalCheck: boolean) =>
        this.#race(match, extract, timeout, this.#since(since), finalCheck),
      defaultTimeout: (timeout?: number) => this.#timeout(timeout),
      /** The hub's clock (what matchers measure their deadline on). */
      now: () => this.#host.clock.now(),
      timeoutError: (result: RaceResult<unknown> & { found: false }, match: MatchInput | undefined, timeout: number, since: Date | number | undefined, startedAt: Date) =>
        this.#timeoutError('message', result, match, timeout, this.#since(since), startedAt),
    };
  }

  /** Records that the running test used this inbox (its messages go to the report). */
  #touch(): void {
    currentTestScope()?.inboxes.set(this, this.#host.attach);
  }

  /** The start of the window, or undefined for "every message of the mailbox". */
  #since(since: Date | number | undefined): number | undefined {
    const explicit = toTime(since, 'since');
    if (explicit !== undefined) return explicit;
    const scope = currentTestScope();
    // An inbox created during this test has only this test's mail: no time filter (and no
    // clock-skew risk). An inbox that outlived earlier tests counts from this test's start.
    if (scope && this.createdAt.getTime() < scope.startedAt) return scope.startedAt;
    return undefined;
  }

  #timeout(timeout: number | undefined): number {
    if (timeout !== undefined) {
      if (!Number.isFinite(timeout) || timeout < 0) throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.invalidArgument, `timeout must be a number of ms ≥ 0, got ${timeout}`);
      return timeout;
    }
    let value = this.#host.defaultTimeout;
    const scope = currentTestScope();
    if (scope && scope.testInfo.timeout > 0) {
      const remaining = scope.testInfo.timeout - (Date.now() - scope.startedAt) - TEST_TIMEOUT_MARGIN;
      value = Math.min(value, Math.max(remaining, 1_000));
    }
    return value;
  }

  /**
   * A wait for something extracted from a message: checks the hints, then uses the message's
   * cached value, or `find` with the hints when there are some.
   */
  #waitForValue<H extends object>(
    target: 'verification link' | 'code',
    method: 'waitForVerificationLink' | 'waitForCode',
    match: MatchInput | undefined,
    options: WaitOptions & H,
    check: (hints: H, where: string) => H,
    find: (message: MailMessage['data'], hints: H) => string | undefined,
    cached: (message: MailMessage) => string | undefined,
  ): Promise<string> {
    return trackPending(`inbox.${method}()`, async (site) => {
      const { wait, hints } = splitOptions<H>(options);
      check(hints, method);
      const hinted = Object.values(hints).some((v) => v !== undefined);
      const extract = hinted ? (m: MailMessage) => find(m.data, hints) : cached;
      const found = await this.#waitFor(target, method, match, wait, extract, hints, site);
      return found.value;
    });
  }

  async #waitFor<T>(
    target: Target,
    method: string,
    match: MatchInput | undefined,
    options: WaitOptions,
    extract: (m: MailMessage) => T | undefined,
    hints: LinkHints | CodeHints,
    site: CallSite | undefined,
  ) {
    const valid = validateMatch(match, method);
    const timeout = this.#timeout(options.timeout);
    const since = this.#since(options.since);
    const description = describeMatch(valid);
    this.#touch();
    const title = `wait for ${target} to ${this.address}${description === 'any message' ? '' : ` matching ${description}`}${describeHints(hints)}`;
    const testing = inTest();
    return step(title, async () => {
      const startedAt = new Date();
      // Say at once when a matching message holds no answer, instead of waiting out the timeout in silence.
      const onMiss = target === 'message' || !debug.enabled ? undefined : (message: MailMessage) => {
        const why = explainMiss(target, message, hints);
        debug('%s: "%s" matches but has no %s (%s); still waiting', this.address, message.subject, target, why[0]);
      };
      const result = await this.#race(valid, extract, timeout, since, true, onMiss);
      if (result.found) {
        // A step's title is fixed when it starts, so what arrived gets a step of its own inside the wait's.
        // Asked again in a test (cheap there): a wait left un-awaited may end after its test did.
        await step(receivedTitle(target, result.message, result.value, Date.now() - startedAt.getTime()), async () => {}, site, testing && inTest());
        return result;
      }
      const error = await this.#timeoutError(target, result, valid, timeout, since, startedAt, hints, site);
      // The report's step says where to read the mail afterwards, as the error does.
      if (error.details.webUI) await step(`see ${this.address} in the web UI: ${error.details.webUI}`, async () => {}, site, testing && inTest());
      throw error;
    }, site, testing);
  }

  async #timeoutError(
    target: Target,
    result: RaceResult<unknown> & { found: false },
    match: MatchInput | undefined,
    timeout: number,
    since: number | undefined,
    startedAt: Date,
    hints: LinkHints | CodeHints = {},
    site?: CallSite,
  ) {
    const details: WaitTimeoutDetails = {
      address: this.address,
      match: describeMatch(match),
      target,
      timeout,
      delivery: result.delivery,
      arrived: result.arrived.map((m) => {
        const matched = result.matched.has(m.id);
        const entry: WaitTimeoutDetails['arrived'][number] = { subject: m.subject, from: m.fromDisplay, receivedAt: m.receivedAt, matched };
        return matched && target !== 'message' ? { ...entry, why: explainMiss(target, m, hints) } : entry;
      }),
      startedAt,
    };
    if (since !== undefined) details.since = new Date(since);
    const lastError = this.#host.lastError;
    if (lastError) details.lastError = lastError;
    if (result.listIncomplete) details.listIncomplete = result.listIncomplete;
    if (site) details.site = site.where;
    const webUI = this.#host.webUI?.(this.id);
    if (webUI) details.webUI = webUI;
    // What the service turned away meanwhile: often the real cause ("sent to alice@exmaple.com"),
    // and the inbox's own fault rules that refused, delayed or dropped its mail.
    const [refused, faults] = await Promise.all([this.#host.refusals(new Date(since ?? this.createdAt.getTime())), this.#faultsThatActed()]);
    if (refused && refused.length > 0) {
      details.refused = refused.map((r) => ({ address: r.address, reason: r.reason, reply: r.reply, from: r.from, at: new Date(r.at) }));
    }
    if (faults && faults.length > 0) details.faults = faults;
    const error = new MailwrightTimeoutError(details);
    // Point the stack at the spec line that waited, as Playwright's own errors do.
    if (site) error.stack = `${error.name}: ${error.message}\n    ${site.frame}`;
    return error;
  }

  /**
   * Resolves with the first message in the window that matches and whose `extract` is
   * defined, or after `timeout` with what arrived. With `finalCheck`, a timeout first lists
   * the mailbox from the API once (bounded), so a delivery still in flight is not missed and
   * the "what arrived" list is complete.
   */
  #race<T>(
    match: MatchInput | undefined,
    extract: (m: MailMessage) => T | undefined,
    timeout: number,
    since: number | undefined,
    finalCheck: boolean,
    onMiss?: (message: MailMessage) => void,
  ): Promise<RaceResult<T>> {
    const host = this.#host;
    const matched = new Set<string>();
    const missed = new Set<string>();
    return new Promise<RaceResult<T>>((resolve, reject) => {
      let settled = false;
      let subscription: InboxSubscription | undefined;
      let timer: unknown;
      const finish = (settle: () => void) => {
        if (settled) return;
        settled = true;
        if (timer !== undefined) host.clock.clearTimeout(timer);
        subscription?.close();
        settle();
      };
      const consider = (message: MailMessage) => {
        if (settled) return;
        if (since !== undefined && message.receivedAt.getTime() < since) return;
        let value: T | undefined;
        try {
          if (!matchesMessage(match, message)) return;
          matched.add(message.id);
          value = extract(message);
        } catch (error) {
          // A throwing predicate fails this wait, not the worker's delivery.
          finish(() => reject(error));
          return;
        }
        if (value === undefined) {
          if (onMiss && !missed.has(message.id)) {
            missed.add(message.id);
            onMiss(message);
          }
          return;
        }
        const found = value;
        finish(() => resolve({ found: true, message, value: found }));
      };
      const inWindow = (messages: MailMessage[]) => messages.filter((m) => since === undefined || m.receivedAt.getTime() >= since);
      try {
        for (const message of host.known(this.id)) {
          consider(message);
          if (settled) return;
        }
        subscription = host.subscribe(this.id, {
          onMessage: consider,
          onGone: (error) => finish(() => reject(error)),
          // The test ended with this wait pending (a missing await): never settle, so a
          // forgotten promise cannot fail a later test.
          onDropped: () => finish(() => {}),
        });
      } catch (error) {
        finish(() => reject(error));
        return;
      }
      const onTimeout = async () => {
        let arrived = host.known(this.id);
        let listIncomplete: string | undefined;
        if (finalCheck) {
          try {
            arrived = await host.fetchAll(this.id, { timeout: FINAL_LISTING_TIMEOUT });
            for (const message of arrived) consider(message);
          } catch (error) {
            listIncomplete = error instanceof Error ? error.message.split('\n')[0] : String(error);
          }
        }
        const delivery = subscription?.delivery ?? 'unknown';
        finish(() => resolve({ found: false, arrived: inWindow(arrived), matched, delivery, ...(listIncomplete ? { listIncomplete } : {}) }));
      };
      timer = host.clock.setTimeout(() => {
        onTimeout().then(undefined, (error: unknown) => finish(() => reject(error)));
      }, timeout);
    });
  }
}
