// Integration: inboxes do not pile up. A suite with many more tests than the account's
// live-mailbox cap passes, because each test's inbox is expired on the service when the test
// ends (after its report attachments), and the worker's own inboxes when the hub closes.
import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { failures, runInner } from './fixture/run-inner.js';
import { accountWithKey, startTestService, tempDir } from './helpers/service.js';

test('thirty tests on a key whose role allows three live mailboxes', async () => {
  test.setTimeout(180_000);
  const data = join(tempDir(), 'store.db');
  await using svc = await startTestService({ data, roles: { civilian: { maxMailboxes: 3 } } });
  const key = await accountWithKey(data, 'many-tests@example.test');
  const run = await runInner({ service: { ...svc, apiKey: key }, files: ['inbox-lifetime.inner.ts'], workers: 1 });
  expect(failures(run), run.stdout + run.stderr).toBe('');
  expect(run.tests).toHaveLength(32);
  // Nothing is left live after the run: the whole cap is free again.
  for (let i = 0; i < 3; i++) {
    const created = await svc.api('POST', '/api/emails/generate', { key, body: { expiryTime: 60_000 } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
});
