// Owns the matchers for `expect.extend`: on an inbox, toReceive(match, { timeout, since }) and
// toHaveMessageCount(n, { timeout, since }); on a received message, the mail checks
// toPassHtmlCheck, toHaveWorkingLinks and toBeAccessible. `.not` works; failures are readable.
import type { ExpectMatcherState, MatcherReturnType } from '@playwright/test';
import { FIXTURE_ERROR_CODES, formatClock, formatDuration, MailwrightFixtureError, MailwrightTimeoutError } from './errors.js';
import { Inbox, INBOX_INTERNALS } from './inbox.js';
import { describeMatch, validateMatch, type MatchInput } from './match.js';
import { trackPending } from './test-scope.js';
import {
  accessibilityCheckOf,
  describeBrokenLinks,
  describeHtmlIssues,
  describeViolations,
  failingIssues,
  htmlCheckOf,
  linkCheckOf,
  sourceInTest,
  type CheckAccessibilityOptions,
  type CheckLinksOptions,
  type HtmlCheckMatcherOptions,
} from './mail-checks.js';
import type { MailMessage } from './message.js';
import type { BrowserContext, Page } from '@playwright/test';

/** Options of `toBeAccessible`: where the mail is shown, and the check's own options. */
export interface ToBeAccessibleOptions extends CheckAccessibilityOptions {
  /** The page that shows the mail (left showing it), or a context whose new tab does (closed after). */
  page: Page | BrowserContext;
}

/** Options of `toReceive`. */
export interface ToReceiveOptions {
  /**
   * How long to wait, in ms.
   * @default the `timeout` fixture option (30 s); with `.not`, the expect timeout (5 s)
   */
  timeout?: number;
  /** Only messages received at or after this instant count. @default the test's start */
  since?: Date | number;
}

/** Options of `toHaveMessageCount`. */
export interface ToHaveMessageCountOptions {
  /**
   * How long to wait for the count to be reached, in ms. With `.not` the count is checked once.
   * @default the expect timeout (5 s)
   */
  timeout?: number;
  /** Only messages received at or after this instant count. @default the test's start */
  since?: Date | number;
}

function assertInbox(received: unknown, matcher: string): Inbox {
  if (received instanceof Inbox) return received;
  throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.invalidArgument, `expect(…).${matcher}() needs an inbox from the mailwright fixtures (expect(inbox).${matcher}(…)), got ${received === null ? 'null' : typeof received}`);
}

/**
 * The matchers, for `expect.extend(mailwrightMatchers)`; the `expect` exported by
 * `mailwright` already has them.
 *
 * @example
 * ```ts
 * await expect(inbox).toReceive({ subject: 'Welcome' }, { timeout: 10_000 });
 * await expect(inbox).not.toReceive({ subject: 'Welcome' }); // nothing within 5 s
 * await expect(inbox).toHaveMessageCount(1);
 * ```
 */
export const mailwrightMatchers = {
  /**
   * Passes when a message matching `match` arrives (or already arrived in the test)
   * within the timeout. With `.not`, passes when none does within the timeout.
   */
  toReceive(this: ExpectMatcherState, received: Inbox, match?: MatchInput, options: ToReceiveOptions = {}): Promise<MatcherReturnType> {
    return trackPending(`expect(inbox)${this.isNot ? '.not' : ''}.toReceive()`, () => toReceive.call(this, received, match, options));
  },

  /**
   * Passes when the inbox holds exactly `expected` messages in the window. Waits (event
   * driven, up to the timeout) while there are fewer; more fails at once. With `.not`, the
   * count is checked once.
   */
  toHaveMessageCount(this: ExpectMatcherState, received: Inbox, expected: number, options: ToHaveMessageCountOptions = {}): Promise<MatcherReturnType> {
    return trackPending(`expect(inbox)${this.isNot ? '.not' : ''}.toHaveMessageCount()`, () => toHaveMessageCount.call(this, received, expected, options));
  },
};

/**
 * The mail-check matchers, on a received message (`inbox.waitForMessage()`); part of
 * {@link mailwrightMatchers}. Each check is a boxed step with its report attached to the test.
 *
 * @example
 * ```ts
 * const message = await inbox.waitForMessage({ subject: 'Welcome' });
 * await expect(message).toPassHtmlCheck({ clients: ['outlook.windows', 'gmail.*', 'apple-mail.*'] });
 * await expect(message).toHaveWorkingLinks();
 * await expect(message).toBeAccessible({ page });
 * ```
 */
export const mailCheckMatchers = {
  /**
   * Passes when no HTML or CSS feature of the mail is unsupported ("no" in the caniemail data)
   * in the clients checked (default: Apple Mail, Gmail, Outlook, Yahoo); `partial: true` fails
   * on partial support too, `ignore` lists feature slugs the mail has a fallback for.
   */
  toPassHtmlCheck(this: ExpectMatcherState, received: MailMessage, options: HtmlCheckMatcherOptions = {}): Promise<MatcherReturnType> {
    return trackPending(`expect(message)${this.isNot ? '.not' : ''}.toPassHtmlCheck()`, async (site) => {
      const { ignore, partial, ...check } = options;
      const report = await htmlCheckOf(received, check, site);
      const failing = failingIssues(report, { ...(ignore ? { ignore } : {}), ...(partial !== undefined ? { partial } : {}) });
      const hint = this.utils.matcherHint('toPassHtmlCheck', 'message', '', { isNot: this.isNot, promise: this.promise });
      return {
        pass: failing.length === 0,
        name: 'toPassHtmlCheck',
        message: () => (failing.length === 0 ? `${hint}\n\n"${received.subject}" uses nothing that ${report.clients.join(', ')} lack${report.issues.length > 0 ? ` (partial support: ${report.issues.map((i) => i.feature).join(', ')})` : ''}` : `${hint}\n\n${describeHtmlIssues(received, failing, report)}`),
      };
    });
  },

  /** Passes when every http(s) link and image of the mail answers 2xx (after redirects), fetched through the test's network. */
  toHaveWorkingLinks(this: ExpectMatcherState, received: MailMessage, options: CheckLinksOptions = {}): Promise<MatcherReturnType> {
    return trackPending(`expect(message)${this.isNot ? '.not' : ''}.toHaveWorkingLinks()`, async (site) => {
      const results = await linkCheckOf(received, options, site);
      const broken = results.filter((link) => !link.ok);
      const hint = this.utils.matcherHint('toHaveWorkingLinks', 'message', '', { isNot: this.isNot, promise: this.promise });
      return {
        pass: broken.length === 0,
        name: 'toHaveWorkingLinks',
        message: () => (broken.length === 0 ? `${hint}\n\nall ${results.length} links of "${received.subject}" work` : `${hint}\n\n${describeBrokenLinks(received, broken, results.length)}`),
      };
    });
  },

  /** Passes when axe-core finds no violation of the mail rules in the mail as `inbox.open` shows it, in `{ page }`. */
  toBeAccessible(this: ExpectMatcherState, received: MailMessage, options: ToBeAccessibleOptions): Promise<MatcherReturnType> {
    return trackPending(`expect(message)${this.isNot ? '.not' : ''}.toBeAccessible()`, async (site) => {
      if (!options?.page) throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.invalidArgument, 'toBeAccessible() needs the page to show the mail in: await expect(message).toBeAccessible({ page })');
      const { page, ...check } = options;
      const violations = await accessibilityCheckOf(received, page, sourceInTest(received), check, site);
      const hint = this.utils.matcherHint('toBeAccessible', 'message', '', { isNot: this.isNot, promise: this.promise });
      return {
        pass: violations.length === 0,
        name: 'toBeAccessible',
        message: () => (violations.length === 0 ? `${hint}\n\n"${received.subject}" breaks none of the mail accessibility rules` : `${hint}\n\n${describeViolations(received, violations)}`),
      };
    });
  },
};

async function toReceive(this: ExpectMatcherState, received: Inbox, match?: MatchInput, options: ToReceiveOptions = {}): Promise<MatcherReturnType> {
  const inbox = assertInbox(received, 'toReceive');
  const valid = validateMatch(match, 'toReceive');
  const internals = inbox[INBOX_INTERNALS];
  const timeout = options.timeout ?? (this.isNot ? this.timeout : internals.defaultTimeout());
  const startedAt = new Date();
  const result = await internals.race(valid, () => true, timeout, options.since, true);
  const hint = this.utils.matcherHint('toReceive', 'inbox', describeMatch(valid), { isNot: this.isNot, promise: this.promise });
  if (result.found) {
    const m = result.message;
    return {
      pass: true,
      name: 'toReceive',
      expected: describeMatch(valid),
      actual: m.subject,
      message: () =>
        `${hint}\n\n${inbox.address} received a message matching ${describeMatch(valid)} although none was expected within ${formatDuration(timeout)}:\n` +
        `  "${m.subject}" from ${m.fromDisplay || '(no sender)'} at ${formatClock(m.receivedAt)}`,
    };
  }
  const error: MailwrightTimeoutError = await internals.timeoutError(result, valid, timeout, options.since, startedAt);
  return { pass: false, name: 'toReceive', expected: describeMatch(valid), message: () => `${hint}\n\n${error.message}` };
}

async function toHaveMessageCount(this: ExpectMatcherState, received: Inbox, expected: number, options: ToHaveMessageCountOptions = {}): Promise<MatcherReturnType> {
  const inbox = assertInbox(received, 'toHaveMessageCount');
  if (!Number.isInteger(expected) || expected < 0) throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.invalidArgument, `toHaveMessageCount(n) needs a whole number ≥ 0, got ${String(expected)}`);
  const internals = inbox[INBOX_INTERNALS];
  const timeout = options.timeout ?? this.timeout;
  const deadline = internals.now() + timeout;
  let messages = await inbox.messages({ ...(options.since !== undefined ? { since: options.since } : {}) });
  while (!this.isNot && messages.length < expected && internals.now() < deadline) {
    const seen = new Set(messages.map((m) => m.id));
    const next = await internals.race(undefined, (m) => (seen.has(m.id) ? undefined : m), deadline - internals.now(), options.since, false);
    if (!next.found) break;
    messages = await inbox.messages({ ...(options.since !== undefined ? { since: options.since } : {}) });
  }
  const count = messages.length;
  const hint = this.utils.matcherHint('toHaveMessageCount', 'inbox', String(expected), { isNot: this.isNot, promise: this.promise });
  const list = messages.map((m, i) => `  ${i + 1}. "${m.subject}" from ${m.fromDisplay || '(no sender)'} at ${formatClock(m.receivedAt)}`).join('\n');
  return {
    pass: count === expected,
    name: 'toHaveMessageCount',
    expected,
    actual: count,
    message: () =>
      `${hint}\n\nExpected ${inbox.address} ${this.isNot ? 'not ' : ''}to hold ${expected} message${expected === 1 ? '' : 's'}` +
      `${this.isNot ? '' : ` (waited up to ${formatDuration(timeout)})`}; it holds ${count}${count > 0 ? `:\n${list}` : '.'}`,
  };
}
