// Integration: a timed-out wait says what the service refused in its window, so "nothing
// arrived" becomes "your app sent to alice@exmaple.com, which this service does not serve".
import { test, expect } from '@playwright/test';
import { annotation, runInner, startService } from './fixture/run-inner.js';

test('a timed-out wait names the refused address, the 550 text and the fix', async () => {
  test.setTimeout(120_000);
  await using service = await startService();
  const run = await runInner({ service, files: ['refusals.inner.ts'], workers: 1 });
  const t = run.get('a wait names the mistyped address the service refused');
  expect(t.status).toBe('failed');
  const typo = annotation(t, 'typo')!;
  const text = t.errors.join('\n');
  expect(text).toContain(`Nothing arrived at ${typo.replace('@exmaple.com', '@mailwright.test')}`);
  expect(text).toContain(`The service refused mail in this window: your app sent to ${typo}, which this service does not serve.`);
  expect(text).toMatch(new RegExp(`- ${typo.replace(/\./g, '\\.')} from noreply@app\\.test at \\d\\d:\\d\\d:\\d\\d\\.\\d{3}: 550 5\\.1\\.1 <${typo.replace(/\./g, '\\.')}>: this service does not serve the domain exmaple\\.com`));
  expect(text).toContain('Hint: make the app send to exactly');
});
