// Owns "the test running now" in this worker: when it started, which inboxes it created or
// used, its cleanups and its waits not yet settled, so waits know their window, the report gets
// the right messages and a missing `await` is caught.
import type { TestInfo } from '@playwright/test';
import type { AttachableInbox } from './attachments.js';
import { callSite, type CallSite } from './call-site.js';
import type { AttachPolicy } from './options.js';

/** One running test, as the fixture sees it. */
export interface TestScope {
  /** The test's TestInfo. */
  readonly testInfo: TestInfo;
  /** When the test's fixtures started setting up (ms since epoch). */
  readonly startedAt: number;
  /** Inboxes created or used by the test, in order, with their hub's attach policy. */
  readonly inboxes: Map<ScopedInbox, AttachPolicy>;
  /** Run when the test's fixtures tear down, after the report attachments (e.g. ending its inboxes). */
  readonly cleanups: Array<() => Promise<void>>;
  /** Waits and matchers started in this test that have not settled yet. */
  readonly pending: Set<PendingCall>;
  /** Set when the fixture's own teardown failed the test (e.g. a missing `await`), which testInfo.status does not show yet. */
  failedInTeardown?: boolean;
}

/** A wait or matcher that has been called and has not settled. */
export interface PendingCall {
  /** How the user called it: `inbox.waitForMessage()`, `expect(inbox).toReceive()`. */
  readonly call: string;
  /** Where, when the stack tells. */
  readonly site: CallSite | undefined;
}

/** What a scope needs from an inbox (kept minimal to avoid an import cycle). */
export interface ScopedInbox extends AttachableInbox {
  readonly id: string;
}

let current: TestScope | undefined;

/** Marks the start of a test; returns its scope. */
export function beginTestScope(testInfo: TestInfo): TestScope {
  current = { testInfo, startedAt: Date.now(), inboxes: new Map(), cleanups: [], pending: new Set() };
  return current;
}

/** Marks the end of the test that owns `scope` and runs its cleanups (together; they must not throw). */
export async function endTestScope(scope: TestScope): Promise<void> {
  if (current === scope) current = undefined;
  await Promise.all(scope.cleanups.splice(0).map((cleanup) => cleanup()));
}

/**
 * Whether the test failed: its status is not the one it was expected to have (a `test.fail()`
 * test that fails did not), or the fixture's teardown failed it.
 */
export function testFailed(scope: TestScope): boolean {
  return scope.failedInTeardown === true || scope.testInfo.status !== scope.testInfo.expectedStatus;
}

/** The test running now in this worker, if any. */
export function currentTestScope(): TestScope | undefined {
  return current;
}

/**
 * Runs `body` as a wait of the current test, remembered until it settles, so a test that ends
 * with it still pending (a missing `await`) fails. The returned promise carries `body`'s outcome
 * untouched: a rejection nobody awaits stays an unhandled rejection, which fails the test too.
 * `body` gets the user's call site, for its step's location.
 */
export function trackPending<T>(call: string, body: (site: CallSite | undefined) => Promise<T>): Promise<T> {
  const scope = current;
  const site = callSite();
  if (!scope) return body(site);
  const entry: PendingCall = { call, site };
  scope.pending.add(entry);
  return (async () => {
    try {
      return await body(site);
    } finally {
      scope.pending.delete(entry);
    }
  })();
}
