// Integration: impaired webhook delivery. A receiver the service cannot reach makes `auto`
// poll (and `webhook` fail with an actionable error); a receiver whose first deliveries fail
// is served by the service's retries; deliveries that stop are covered by the poll loop.
import { test, expect } from '@playwright/test';
import { annotation, failures, runInner, startProxy, startService, unreachableURL, type InnerTest } from './fixture/run-inner.js';

test.describe.configure({ mode: 'parallel' });

const stats = (t: InnerTest) => JSON.parse(annotation(t, 'stats') ?? '{}') as { webhook: number; poll: number; api: number; pollRequests: number };

test('auto: an unreachable receiver means polling, and every wait still resolves', async () => {
  test.setTimeout(180_000);
  await using service = await startService();
  const run = await runInner({ service, files: ['fallback.inner.ts'], workers: 3, env: { MW_DELIVERY: 'auto', MW_RECEIVER_URL: await unreachableURL() } });
  expect(failures(run)).toBe('');
  expect(run.tests).toHaveLength(3);
  for (const t of run.tests) {
    expect(annotation(t, 'delivery')).toBe('poll');
    expect(stats(t).webhook).toBe(0);
  }
  expect(annotation(run.get('a timed-out wait names the delivery in use'), 'timeout message')).toContain('within 1.5 s (delivery: poll).');
  expect(stats(run.get('a message sent while waiting arrives')).pollRequests).toBeGreaterThan(0);
  // The unreachable webhooks were deleted at start-up: the service holds none now.
  const response = await fetch(`${service.httpUrl}/api/config/webhooks`, { headers: { 'x-api-key': service.apiKey } });
  expect(((await response.json()) as { webhooks: unknown[] }).webhooks).toEqual([]);
});

test('webhook: an unreachable receiver fails the worker with the reason and the fix', async () => {
  test.setTimeout(180_000);
  await using service = await startService();
  const url = await unreachableURL();
  const run = await runInner({ service, files: ['strict.inner.ts'], workers: 1, env: { MW_RECEIVER_URL: url } });
  expect(run.exitCode).toBe(1);
  const t = run.get('strict webhook delivery with an unreachable receiver');
  expect(t.status).toBe('failed');
  const message = t.errors.join('\n');
  expect(message).toContain(`delivery 'webhook' was asked for, but the service could not deliver a test event to ${url.replace('{path}', '/mailwright/webhook/')}`);
  expect(message).toMatch(/set receiverHost .* and receiverURL .*, or use test\.use\(\{ mailwright: \{ delivery: 'auto' \} \}\) to fall back to polling/);
});

test('webhook: deliveries failing at first are retried by the service and still resolve', async () => {
  test.setTimeout(180_000);
  await using service = await startService({ webhookRetrySchedule: [100, 200] });
  const proxy = await startProxy({ failFirst: 2 });
  try {
    const run = await runInner({ service, files: ['fallback.inner.ts'], workers: 2, env: { MW_DELIVERY: 'webhook', MW_RECEIVER_URL: proxy.template } });
    expect(failures(run)).toBe('');
    for (const t of run.tests) {
      expect(annotation(t, 'delivery')).toBe('webhook');
      expect(stats(t).pollRequests).toBe(0);
    }
    expect(annotation(run.get('a timed-out wait names the delivery in use'), 'timeout message')).toContain('(delivery: webhook).');
    // The proxy refuses every delivery's first two attempts and accepts the third. A wait may
    // resolve from the hub's own listing first, and a worker that ends deletes its webhook, so
    // a delivery's log can stop early — but never deviates from that order. The message sent
    // while its wait was pending was retried at least once (the worker outlived the 100 ms
    // retry delay). The full refuse-refuse-accept cycle is asserted in webhooks.spec.ts.
    const byDelivery = new Map<string, number[]>();
    for (const entry of proxy.log.filter((e) => e.type === 'message.received')) byDelivery.set(entry.deliveryId, [...(byDelivery.get(entry.deliveryId) ?? []), entry.status]);
    expect(byDelivery.size).toBeGreaterThanOrEqual(3);
    for (const statuses of byDelivery.values()) expect([[503], [503, 503], [503, 503, 204]]).toContainEqual(statuses);
    expect([...byDelivery.values()].some((s) => s.length >= 2)).toBe(true);
  } finally {
    await proxy.close();
  }
});

test('auto: when deliveries stop, the poll loop finds the mail', async () => {
  test.setTimeout(180_000);
  await using service = await startService({ webhookRetrySchedule: [100, 200] });
  const proxy = await startProxy({ dropAll: true });
  try {
    const run = await runInner({ service, files: ['fallback.inner.ts'], workers: 2, env: { MW_DELIVERY: 'auto', MW_RECEIVER_URL: proxy.template, MW_FALLBACK_AFTER: '500' } });
    expect(failures(run)).toBe('');
    for (const t of run.tests) {
      expect(annotation(t, 'delivery')).toBe('webhook'); // still registered: polling is the safety net
      expect(stats(t).webhook).toBe(0);
    }
    const timedOut = run.get('a timed-out wait names the delivery in use');
    expect(annotation(timedOut, 'timeout message')).toContain('within 1.5 s (delivery: webhook+poll fallback).');
    expect(stats(timedOut).pollRequests).toBeGreaterThan(0);
    expect(proxy.log.some((e) => e.type === 'webhook.test' && e.status === 204)).toBe(true);
  } finally {
    await proxy.close();
  }
});
