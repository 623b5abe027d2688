// Integration: a wait or matcher whose `await` is missing never lets its test pass; the error
// names the call and the spec line.
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runInner, startService } from './fixture/run-inner.js';

const INNER = fileURLToPath(new URL('./fixture/not-awaited.inner.ts', import.meta.url));

/** The line of the inner spec that holds `text`. */
function lineOf(text: string): number {
  return readFileSync(INNER, 'utf8').split('\n').findIndex((l) => l.includes(text)) + 1;
}

test('forgotten awaits fail their tests, naming the call and its line', async () => {
  test.setTimeout(120_000);
  await using service = await startService();
  const run = await runInner({ service, files: ['not-awaited.inner.ts'], workers: 2 });
  expect(run.tests).toHaveLength(5);

  const cases: Array<[string, string, string]> = [
    ['un-awaited toReceive', '`expect(inbox).toReceive()` was not awaited', "expect(inbox).toReceive({ subject: 'Never sent' }"],
    ['un-awaited waitForMessage', '`inbox.waitForMessage()` was not awaited', "inbox.waitForMessage({ subject: 'Never sent' }"],
    ['un-awaited expectNoMessage', '`inbox.expectNoMessage()` was not awaited', 'inbox.expectNoMessage(undefined'],
  ];
  for (const [title, text, source] of cases) {
    const t = run.get(title);
    expect(t.status, title).toBe('failed');
    const errors = t.errors.join('\n');
    expect(errors).toContain(`${text} (not-awaited.inner.ts:${lineOf(source)})`);
    expect(errors).toContain('MailwrightNotAwaitedError');
    expect(errors).toContain('Put `await` before it');
  }

  // A forgotten wait that times out while the test runs fails it as an unhandled rejection.
  const early = run.get('un-awaited waitForCode that times out before the test ends');
  expect(early.status).toBe('failed');
  expect(early.errors.join('\n')).toContain('no code arrived at');

  expect(run.get('awaited waits pass').status).toBe('passed');
});
