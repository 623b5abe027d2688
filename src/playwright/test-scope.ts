// Owns "the test running now" in this worker: when it started and which inboxes it
// created or used, so waits know their window and the report gets the right messages.
import type { TestInfo } from '@playwright/test';
import type { AttachableInbox } from './attachments.js';
import type { AttachPolicy } from './options.js';

/** One running test, as the fixture sees it. */
export interface TestScope {
  /** The test's TestInfo. */
  readonly testInfo: TestInfo;
  /** When the test's fixtures started setting up (ms since epoch). */
  readonly startedAt: number;
  /** Inboxes created or used by the test, in order, with their hub's attach policy. */
  readonly inboxes: Map<ScopedInbox, AttachPolicy>;
  /** Run when the test's fixtures tear down, after the report attachments (e.g. forgetting its inboxes). */
  readonly cleanups: Array<() => void>;
}

/** What a scope needs from an inbox (kept minimal to avoid an import cycle). */
export interface ScopedInbox extends AttachableInbox {
  readonly id: string;
}

let current: TestScope | undefined;

/** Marks the start of a test; returns its scope. */
export function beginTestScope(testInfo: TestInfo): TestScope {
  current = { testInfo, startedAt: Date.now(), inboxes: new Map(), cleanups: [] };
  return current;
}

/** Marks the end of the test that owns `scope` and runs its cleanups. */
export function endTestScope(scope: TestScope): void {
  if (current === scope) current = undefined;
  for (const cleanup of scope.cleanups.splice(0)) cleanup();
}

/** The test running now in this worker, if any. */
export function currentTestScope(): TestScope | undefined {
  return current;
}
