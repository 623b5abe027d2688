// Owns the mail checks as a test meets them: the HTML check (caniemail data), the link check
// (through the test's own network) and the accessibility check (axe-core on the mail as
// `inbox.open` shows it), each run as a boxed step whose report is attached to the test, and
// the failure texts of their matchers: what failed, where in the mail, for whom, and the way out.
import { request as playwrightRequest, test as base, type APIRequestContext, type BrowserContext, type Page } from '@playwright/test';
import { checkHtml, type HtmlCheckIssue, type HtmlCheckOptions, type HtmlCheckReport } from '../checks/html-check.js';
import { checkLinks, type LinkCheckOptions, type LinkCheckResult } from '../checks/link-check.js';
import { checkMailAccessibility, type AccessibilityViolation } from './accessibility.js';
import type { CallSite } from './call-site.js';
import { FIXTURE_ERROR_CODES, MailwrightFixtureError } from './errors.js';
import { playwrightLinkFetcher } from './link-fetcher.js';
import { isPlaywrightContext, isPlaywrightPage, showMail, type OpenOptions } from './mail-view.js';
import type { MailMessage } from './message.js';
import { currentTestScope } from './test-scope.js';

/** Options of `inbox.checkLinks()` and `toHaveWorkingLinks()`. */
export interface CheckLinksOptions extends LinkCheckOptions {
  /**
   * The request context the links are fetched with: `page.request` or `context.request` to
   * send that browser context's cookies, or the `request` fixture. Default: a fresh
   * context of the test process (no cookies), disposed after the check.
   */
  request?: APIRequestContext;
}

/** Options of `inbox.checkAccessibility()` and `toBeAccessible()`. */
export interface CheckAccessibilityOptions extends Pick<OpenOptions, 'width'> {
  /** Only these rules (ids of {@link MAIL_AXE_RULES}); default: all of them. */
  rules?: readonly string[];
}

/** Options of `toPassHtmlCheck()`. */
export interface HtmlCheckMatcherOptions extends HtmlCheckOptions {
  /** Feature slugs (`css-display-flex`) that may fail: the mail has a fallback for them. */
  ignore?: readonly string[];
  /** Fail on partial support too, not only on "no". @default false */
  partial?: boolean;
}

const SUBJECT_LENGTH = 60;

function subjectOf(message: MailMessage): string {
  const line = message.subject.replace(/\s+/g, ' ').trim();
  return line.length > SUBJECT_LENGTH ? `${line.slice(0, SUBJECT_LENGTH - 1)}…` : line || '(no subject)';
}

/** Runs `body` as a boxed step of the running test (plainly outside one) and attaches its report. */
async function checkStep<T>(title: string, attachment: string, body: () => Promise<T>, site: CallSite | undefined): Promise<T> {
  const scope = currentTestScope();
  if (!scope) return body();
  return base.step(title, async () => {
    const report = await body();
    await scope.testInfo.attach(attachment, { body: JSON.stringify(report, null, 2), contentType: 'application/json' });
    return report;
  }, site ? { box: true, location: site.location } : { box: true });
}

function assertMessage(message: unknown, call: string): MailMessage {
  if (typeof message === 'object' && message !== null && typeof (message as MailMessage).id === 'string' && 'html' in message && 'text' in message) return message as MailMessage;
  throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.invalidArgument, `${call} needs a received message (from inbox.waitForMessage() or inbox.messages()), got ${message === null ? 'null' : typeof message}`);
}

/** The HTML check of a received message, as a step with its report attached. */
export function htmlCheckOf(message: MailMessage, options: HtmlCheckOptions, site: CallSite | undefined): Promise<HtmlCheckReport> {
  const mail = assertMessage(message, 'the HTML check');
  const clients = options.clients?.length ? options.clients.join(', ') : 'the default clients';
  return checkStep(`HTML check of "${subjectOf(mail)}" for ${clients}`, `html-check ${subjectOf(mail)}.json`, async () => checkHtml(mail.html ?? '', options), site);
}

/** The link check of a received message through the test's network, as a step with its report attached. */
export function linkCheckOf(message: MailMessage, options: CheckLinksOptions, site: CallSite | undefined): Promise<LinkCheckResult[]> {
  const mail = assertMessage(message, 'the link check');
  return checkStep(`link check of "${subjectOf(mail)}"`, `link-check ${subjectOf(mail)}.json`, async () => {
    const { request: given, ...rest } = options;
    const request = given ?? (await playwrightRequest.newContext());
    try {
      return await checkLinks(mail, playwrightLinkFetcher(request), rest);
    } finally {
      if (!given) await request.dispose();
    }
  }, site);
}

/**
 * The accessibility check of a received message, shown as `inbox.open` shows it: in `target`
 * when it is a page (it is left showing the mail), else in a new tab of the context, closed after.
 */
export function accessibilityCheckOf(
  message: MailMessage,
  target: Page | BrowserContext,
  source: () => Promise<Buffer>,
  options: CheckAccessibilityOptions,
  site: CallSite | undefined,
): Promise<AccessibilityViolation[]> {
  const mail = assertMessage(message, 'the accessibility check');
  const isPage = isPlaywrightPage(target);
  if (!isPage && !isPlaywrightContext(target)) {
    throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.invalidArgument, `the accessibility check of "${subjectOf(mail)}" needs the test's page or context to show the mail in, e.g. { page }`);
  }
  return checkStep(`accessibility check of "${subjectOf(mail)}"`, `accessibility ${subjectOf(mail)}.json`, async () => {
    const page = isPage ? target : await target.newPage();
    try {
      await showMail(page, { message: mail, source }, options.width === undefined ? {} : { width: options.width });
      return await checkMailAccessibility(page, options.rules ? { rules: options.rules } : {});
    } finally {
      if (!isPage) await page.close();
    }
  }, site);
}

/** The issues of an HTML check that fail a test: "no" (and "partial" when asked), minus the ignored features. */
export function failingIssues(report: HtmlCheckReport, options: Pick<HtmlCheckMatcherOptions, 'ignore' | 'partial'>): HtmlCheckIssue[] {
  const ignored = new Set(options.ignore ?? []);
  return report.issues
    .filter((issue) => !ignored.has(issue.feature))
    .map((issue) => ({ ...issue, clients: issue.clients.filter((c) => c.support === 'no' || (options.partial === true && c.support === 'partial')) }))
    .filter((issue) => issue.clients.length > 0);
}

/** What an HTML check found, for a failure: each feature, where it is used, which clients lack it, its page. */
export function describeHtmlIssues(message: MailMessage, issues: readonly HtmlCheckIssue[], report: HtmlCheckReport): string {
  const lines = [`"${subjectOf(message)}" uses ${issues.length} feature${issues.length === 1 ? '' : 's'} that ${report.clients.length === 1 ? report.clients[0] : 'some of the clients checked'} lack${report.clients.length === 1 ? 's' : ''} (caniemail data of ${report.dataDate}):`];
  for (const issue of issues) {
    lines.push(`  ${issue.title} (${issue.feature}), ${issue.count} place${issue.count === 1 ? '' : 's'}:`);
    for (const where of issue.where) lines.push(`    ${where}`);
    for (const client of issue.clients) lines.push(`    ${client.support === 'no' ? 'not supported' : 'partly supported'} in ${client.name} (${client.client})${client.notes.length > 0 ? `: ${client.notes.join(' ')}` : ''}`);
    lines.push(`    ${issue.url}`);
  }
  lines.push(`Way out: use a feature these clients support (see each page), or, where the mail has a fallback, pass ignore: [${issues.map((i) => `'${i.feature}'`).join(', ')}].`);
  return lines.join('\n');
}

/** The broken links of a link check, for a failure: each URL, what it answered, where it is. */
export function describeBrokenLinks(message: MailMessage, broken: readonly LinkCheckResult[], checked: number): string {
  const lines = [`${broken.length} of ${checked} link${checked === 1 ? '' : 's'} in "${subjectOf(message)}" do${broken.length === 1 ? 'es' : ''} not work:`];
  for (const link of broken) {
    // The check's error names the URL first; the line names it already.
    const answer = (link.error ?? `${link.method} ${link.status}`).replace(`${link.url}: `, '');
    const at = link.finalUrl && link.finalUrl !== link.url ? ` (redirected to ${link.finalUrl})` : '';
    lines.push(`  ${link.url} → ${answer}${at}  [in the ${link.places.join(', ')}]`);
  }
  lines.push('Way out: fix the link in the mail template, or start what it points to before the check (a link to the app under test needs the app running).');
  return lines.join('\n');
}

/** The violations of an accessibility check, for a failure: each rule, its impact, the elements, the help. */
export function describeViolations(message: MailMessage, violations: readonly AccessibilityViolation[]): string {
  const lines = [`"${subjectOf(message)}" breaks ${violations.length} accessibility rule${violations.length === 1 ? '' : 's'}:`];
  for (const v of violations) {
    lines.push(`  ${v.rule} (${v.impact ?? 'unrated'}): ${v.help}`);
    for (const node of v.nodes.slice(0, 5)) lines.push(`    ${node.target}: ${node.html}${node.summary ? `\n      ${node.summary}` : ''}`);
    if (v.nodes.length > 5) lines.push(`    … and ${v.nodes.length - 5} more`);
    lines.push(`    ${v.helpUrl}`);
  }
  lines.push('Way out: fix the template as each rule\'s page says, or narrow the check with { rules: [...] } while you do.');
  return lines.join('\n');
}

/** The raw source of a message of one of the running test's inboxes (for its `cid:` parts), else nothing. */
export function sourceInTest(message: MailMessage): () => Promise<Buffer> {
  return async () => {
    for (const inbox of currentTestScope()?.inboxes.keys() ?? []) {
      if (inbox.address === message.mailbox) return inbox.source(message);
    }
    return Buffer.alloc(0);
  };
}
