// Entry of the Playwright plugin: the ready `test` and `expect`, defineMailFixtures for
// composing, the config helpers, and the public types and errors.
import { expect as baseExpect, test as base } from '@playwright/test';
import {
  defineMailFixtures,
  type MailwrightInternalTestFixtures,
  type MailwrightInternalWorkerFixtures,
  type MailwrightTestFixtures,
  type MailwrightWorkerFixtures,
} from './fixtures.js';
import { mailCheckMatchers, mailwrightMatchers } from './matchers.js';

/**
 * Playwright's `test` with the `inbox` (a fresh mailbox per test) and `mail` (the
 * worker's hub) fixtures.
 *
 * @example
 * ```ts
 * import { test, expect } from 'mailwright';
 *
 * test('sign-up sends a verification link', async ({ page, inbox }) => {
 *   await page.goto('/signup');
 *   await page.getByLabel('Email').fill(inbox.address);
 *   await page.getByRole('button', { name: 'Create account' }).click();
 *   await page.goto(await inbox.waitForVerificationLink());
 *   await expect(page.getByText('Email verified')).toBeVisible();
 * });
 * ```
 */
export const test = base.extend<MailwrightTestFixtures & MailwrightInternalTestFixtures, MailwrightWorkerFixtures & MailwrightInternalWorkerFixtures>(
  defineMailFixtures(),
);

/**
 * Playwright's `expect` with `toReceive` and `toHaveMessageCount` for inboxes, and
 * `toPassHtmlCheck`, `toHaveWorkingLinks` and `toBeAccessible` for received messages.
 */
export const expect = baseExpect.extend({ ...mailwrightMatchers, ...mailCheckMatchers });

export {
  defineMailFixtures,
  type MailwrightConfig,
  type MailwrightFixtureDefinitions,
  type MailwrightInternalTestFixtures,
  type MailwrightInternalWorkerFixtures,
  type MailwrightTestFixtures,
  type MailwrightWorkerFixtures,
} from './fixtures.js';
export { mailCheckMatchers, mailwrightMatchers, type ToBeAccessibleOptions, type ToHaveMessageCountOptions, type ToReceiveOptions } from './matchers.js';
export type { CheckAccessibilityOptions, CheckLinksOptions, HtmlCheckMatcherOptions } from './mail-checks.js';
export { checkMailAccessibility, MAIL_AXE_RULES, type AccessibilityNode, type AccessibilityViolation } from './accessibility.js';
export { checkHtml, DEFAULT_CLIENTS, HtmlCheckError, type HtmlCheckClient, type HtmlCheckIssue, type HtmlCheckOptions, type HtmlCheckReport } from '../checks/html-check.js';
export { checkLinks, linksToCheck, type LinkCheckOptions, type LinkCheckResult, type LinkFetcher, type LinkPlace } from '../checks/link-check.js';
export { MailHub, type ActiveDelivery, type CreateInboxOptions, type HubStats } from './hub.js';
export {
  Inbox,
  DEFAULT_NO_MESSAGE_WITHIN,
  type CodeWaitOptions,
  type FaultRuleInput,
  type FaultRulesApi,
  type LinkWaitOptions,
  type MessagesOptions,
  type NoMessageOptions,
  type WaitOptions,
} from './inbox.js';
export { MailMessage, type MessageLink } from './message.js';
export type { OpenOptions } from './mail-view.js';
export { describeMatch, matchesMessage, type MatchInput, type MessageMatch, type TextMatcher } from './match.js';
export { DEFAULT_OPTIONS, resolveMailOptions, type AttachPolicy, type DeliveryMode, type KeepPolicy, type MailwrightOptions, type ResolvedMailOptions } from './options.js';
export {
  FIXTURE_ERROR_CODES,
  MailwrightFixtureError,
  MailwrightNotAwaitedError,
  MailwrightTimeoutError,
  MailwrightUnexpectedMessageError,
  type FixtureErrorCode,
  type ForgottenCall,
  type WaitTimeoutDetails,
} from './errors.js';
export { DEFAULT_PLAYWRIGHT_API_KEY, mailwrightServer, SERVICE_NODE_FLAGS, type MailwrightServerOptions, type WebServerEntry } from './config.js';
export { chromiumExecutable, chromiumLaunchOptions, findChromium, SYSTEM_CHROMIUM_PATHS, type ChromiumLaunchOptions, type ChromiumLocation } from './browser.js';
