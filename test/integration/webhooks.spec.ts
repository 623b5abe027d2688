// End-to-end webhook delivery through the real server: webhooks created over the API,
// mail sent over SMTP with nodemailer, a local receiver that verifies Standard Webhooks
// signatures, retries, routing of bound/unbound mailboxes, retries across a restart, and a
// target given up after refusing a whole retry schedule.
import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { verifyWebhook, type CreatedWebhook, type Delivery, type MessageReceivedEvent, type WebhookTestEvent } from '../../src/protocol/index.js';
import { FakeClock } from '../helpers/clock.js';
import { refusingPort } from '../helpers/ports.js';
import { startTestService, tempDir, type TestService } from './helpers/service.js';

const HOUR = 3_600_000;

interface Call {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A webhook receiver on 127.0.0.1 that answers from a script (then 200) and lets a test await calls. */
async function startReceiver(options: { script?: number[] } = {}) {
  const calls: Call[] = [];
  const script = [...(options.script ?? [])];
  let waiters: Array<{ count: number; resolve: () => void }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(script.shift() ?? 200).end();
      waiters = waiters.filter((w) => (calls.length >= w.count ? (w.resolve(), false) : true));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    calls,
    /** Resolves once `count` calls have arrived. */
    received(count: number): Promise<Call[]> {
      if (calls.length >= count) return Promise.resolve(calls);
      return new Promise((resolve) => waiters.push({ count, resolve: () => resolve(calls) }));
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

async function createWebhook(svc: TestService, url: string): Promise<CreatedWebhook> {
  const res = await svc.api('POST', '/api/config/webhooks', { body: { url } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as CreatedWebhook;
}

async function createMailbox(svc: TestService, webhookId?: string): Promise<{ id: string; email: string }> {
  const res = await svc.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR, ...(webhookId ? { webhookId } : {}) } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function deliveries(svc: TestService, webhookId: string): Promise<Delivery[]> {
  const res = await svc.api('GET', `/api/config/webhooks/${webhookId}/deliveries`);
  expect(res.status).toBe(200);
  return res.body.deliveries as Delivery[];
}

function expectSigned(call: Call, secret: string): void {
  expect(verifyWebhook(secret, call.headers, call.body)).toBeNull();
  expect(call.headers['content-type']).toBe('application/json');
  expect(call.headers['user-agent']).toBe('mailwright');
}

test.describe('webhooks', () => {
  let svc: TestService | undefined;
  let receiver: Receiver | undefined;

  test.afterEach(async () => {
    await svc?.close();
    await receiver?.close();
    svc = undefined;
    receiver = undefined;
  });

  test('a bound mailbox delivers a signed message.received carrying the full message', async () => {
    svc = await startTestService();
    receiver = await startReceiver();
    const webhook = await createWebhook(svc, receiver.url);
    expect(webhook.secret).toMatch(/^whsec_/);
    const box = await createMailbox(svc, webhook.id);

    await svc.send({
      from: 'App <app@example.com>',
      to: box.email,
      subject: 'Confirm your address',
      text: 'Your code is 482913',
      html: '<p>Your code is <b>482913</b></p>',
    });
    const [call] = await receiver.received(1);

    expectSigned(call!, webhook.secret);
    const event = JSON.parse(call!.body) as MessageReceivedEvent;
    expect(event.type).toBe('message.received');
    expect(Date.parse(event.timestamp)).not.toBeNaN();
    const stored = await svc.api('GET', `/api/emails/${box.id}/${event.data.id}`);
    expect(stored.status).toBe(200);
    expect(event.data).toEqual(stored.body.message);
    expect(event.data).toMatchObject({ mailboxId: box.id, mailbox: box.email, subject: 'Confirm your address', from: { address: 'app@example.com', name: 'App' } });
    expect(event.data.text).toContain('482913');
    expect(event.data.html).toContain('<b>482913</b>');

    await expect.poll(async () => (await deliveries(svc!, webhook.id))[0]?.status).toBe('delivered');
    const [delivery] = await deliveries(svc, webhook.id);
    expect(delivery).toMatchObject({ id: call!.headers['webhook-id'], event: 'message.received', messageId: event.data.id, mailboxId: box.id, nextAttemptAt: null });
    expect(delivery!.attempts).toMatchObject([{ attempt: 1, statusCode: 200, error: null, ok: true }]);
  });

  test('a receiver answering 500 twice gets the event on the third attempt; the log shows all three', async () => {
    svc = await startTestService({ webhookRetrySchedule: [50, 100, 200] });
    receiver = await startReceiver({ script: [500, 500] });
    const webhook = await createWebhook(svc, receiver.url);
    const box = await createMailbox(svc, webhook.id);

    // The first attempt's body is built as the message commits, the retries' from the store: the same bytes.
    await svc.send({ from: 'App <app@example.com>', to: box.email, subject: 'retry me', text: 'hello', html: '<p>hello</p>' });
    const calls = await receiver.received(3);

    for (const call of calls) expectSigned(call, webhook.secret);
    expect(new Set(calls.map((c) => c.headers['webhook-id'])).size).toBe(1);
    expect(new Set(calls.map((c) => c.body)).size).toBe(1);
    await expect.poll(async () => (await deliveries(svc!, webhook.id))[0]?.status).toBe('delivered');
    const [delivery] = await deliveries(svc, webhook.id);
    expect(delivery!.id).toBe(calls[0]!.headers['webhook-id']);
    expect(delivery!.attempts.map((a) => [a.attempt, a.statusCode, a.error, a.ok])).toEqual([
      [1, 500, 'HTTP 500', false],
      [2, 500, 'HTTP 500', false],
      [3, 200, null, true],
    ]);
    const times = delivery!.attempts.map((a) => Date.parse(a.at));
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(50);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(100);
    expect(receiver.calls).toHaveLength(3);
  });

  test('an unbound webhook gets the mail of unbound mailboxes only; a bound one only its own', async () => {
    svc = await startTestService();
    receiver = await startReceiver();
    const other = await startReceiver();
    try {
      const unbound = await createWebhook(svc, receiver.url);
      const bound = await createWebhook(svc, other.url);
      const boundBox = await createMailbox(svc, bound.id);
      const plainBox = await createMailbox(svc);

      await svc.send({ from: 'app@example.com', to: boundBox.email, subject: 'for the bound webhook', text: 'a' });
      await svc.send({ from: 'app@example.com', to: plainBox.email, subject: 'for the unbound webhook', text: 'b' });
      const [toUnbound] = await receiver.received(1);
      const [toBound] = await other.received(1);

      expectSigned(toUnbound!, unbound.secret);
      expectSigned(toBound!, bound.secret);
      expect((JSON.parse(toUnbound!.body) as MessageReceivedEvent).data).toMatchObject({ mailboxId: plainBox.id, subject: 'for the unbound webhook' });
      expect((JSON.parse(toBound!.body) as MessageReceivedEvent).data).toMatchObject({ mailboxId: boundBox.id, subject: 'for the bound webhook' });
      // Each delivery log holds exactly its one event: nothing else was sent anywhere.
      await expect.poll(async () => (await deliveries(svc!, unbound.id)).map((d) => [d.mailboxId, d.status])).toEqual([[plainBox.id, 'delivered']]);
      await expect.poll(async () => (await deliveries(svc!, bound.id)).map((d) => [d.mailboxId, d.status])).toEqual([[boundBox.id, 'delivered']]);
      expect(receiver.calls).toHaveLength(1);
      expect(other.calls).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  test('a webhook created with catchAll: false never gets the mail of unbound mailboxes', async () => {
    svc = await startTestService();
    receiver = await startReceiver();
    const res = await svc.api('POST', '/api/config/webhooks', { body: { url: receiver.url, catchAll: false } });
    expect(res.status).toBe(201);
    expect(res.body.catchAll).toBe(false);
    const own = await createMailbox(svc, res.body.id);
    const plainBox = await createMailbox(svc);
    await svc.send({ from: 'app@example.com', to: plainBox.email, subject: 'not for a private webhook', text: 'a' });
    await svc.send({ from: 'app@example.com', to: own.email, subject: 'mine', text: 'b' });
    const [call] = await receiver.received(1);
    expect((JSON.parse(call!.body) as MessageReceivedEvent).data.subject).toBe('mine');
    expect((await deliveries(svc, res.body.id)).map((d) => d.mailboxId)).toEqual([own.id]);
    const listed = await svc.api('GET', '/api/config/webhooks');
    expect(listed.body.webhooks).toEqual([expect.objectContaining({ id: res.body.id, catchAll: false })]);
  });

  test('POST /api/config/webhooks/{id}/test sends one signed webhook.test and logs it', async () => {
    svc = await startTestService();
    receiver = await startReceiver({ script: [200, 503] });
    const webhook = await createWebhook(svc, receiver.url);

    const ok = await svc.api('POST', `/api/config/webhooks/${webhook.id}/test`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ delivered: true, statusCode: 200, durationMs: expect.any(Number), error: null });
    const [call] = await receiver.received(1);
    expectSigned(call!, webhook.secret);
    const event = JSON.parse(call!.body) as WebhookTestEvent;
    expect(event).toMatchObject({ type: 'webhook.test', data: { webhookId: webhook.id } });

    const failed = await svc.api('POST', `/api/config/webhooks/${webhook.id}/test`);
    expect(failed.body).toEqual({ delivered: false, statusCode: 503, durationMs: expect.any(Number), error: 'HTTP 503' });

    const log = await deliveries(svc, webhook.id);
    expect(log.map((d) => [d.event, d.status, d.attempts.length])).toEqual([
      ['webhook.test', 'failed', 1],
      ['webhook.test', 'delivered', 1],
    ]);
    expect(receiver.calls).toHaveLength(2); // the failed test event is not retried
  });

  test('a delivery pending when the server stops is delivered after a restart on the same store', async () => {
    const dir = tempDir('mailwright-webhooks-');
    const data = join(dir, 'store.db');
    // Signatures are checked against the real time, so the fake clock starts there.
    const clock = new FakeClock(Date.now());
    try {
      receiver = await startReceiver({ script: [503] });
      svc = await startTestService({ data, webhookRetrySchedule: [60_000] }, { clock });
      const webhook = await createWebhook(svc, receiver.url);
      const box = await createMailbox(svc, webhook.id);
      await svc.send({ from: 'app@example.com', to: box.email, subject: 'survives a restart', text: 'hello' });
      await expect.poll(async () => (await deliveries(svc!, webhook.id))[0]?.attempts.length ?? 0).toBe(1);
      const [before] = await deliveries(svc, webhook.id);
      expect(before).toMatchObject({ status: 'pending', attempts: [{ attempt: 1, statusCode: 503, error: 'HTTP 503', ok: false }] });
      await svc.close();
      svc = undefined;

      // The retry comes due while the service is down; the next start sends it.
      clock.advance(60_000);
      svc = await startTestService({ data, webhookRetrySchedule: [60_000] }, { clock });
      const calls = await receiver.received(2);

      for (const call of calls) expectSigned(call, webhook.secret);
      expect(calls.map((c) => c.headers['webhook-id'])).toEqual([before!.id, before!.id]);
      expect(calls[1]!.body).toBe(calls[0]!.body);
      expect((JSON.parse(calls[1]!.body) as MessageReceivedEvent).data.subject).toBe('survives a restart');
      await expect.poll(async () => (await deliveries(svc!, webhook.id))[0]?.status).toBe('delivered');
      const [after] = await deliveries(svc, webhook.id);
      expect(after!.attempts.map((a) => [a.attempt, a.statusCode])).toEqual([[1, 503], [2, 200]]);
    } finally {
      await svc?.close();
      svc = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a target that refused every connection for a whole retry schedule is given up; the delivery log says why', async () => {
    const clock = new FakeClock();
    const target = await refusingPort();
    try {
      svc = await startTestService({ webhookRetrySchedule: [1_000, 2_000] }, { clock });
      const webhook = await createWebhook(svc, target.url());
      const box = await createMailbox(svc, webhook.id);
      const send = (subject: string) => svc!.send({ from: 'app@example.com', to: box.email, subject, text: 'hello' });
      /** Attempts logged per delivery, newest delivery first. */
      const attempts = async () => (await deliveries(svc!, webhook.id)).map((d) => d.attempts.length);

      await send('first'); // tried at 0, 1 and 3 s
      await expect.poll(attempts).toEqual([1]);
      clock.advance(500);
      await send('second'); // tried at 0.5 and 2 s, then due at 4 s
      await expect.poll(attempts).toEqual([1, 1]);
      clock.advance(500);
      await expect.poll(attempts).toEqual([1, 2]);
      clock.advance(1_000);
      await expect.poll(attempts).toEqual([2, 2]);
      clock.advance(1_000); // the first runs out of its schedule, refused every time
      await expect.poll(async () => (await deliveries(svc!, webhook.id)).map((d) => d.status)).toEqual(['failed', 'failed']);

      const [second, first] = await deliveries(svc, webhook.id);
      const reason = /retries stopped: the webhook's target has refused every connection since \S+, for a whole retry schedule; bring the receiver back or delete the webhook$/;
      expect(first!.attempts.map((a) => a.error)).toEqual(['connection refused', 'connection refused', expect.stringMatching(reason)]);
      expect(second).toMatchObject({ status: 'failed', nextAttemptAt: null });
      expect(second!.attempts).toMatchObject([
        { attempt: 1, error: 'connection refused' },
        { attempt: 2, error: 'connection refused' },
        { attempt: 3, statusCode: null, ok: false, error: expect.stringMatching(/^not sent: /) },
      ]);
      expect(second!.attempts[2]!.error).toMatch(reason);
    } finally {
      await target.close();
    }
  });
});
