// Integration: inbox.open() as the report shows it — `open "subject" in the page` is a boxed
// step of the test after its wait — an API-only test starts no browser (`inbox` does not
// depend on `page`; open() uses the browser the test already has), and a link of the mail
// carries the app's SameSite=Strict cookie (open.inner.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { findChromium } from '../../src/index.js';
import { browserScript, failures, launchCount, runInner, startService } from './fixture/run-inner.js';

test('open is a step of the test, and an API-only test starts no browser', async () => {
  // A Playwright of its own with a Chromium and a service: minutes on a machine busy with other suites.
  test.setTimeout(300_000);
  const chromium = findChromium();
  test.skip(chromium.source === 'none' || !chromium.path, 'no Chromium installed (npx playwright install chromium)');
  const dir = mkdtempSync(join(tmpdir(), 'mailwright-open-'));
  try {
    const log = join(dir, 'launches.log');
    const script = browserScript(dir, log, chromium.path);
    await using service = await startService();
    const run = await runInner({ service, files: ['open.inner.ts'], workers: 1, timeoutMs: 270_000, env: { MW_BROWSER: script, MW_BROWSER_LOG: log } });
    expect(failures(run)).toBe('');
    expect(run.exitCode).toBe(0);
    expect(launchCount(log), 'one browser: the test fixture of the test that uses page').toBe(1);

    // The JSON report lists test.step steps (Playwright's own actions, the click among them, are left out).
    const opened = run.get('open and the click are steps of the test');
    const top = opened.stepPaths.filter((path) => !path.includes(' › '));
    const wait = top.findIndex((title) => title.startsWith('wait for message to '));
    expect(wait, top.join('\n')).toBeGreaterThanOrEqual(0);
    expect(top[wait + 1], 'open follows the wait').toBe('open "Welcome aboard" in the page');
    expect(opened.stepPaths.filter((path) => path.startsWith('open "Welcome aboard" in the page › ')), 'one step, with no steps of the fixture inside').toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
