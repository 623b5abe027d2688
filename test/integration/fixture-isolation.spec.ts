// Integration: workers are isolated. Hubs are worker-scoped, so several hubs on one service
// stand for several workers; mail to one worker's inbox must never reach another worker —
// not its receiver, not its poll loop, not its inboxes.
import { expect, test } from '@playwright/test';
import { MailHub, resolveMailOptions, type DeliveryMode } from '../../src/index.js';
import { FakeClock } from '../helpers/clock.js';
import { ADMIN_KEY, startTestService } from './helpers/service.js';

test('mail to one worker\'s inbox is never seen by another worker, in any delivery mode', async () => {
  test.setTimeout(60_000);
  await using svc = await startTestService();
  const hub = (delivery: DeliveryMode, clock?: FakeClock) => MailHub.start(resolveMailOptions([{ baseURL: svc.httpUrl, apiKey: ADMIN_KEY, delivery }], {}), { clock });
  await using autoWorker = await hub('auto');
  // The bystander's "no message" window ends when the test says so, after the others' mail is in.
  const bystanderClock = new FakeClock(Date.now());
  await using webhookWorker = await hub('webhook', bystanderClock);
  await using pollWorker = await hub('poll');
  // A worker between tests: its webhook is registered, but no inbox is bound to it.
  await using idleWorker = await hub('webhook');
  expect(autoWorker.delivery).toBe('webhook');

  // A bound inbox (webhook worker) and an unbound one (poll worker, no webhook of its own).
  const bound = await autoWorker.createInbox();
  const unbound = await pollWorker.createInbox();
  const bystander = await webhookWorker.createInbox();
  const quiet = bystander.expectNoMessage(undefined, { within: 1_500 });

  await svc.send({ from: 'app@example.test', to: bound.address, subject: 'for the auto worker', text: 'Your code is 842913' });
  await svc.send({ from: 'app@example.test', to: unbound.address, subject: 'for the poll worker', text: 'Your code is 315790' });
  expect(await bound.waitForCode({ subject: 'for the auto worker' })).toBe('842913');
  expect(await unbound.waitForCode({ subject: 'for the poll worker' })).toBe('315790');
  bystanderClock.advance(1_500);
  await quiet;

  expect(await bound.messages()).toHaveLength(1);
  expect(await unbound.messages()).toHaveLength(1);
  for (const other of [webhookWorker, idleWorker]) expect(other.stats).toMatchObject({ webhook: 0, poll: 0, duplicates: 0 });

  // On the wire: the service delivered only the bound inbox's message, and only to its
  // worker's webhook; the unbound message went to no worker's webhook (they are not catch-all).
  const { webhooks } = (await svc.api('GET', '/api/config/webhooks')).body as { webhooks: Array<{ id: string; url: string }> };
  expect(webhooks.map((w) => w.url).sort()).toEqual([autoWorker.webhookURL, webhookWorker.webhookURL, idleWorker.webhookURL].sort());
  for (const webhook of webhooks) {
    const { deliveries } = (await svc.api('GET', `/api/config/webhooks/${webhook.id}/deliveries`)).body as { deliveries: Array<{ event: string; mailboxId: string }> };
    const received = deliveries.filter((d) => d.event === 'message.received').map((d) => d.mailboxId);
    expect(received, webhook.url).toEqual(webhook.url === autoWorker.webhookURL ? [bound.id] : []);
  }
});
