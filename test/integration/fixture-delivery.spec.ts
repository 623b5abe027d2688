// Integration: the fixture in each delivery mode, run the way Playwright tests its runner —
// inline specs in a child Playwright process with 3 workers against a real service.
import { test, expect } from '@playwright/test';
import { annotation, failures, runInner, startService } from './fixture/run-inner.js';

test.describe.configure({ mode: 'parallel' });

for (const delivery of ['auto', 'webhook', 'poll'] as const) {
  test(`delivery ${delivery}: every wait resolves across 3 workers`, async () => {
    test.setTimeout(180_000);
    await using service = await startService();
    const run = await runInner({ service, files: ['delivery.inner.ts'], workers: 3, env: { MW_DELIVERY: delivery } });
    expect(run.tests.length, run.stdout + run.stderr).toBe(9);
    expect(failures(run)).toBe('');
    expect(run.exitCode).toBe(0);
    const expected = delivery === 'poll' ? 'poll' : 'webhook';
    for (const t of run.tests) expect(annotation(t, 'delivery'), t.title).toBe(expected);
    const workers = new Set(run.tests.map((t) => annotation(t, 'worker')));
    expect(workers.size).toBeGreaterThan(1);
    test.info().annotations.push({ type: 'inner run', description: `${run.tests.length} tests on ${workers.size} workers in ${run.durationMs} ms` });
  });
}

test('defineMailFixtures composes with mergeTests, and its defaults apply', async () => {
  test.setTimeout(180_000);
  await using service = await startService();
  const run = await runInner({ service, files: ['compose.inner.ts'], workers: 1 });
  expect(failures(run)).toBe('');
  expect(run.tests.map((t) => t.status)).toEqual(['passed']);
});
