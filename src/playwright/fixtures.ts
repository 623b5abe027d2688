// Owns the Playwright fixtures: the `mailwright` option, the worker-scoped `mail` hub, the
// test-scoped `inbox`, and the boxed internals (resolved options; the worker's mail renderer;
// the per-test scope that attaches received mail to the report and fails a test that did not
// await a wait). `defineMailFixtures` returns them for test.extend.
import { test as base, type Fixtures, type PlaywrightWorkerArgs, type PlaywrightWorkerOptions, type TestInfo } from '@playwright/test';
import createDebug from 'debug';
import { attachMessages, shouldAttach } from './attachments.js';
import { MailwrightNotAwaitedError } from './errors.js';
import { MailHub } from './hub.js';
import type { Inbox } from './inbox.js';
import { resolveMailOptions, type MailwrightOptions, type ResolvedMailOptions } from './options.js';
import { createMailRenderer, renderDeadline, type MailRenderer } from './render.js';
import { beginTestScope, endTestScope, type TestScope } from './test-scope.js';

const debug = createDebug('mailwright:fixtures');

/** Test-scoped fixtures of mailwright. */
export interface MailwrightTestFixtures {
  /** A fresh mailbox for this test, bound to this worker's webhook. */
  inbox: Inbox;
}

/** Worker-scoped fixtures and options of mailwright. */
export interface MailwrightWorkerFixtures {
  /** The worker's hub: `mail.createInbox({ name?, expiryTime? })` for tests with several users. */
  mail: MailHub;
  /**
   * Options: `test.use({ mailwright: { … } })` in the config's `use`, a project, or at the
   * top level of a test file. Worker-scoped: changing them starts a new worker, and
   * Playwright refuses them inside a `describe`. Environment defaults: `MAILWRIGHT_URL`,
   * `MAILWRIGHT_API_KEY`.
   */
  mailwright: MailwrightOptions;
}

/**
 * The `use` options mailwright adds, for typing a config:
 * `defineConfig<MailwrightConfig>({ use: { mailwright: { delivery: 'poll' } } })`, or in a
 * project, `{ name: 'mail', use: { mailwright: { … } } }` inside that config.
 *
 * @example
 * ```ts
 * import { defineConfig } from '@playwright/test';
 * import type { MailwrightConfig } from 'mailwright';
 *
 * export default defineConfig<MailwrightConfig>({
 *   use: { mailwright: { expiryTime: 600_000, attach: 'always' } },
 * });
 * ```
 */
export type MailwrightConfig = Pick<MailwrightWorkerFixtures, 'mailwright'>;

/** Internal test-scoped fixtures (boxed). */
export interface MailwrightInternalTestFixtures {
  _mailwrightTest: void;
}

/** Internal worker-scoped fixtures (boxed). */
export interface MailwrightInternalWorkerFixtures {
  _mailwrightOptions: ResolvedMailOptions;
  _mailwrightRenderer: MailRenderer;
}

/** Everything {@link defineMailFixtures} returns, typed for `test.extend`. */
export type MailwrightFixtureDefinitions = Fixtures<
  MailwrightTestFixtures & MailwrightInternalTestFixtures,
  MailwrightWorkerFixtures & MailwrightInternalWorkerFixtures,
  {},
  PlaywrightWorkerArgs & PlaywrightWorkerOptions
>;

/**
 * The mailwright fixtures, for composing your own `test`. `defaults` sit between the
 * environment and `test.use({ mailwright })`: environment < defaults < test.use.
 *
 * @example
 * ```ts
 * import { test as base, mergeTests } from '@playwright/test';
 * import { defineMailFixtures, expect } from 'mailwright';
 *
 * const mailTest = base.extend(defineMailFixtures({ attach: 'always' }));
 * export const test = mergeTests(mailTest, myAppTest);
 * // or simply: mergeTests(test from 'mailwright', myAppTest)
 * ```
 */
export function defineMailFixtures(
  defaults: MailwrightOptions = {},
  // Spelled as `Fixtures<…>` (not through the alias) so `base.extend(defineMailFixtures())` infers its types.
  // The Playwright worker fixtures are named so `_mailwrightRenderer` can use `playwright`, `browserName`, ….
): Fixtures<MailwrightTestFixtures & MailwrightInternalTestFixtures, MailwrightWorkerFixtures & MailwrightInternalWorkerFixtures, {}, PlaywrightWorkerArgs & PlaywrightWorkerOptions> {
  return {
    mailwright: [{}, { option: true, scope: 'worker' }],

    _mailwrightOptions: [
      async ({ mailwright }, use) => {
        await use(resolveMailOptions([defaults, mailwright]));
      },
      { scope: 'worker', box: true },
    ],

    mail: [
      async ({ _mailwrightOptions }, use) => {
        const hub = await MailHub.start(_mailwrightOptions);
        try {
          await use(hub);
        } finally {
          await hub.close();
        }
      },
      { scope: 'worker', title: 'mailwright hub' },
    ],

    // Pictures HTML mail for the report. Not the test's `browser` fixture: depending on it
    // would launch a browser in every worker, API-only suites included (and fail where none
    // is installed), and Playwright has no public way to borrow it only when some test already
    // launched it. So this launches the same engine with the same launch options (or connects
    // like `browser` does with connectOptions), lazily on the first mail rendered: workers that
    // render nothing start nothing. Every dependency here is a cheap option.
    _mailwrightRenderer: [
      async ({ playwright, browserName, launchOptions, connectOptions }, use) => {
        const renderer = createMailRenderer({ browserType: playwright[browserName], launchOptions, ...(connectOptions ? { connectOptions } : {}) });
        try {
          await use(renderer);
        } finally {
          await renderer.close();
        }
      },
      { scope: 'worker', box: true },
    ],

    _mailwrightTest: [
      async ({ _mailwrightRenderer }, use, testInfo) => {
        const scope = beginTestScope(testInfo);
        try {
          await use();
          // Still pending when the body ended: an `await` is missing. Fail rather than pass having checked nothing.
          const forgotten = [...scope.pending].map(({ call, site }) => ({ call, ...(site ? { where: site.where, frame: site.frame } : {}) }));
          await attachReceived(testInfo, scope, _mailwrightRenderer);
          if (forgotten.length > 0 && testInfo.status === testInfo.expectedStatus && testInfo.status === 'passed') {
            scope.failedInTeardown = true;
            throw new MailwrightNotAwaitedError(forgotten);
          }
        } finally {
          // Ends the test's inboxes, or keeps those of a failed test (the `keep` option).
          await endTestScope(scope);
        }
      },
      { auto: true, box: true },
    ],

    inbox: [
      // Depends on _mailwrightTest so the inbox is made inside the test's scope and ends with it.
      async ({ mail, _mailwrightTest }, use) => {
        await use(await mail.createInbox());
      },
      { title: 'mailwright inbox' },
    ],
  };
}

/** Attaches the mail of the test's inboxes whose policy asks for it, HTML also as a picture. */
async function attachReceived(testInfo: TestInfo, scope: TestScope, renderer: MailRenderer): Promise<void> {
  const wanted = [...scope.inboxes].filter(([, policy]) => shouldAttach(policy, testInfo)).map(([inbox]) => inbox);
  if (wanted.length === 0) return;
  const deadline = renderDeadline(testInfo.timeout);
  const count = await attachMessages(testInfo, wanted, (mail) => renderer.render(mail, deadline));
  debug('attached %d message(s) of %d inbox(es) to "%s"', count, wanted.length, testInfo.title);
}
