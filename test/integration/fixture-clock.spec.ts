// Integration: the fixture's timing runs on its clock seam. With a fake clock a wait times out
// exactly when its timeout has passed, and `auto` starts its poll safety net exactly after
// `fallbackAfter` — decided by the test, not by how busy the machine is.
import { expect, test } from '@playwright/test';
import { MailHub, resolveMailOptions } from '../../src/index.js';
import { FakeClock } from '../helpers/clock.js';
import { ADMIN_KEY, startTestService } from './helpers/service.js';

test('a wait times out when its timeout has passed on the clock, not before', async () => {
  await using svc = await startTestService();
  const clock = new FakeClock(Date.now());
  await using hub = await MailHub.start(resolveMailOptions([{ baseURL: svc.httpUrl, apiKey: ADMIN_KEY, delivery: 'poll' }], {}), { clock });
  const inbox = await hub.createInbox();
  let outcome: unknown = 'pending';
  const waiting = inbox.waitForMessage({ subject: 'never sent' }, { timeout: 5_000 }).then(
    (message) => (outcome = message),
    (error: unknown) => (outcome = error),
  );
  await expect.poll(() => clock.pending).toBe(1); // the wait armed its timeout
  clock.advance(4_999);
  expect(clock.pending).toBe(1);
  expect(outcome).toBe('pending');
  clock.advance(1);
  await waiting;
  expect(outcome).toMatchObject({ code: 'MW_ERR_WAIT_TIMEOUT' });
  expect((outcome as Error).message).toContain(inbox.address);
});

test('auto starts polling for a pending wait exactly after fallbackAfter; the message ends the wait and clears its timers', async () => {
  await using svc = await startTestService();
  const clock = new FakeClock(Date.now());
  await using hub = await MailHub.start(resolveMailOptions([{ baseURL: svc.httpUrl, apiKey: ADMIN_KEY, delivery: 'auto', fallbackAfter: 2_500 }], {}), { clock });
  expect(hub.delivery).toBe('webhook');
  const inbox = await hub.createInbox();
  const waiting = inbox.waitForMessage({ subject: 'late' }, { timeout: 60_000 });
  // The wait's timeout, its start-of-wait check and the fallback.
  await expect.poll(() => clock.pending).toBe(3);
  clock.advance(2_499);
  expect(clock.pending).toBe(2);
  expect(hub.stats.pollRequests).toBe(0);
  clock.advance(1);
  expect(clock.pending).toBe(1);
  await expect.poll(() => hub.stats.pollRequests).toBeGreaterThan(0);
  await svc.send({ from: 'app@example.test', to: inbox.address, subject: 'late but here', text: 'hello' });
  expect((await waiting).subject).toBe('late but here');
  expect(clock.pending).toBe(0); // the timeout was cleared with the wait
});
