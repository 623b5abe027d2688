// Unit tests of webhook delivery: a real SQLite store, a real local receiver, a fake clock
// that drives the retry schedule (no sleeps), and the delivery log as the observable.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { generateWebhookSecret, verifyWebhook, type MessageReceivedEvent, type WebhookTestEvent } from '../../src/protocol/index.js';
import type { Clock, ServiceContext } from '../../src/server/context.js';
import { WebhookDispatcher } from '../../src/server/delivery/dispatcher.js';
import { planCopies, webhookTargets } from '../../src/server/delivery/routing.js';
import { sendTestEvent } from '../../src/server/delivery/test-event.js';
import { toDelivery } from '../../src/server/dto.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import type { MailboxRecord, NewMessage, Store, WebhookRecord } from '../../src/server/store/store.js';
import { FakeClock } from '../helpers/clock.js';
import { refusingPort, returningTarget, type RefusingPort } from '../helpers/ports.js';
import { testContext as context } from '../helpers/service-context.js';

// ---- helpers ------------------------------------------------------------------------------

/** A status; `hang`: no answer; `big`: 200 with a 1 MiB body; `stall`: 200, then a body that never ends; `drop`: the connection closed unanswered. */
type Answer = number | 'hang' | 'big' | 'stall' | 'drop';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  verified: ReturnType<typeof verifyWebhook>;
}

/**
 * A local webhook receiver that verifies signatures and answers from a script (then 200).
 * While `hold()` is on, requests wait unanswered until `release()`.
 */
async function startReceiver(secret: () => string, clock: Clock, script: Answer[] = []) {
  const received: Received[] = [];
  const held: ServerResponse[] = [];
  let holding = false;
  let waiters: Array<{ count: number; resolve: () => void }> = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers, body, verified: verifyWebhook(secret(), req.headers, body, { now: clock.now() }) });
      const answer = script.shift() ?? 200;
      if (holding) held.push(res);
      else if (answer === 'big') res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(1 << 20));
      else if (answer === 'drop') req.socket.destroy();
      else if (answer === 'stall') res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' }).write('partial');
      else if (answer !== 'hang') res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'nope');
      waiters = waiters.filter((w) => (received.length >= w.count ? (w.resolve(), false) : true));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    script,
    held,
    /** Resolves once `count` requests have arrived. */
    arrived(count: number): Promise<void> {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    hold() {
      holding = true;
    },
    /** Stops holding and answers the held requests with `status`. */
    release(status = 200) {
      holding = false;
      for (const res of held.splice(0)) res.writeHead(status).end();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const MESSAGE: NewMessage = {
  from: { address: 'app@example.com', name: 'App' },
  to: [{ address: 'user@mailwright.test', name: '' }],
  cc: [],
  subject: 'Your code is 123456',
  raw: Buffer.from('Subject: Your code is 123456\r\n\r\nYour code is 123456'),
};

/** An account with a webhook at `url` and a mailbox bound to it. */
async function seed(ctx: ServiceContext, url: string) {
  const now = ctx.clock.now();
  const account = await ctx.store.createAccount({ email: `a${Math.random()}@example.com`, role: 'civilian', isAdmin: false, passwordHash: null, now });
  const webhook = await ctx.store.createWebhook({ accountId: account.id, url, secret: generateWebhookSecret(), catchAll: true, now });
  const mailbox = await ctx.store.createMailbox(
    { accountId: account.id, address: `user${Math.floor(Math.random() * 1e9)}@mailwright.test`, webhookId: webhook.id, createdAt: now, expiresAt: now + 3_600_000 },
    now,
  );
  return { account, webhook, mailbox };
}

/** Stores a message as ingestion does (routed, deliveries in the same transaction) and announces it. */
async function receiveMail(ctx: ServiceContext, mailbox: MailboxRecord, announce = true) {
  const now = ctx.clock.now();
  const [copy] = await ctx.store.insertMessage(planCopies([(await ctx.store.findMailboxByAddress(mailbox.address, now))!]), MESSAGE, now);
  if (announce) ctx.bus.emit('message.stored', copy!.message, copy!.deliveries);
  return copy!;
}

async function log(ctx: ServiceContext, webhook: WebhookRecord) {
  return (await ctx.store.listDeliveries(webhook.id, 50)).map(toDelivery);
}

// ---- tests --------------------------------------------------------------------------------

// Every test gets a fake clock, a fresh in-memory store and a signature-checking receiver.
let clock: FakeClock;
let store: Store;
let secret = '';
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let refusing: RefusingPort;

test.beforeEach(async () => {
  clock = new FakeClock();
  store = openSqliteStore(':memory:');
  receiver = await startReceiver(() => secret, clock);
  refusing = await refusingPort();
});
test.afterEach(async () => {
  await receiver.close();
  await refusing.close();
  await store.close();
});

test.describe('WebhookDispatcher', () => {
  test('delivers a signed message.received on the first try', async () => {
    const ctx = context(store, clock);
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    await using dispatcher = new WebhookDispatcher(ctx).start();

    const copy = await receiveMail(ctx, mailbox);
    await dispatcher.idle();

    expect(receiver.received).toHaveLength(1);
    const [call] = receiver.received;
    expect(call!.verified).toBeNull();
    expect(call!.headers['webhook-id']).toBe(copy.deliveries[0]!.id);
    expect(call!.headers['content-type']).toBe('application/json');
    expect(call!.headers['user-agent']).toBe('mailwright');
    const event = JSON.parse(call!.body) as MessageReceivedEvent;
    expect(event.type).toBe('message.received');
    expect(event.timestamp).toBe(new Date(clock.now()).toISOString());
    expect(event.data).toMatchObject({ id: copy.message.id, mailboxId: mailbox.id, subject: 'Your code is 123456', text: 'Your code is 123456\n' });

    const [delivery] = await log(ctx, webhook);
    expect(delivery).toMatchObject({ status: 'delivered', nextAttemptAt: null, messageId: copy.message.id, event: 'message.received' });
    expect(delivery!.attempts).toEqual([{ attempt: 1, at: new Date(clock.now()).toISOString(), durationMs: expect.any(Number), statusCode: 200, error: null, ok: true }]);
  });

  test('retries a 500 on the schedule, with the same webhook-id and body and a fresh signature', async () => {
    const ctx = context(store, clock, { webhookRetrySchedule: [1_000, 2_000] });
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    receiver.script.push(500, 500);
    await using dispatcher = new WebhookDispatcher(ctx).start();

    await receiveMail(ctx, mailbox);
    await dispatcher.idle();
    let [delivery] = await log(ctx, webhook);
    expect(delivery).toMatchObject({ status: 'pending', nextAttemptAt: new Date(clock.now() + 1_000).toISOString() });

    clock.advance(999);
    await dispatcher.idle();
    expect(receiver.received).toHaveLength(1);

    clock.advance(1);
    await dispatcher.idle();
    expect(receiver.received).toHaveLength(2);
    clock.advance(2_000);
    await dispatcher.idle();

    expect(receiver.received).toHaveLength(3);
    expect(receiver.received.map((r) => r.verified)).toEqual([null, null, null]);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-timestamp'])).size).toBe(3);
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    [delivery] = await log(ctx, webhook);
    expect(delivery!.status).toBe('delivered');
    expect(delivery!.attempts.map((a) => [a.attempt, a.statusCode, a.error, a.ok])).toEqual([
      [1, 500, 'HTTP 500', false],
      [2, 500, 'HTTP 500', false],
      [3, 200, null, true],
    ]);
  });

  test('a receiver that does not answer in time is a timeout, retried', async () => {
    const ctx = context(store, clock, { webhookTimeoutMs: 200 });
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    receiver.script.push('hang');
    await using dispatcher = new WebhookDispatcher(ctx).start();

    await receiveMail(ctx, mailbox);
    await dispatcher.idle();
    let [delivery] = await log(ctx, webhook);
    expect(delivery!.status).toBe('pending');
    expect(delivery!.attempts).toMatchObject([{ attempt: 1, statusCode: null, error: 'timeout after 200 ms', ok: false }]);
    expect(delivery!.attempts[0]!.durationMs).toBeGreaterThanOrEqual(190);

    // The retry reaches the receiver again (its verdict depends on the machine's load
    // against a 200 ms limit, so it is not asserted here).
    clock.advance(1_000);
    await dispatcher.idle();
    expect(receiver.received).toHaveLength(2);
    [delivery] = await log(ctx, webhook);
    expect(delivery!.attempts.map((a) => a.attempt)).toEqual([1, 2]);
  });

  test('a large answer body is not read past 64 KiB: the status is the verdict; a body that never ends is a timeout', async () => {
    const ctx = context(store, clock, { webhookTimeoutMs: 300 });
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    receiver.script.push('big', 'stall');
    await using dispatcher = new WebhookDispatcher(ctx).start();

    await receiveMail(ctx, mailbox);
    await dispatcher.idle();
    await receiveMail(ctx, mailbox);
    await dispatcher.idle();
    const deliveries = (await log(ctx, webhook)).sort((a, b) => a.attempts[0]!.at.localeCompare(b.attempts[0]!.at) || a.id.localeCompare(b.id));
    const outcomes = deliveries.map((d) => d.attempts.map((a) => [a.statusCode, a.error, a.ok])).flat();
    expect(outcomes).toContainEqual([200, null, true]);
    expect(outcomes).toContainEqual([null, 'timeout after 300 ms', false]);
    expect(receiver.received).toHaveLength(2);
  });

  test('a receiver that closes the connection without answering is logged as such, and retried', async () => {
    const ctx = context(store, clock);
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    receiver.script.push('drop');
    await using dispatcher = new WebhookDispatcher(ctx).start();

    await receiveMail(ctx, mailbox);
    await dispatcher.idle();
    const [delivery] = await log(ctx, webhook);
    expect(delivery).toMatchObject({ status: 'pending', attempts: [{ attempt: 1, statusCode: null, error: 'connection closed by the receiver', ok: false }] });
  });

  test('connection refused is retried until the schedule is exhausted, then failed', async () => {
    const ctx = context(store, clock, { webhookRetrySchedule: [100, 200] });
    const { webhook, mailbox } = await seed(ctx, refusing.url());
    await using dispatcher = new WebhookDispatcher(ctx).start();

    await receiveMail(ctx, mailbox);
    await dispatcher.idle();
    clock.advance(100);
    await dispatcher.idle();
    clock.advance(200);
    await dispatcher.idle();

    const [delivery] = await log(ctx, webhook);
    expect(delivery).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(delivery!.attempts.map((a) => [a.attempt, a.statusCode, a.error?.split(';')[0]])).toEqual([
      [1, null, 'connection refused'],
      [2, null, 'connection refused'],
      [3, null, 'connection refused'],
    ]);
    expect(await store.nextDeliveryDue()).toBeNull();
    // Nothing more is tried, however long the service runs.
    clock.advance(86_400_000);
    await dispatcher.idle();
    expect((await log(ctx, webhook))[0]!.attempts).toHaveLength(3);
  });

  test('a target refused on every attempt of a whole schedule is given up: its other pending deliveries fail at once, with the reason in their log', async () => {
    const ctx = context(store, clock, { webhookRetrySchedule: [100, 200] });
    const { webhook, mailbox } = await seed(ctx, refusing.url());
    await using dispatcher = new WebhookDispatcher(ctx).start();
    const start = new Date(clock.now()).toISOString();

    const first = await receiveMail(ctx, mailbox); // tried at 0, 100 and 300 ms
    await dispatcher.idle();
    clock.advance(50);
    const second = await receiveMail(ctx, mailbox); // tried at 50 and 200 ms, due again at 400
    await dispatcher.idle();
    for (const step of [50, 100, 100]) {
      clock.advance(step);
      await dispatcher.idle();
    }

    const byId = new Map((await log(ctx, webhook)).map((d) => [d.id, d]));
    const proof = byId.get(first.deliveries[0]!.id)!;
    expect(proof.status).toBe('failed');
    expect(proof.attempts.map((a) => a.error)).toEqual([
      'connection refused',
      'connection refused',
      `connection refused; retries stopped: the webhook's target has refused every connection since ${start}, for a whole retry schedule; bring the receiver back or delete the webhook`,
    ]);
    const abandoned = byId.get(second.deliveries[0]!.id)!;
    expect(abandoned).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(abandoned.attempts).toMatchObject([
      { attempt: 1, error: 'connection refused' },
      { attempt: 2, error: 'connection refused' },
      { attempt: 3, at: new Date(clock.now()).toISOString(), statusCode: null, ok: false, error: expect.stringMatching(/^not sent: retries stopped: the webhook's target has refused every connection since /) },
    ]);
    expect(await store.nextDeliveryDue()).toBeNull();

    // A later delivery to the target is tried once; refused again, it is not retried.
    const later = await receiveMail(ctx, mailbox);
    await dispatcher.idle();
    const [last] = await log(ctx, webhook);
    expect(last).toMatchObject({ id: later.deliveries[0]!.id, status: 'failed', nextAttemptAt: null });
    expect(last!.attempts).toHaveLength(1);
    expect(last!.attempts[0]!.error).toMatch(/^connection refused; retries stopped: /);
  });

  test('a target that answers, even with errors, is retried on the schedule and never given up', async () => {
    const ctx = context(store, clock, { webhookRetrySchedule: [100, 200] });
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    receiver.script.push(503, 503, 503, 503, 503);
    await using dispatcher = new WebhookDispatcher(ctx).start();

    await receiveMail(ctx, mailbox);
    await dispatcher.idle();
    clock.advance(50);
    await receiveMail(ctx, mailbox);
    await dispatcher.idle();
    for (const step of [50, 100, 100]) {
      clock.advance(step);
      await dispatcher.idle();
    }
    // The first ran out of retries on HTTP 503s; the second keeps its own schedule.
    const [second, first] = await log(ctx, webhook);
    expect(first).toMatchObject({ status: 'failed' });
    expect(second).toMatchObject({ status: 'pending', nextAttemptAt: new Date(clock.now() + 100).toISOString() });
    clock.advance(100);
    await dispatcher.idle();
    expect((await log(ctx, webhook))[0]).toMatchObject({ status: 'delivered' });
  });

  test('a given-up target that connects again gets its retries back', async () => {
    test.skip(process.platform !== 'linux', 'needs 127.0.0.2 on the loopback interface');
    const target = await returningTarget();
    try {
      const ctx = context(store, clock, { webhookRetrySchedule: [100] });
      const { webhook, mailbox } = await seed(ctx, target.url);
      await using dispatcher = new WebhookDispatcher(ctx).start();
      await receiveMail(ctx, mailbox);
      await dispatcher.idle();
      clock.advance(100);
      await dispatcher.idle(); // refused twice: the whole schedule; given up
      let calls = 0;
      await target.serve((_req, res) => {
        calls++;
        res.writeHead(200).end();
      });

      await receiveMail(ctx, mailbox);
      await dispatcher.idle();
      expect((await log(ctx, webhook))[0]).toMatchObject({ status: 'delivered' });
      expect(calls).toBe(1);

      // It connected, so a new refusal starts a new schedule instead of failing at once.
      await target.refuse();
      await receiveMail(ctx, mailbox);
      await dispatcher.idle();
      expect((await log(ctx, webhook))[0]).toMatchObject({ status: 'pending', attempts: [{ error: 'connection refused' }] });
    } finally {
      await target.close();
    }
  });

  test('a non-2xx answer after the last retry fails the delivery', async () => {
    const ctx = context(store, clock, { webhookRetrySchedule: [] });
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    receiver.script.push(404);
    await using dispatcher = new WebhookDispatcher(ctx).start();

    await receiveMail(ctx, mailbox);
    await dispatcher.idle();

    const [delivery] = await log(ctx, webhook);
    expect(delivery).toMatchObject({ status: 'failed', attempts: [{ attempt: 1, statusCode: 404, error: 'HTTP 404', ok: false }] });
  });

  test('start() resumes deliveries left pending in the store, and a restart keeps the schedule', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailwright-delivery-'));
    try {
      const file = join(dir, 'store.db');
      const first = openSqliteStore(file);
      const ctx1 = context(first, clock, { webhookRetrySchedule: [5_000] });
      const { webhook, mailbox } = await seed(ctx1, receiver.url);
      secret = webhook.secret;
      receiver.script.push(503);

      const dispatcher1 = new WebhookDispatcher(ctx1).start();
      await receiveMail(ctx1, mailbox);
      await dispatcher1.idle();
      // Committed, then the process "dies" before announcing it: no event reaches a dispatcher.
      await receiveMail(ctx1, mailbox, false);
      await dispatcher1.close();
      await dispatcher1.close(); // idempotent
      await first.close();
      expect(receiver.received).toHaveLength(1);

      const second = openSqliteStore(file);
      const ctx2 = context(second, clock, { webhookRetrySchedule: [5_000] });
      await using dispatcher2 = new WebhookDispatcher(ctx2).start();
      await dispatcher2.idle();
      expect(receiver.received).toHaveLength(2); // the never-tried one, at once

      clock.advance(5_000);
      await dispatcher2.idle();
      expect(receiver.received).toHaveLength(3); // the retry, on schedule
      expect(receiver.received.every((r) => r.verified === null)).toBe(true);
      const deliveries = await log(ctx2, webhook);
      expect(deliveries.map((d) => [d.status, d.attempts.map((a) => a.statusCode)])).toEqual([
        ['delivered', [200]],
        ['delivered', [503, 200]],
      ]);
      await dispatcher2.close();
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a delivery whose webhook was deleted is dropped', async () => {
    const ctx = context(store, clock);
    const { account, webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    receiver.script.push(500);
    await using dispatcher = new WebhookDispatcher(ctx).start();

    await receiveMail(ctx, mailbox);
    await dispatcher.idle();
    expect(await store.deleteWebhook(account.id, webhook.id)).toBe(true);
    clock.advance(1_000);
    await dispatcher.idle();

    expect(receiver.received).toHaveLength(1);
    expect(await store.nextDeliveryDue()).toBeNull();
  });

  test('a webhook deleted while an attempt is in flight gets no retry', async () => {
    const ctx = context(store, clock);
    const { account, webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    receiver.hold();
    await using dispatcher = new WebhookDispatcher(ctx).start();

    await receiveMail(ctx, mailbox);
    await receiver.arrived(1);
    expect(await store.deleteWebhook(account.id, webhook.id)).toBe(true);
    receiver.release(500);
    await dispatcher.idle();
    clock.advance(60_000);
    await dispatcher.idle();

    expect(receiver.received).toHaveLength(1);
    expect(await store.nextDeliveryDue()).toBeNull();
  });

  test('bounds the attempts in flight', async () => {
    const ctx = context(store, clock, { webhookTimeoutMs: 10_000 });
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    receiver.hold();
    for (let i = 0; i < 10; i++) await receiveMail(ctx, mailbox, false);
    await using dispatcher = new WebhookDispatcher(ctx, { concurrency: 3 }).start();

    // Three reach the receiver and wait there; the other seven are not even claimed.
    await receiver.arrived(3);
    const waiting = (await log(ctx, webhook)).filter((d) => d.nextAttemptAt === new Date(clock.now()).toISOString());
    expect(waiting).toHaveLength(7);
    expect(receiver.received).toHaveLength(3);

    receiver.release();
    await dispatcher.idle();
    expect(receiver.received).toHaveLength(10);
    expect((await log(ctx, webhook)).every((d) => d.status === 'delivered')).toBe(true);
  });

  test('on the sole instance of a store, what a commit owes is sent without a claim; past the bound, the rest wait for one', async () => {
    const ctx = context(store, clock, { webhookTimeoutMs: 10_000 });
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    let claims = 0;
    const claim = store.claimDueDeliveries.bind(store);
    store.claimDueDeliveries = (...args) => (claims++, claim(...args));
    await using dispatcher = new WebhookDispatcher(ctx, { concurrency: 2 }).start();
    await dispatcher.idle();
    claims = 0;

    // Held at the receiver: what reached it was sent before any look at the store.
    receiver.hold();
    await receiveMail(ctx, mailbox);
    await receiveMail(ctx, mailbox);
    await receiver.arrived(2);
    expect(claims).toBe(0);
    // Two in flight fill the bound: the third commit's delivery is claimed once one ends.
    await receiveMail(ctx, mailbox);
    receiver.release();
    await receiver.arrived(3);
    receiver.release();
    await receiveMail(ctx, mailbox);
    await dispatcher.idle();
    expect(receiver.received).toHaveLength(4);
    expect(claims).toBeGreaterThan(0);
    // Each delivery was attempted once, whichever way it went.
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(4);
    expect((await log(ctx, webhook)).map((d) => [d.status, d.attempts.length])).toEqual(Array(4).fill(['delivered', 1]));
  });

  test("another instance's commit that owes deliveries is looked at once within a second, for all announced meanwhile; not at once", async () => {
    const ctx = context(store, clock);
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    let claims = 0;
    const claim = store.claimDueDeliveries.bind(store);
    store.claimDueDeliveries = (...args) => (claims++, claim(...args));
    await using dispatcher = new WebhookDispatcher(ctx).start();
    await dispatcher.idle();
    claims = 0;
    // Committed elsewhere (not announced here by the commit): only the fleet's announcements tell.
    for (let i = 0; i < 3; i++) {
      const copy = await receiveMail(ctx, mailbox, false);
      ctx.bus.emit('message.stored', copy.message, [], true);
    }
    await dispatcher.idle();
    expect(claims).toBe(0);
    expect(receiver.received).toHaveLength(0);
    clock.advance(999);
    await dispatcher.idle();
    expect(claims).toBe(0);
    clock.advance(1);
    await expect.poll(() => receiver.received.length).toBe(3);
    await dispatcher.idle();
    expect(claims).toBeGreaterThan(0); // one look claims all three (each attempt that ends looks again)
    expect((await log(ctx, webhook)).map((d) => d.status)).toEqual(['delivered', 'delivered', 'delivered']);
  });

  test('close() stops delivering; a scheduled delivery stays pending', async () => {
    const ctx = context(store, clock);
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    const dispatcher = new WebhookDispatcher(ctx).start();
    await dispatcher.close();
    await receiveMail(ctx, mailbox);
    clock.advance(60_000);
    await dispatcher.idle();
    expect(receiver.received).toHaveLength(0);
    expect((await log(ctx, webhook))[0]!.status).toBe('pending');
  });
});

test.describe('webhook routing', () => {
  const hook = (id: string, catchAll = true) => ({ id, catchAll });

  test('a bound mailbox goes to its webhook only, while that webhook exists', () => {
    expect(webhookTargets({ webhookId: 'wh_b' }, [hook('wh_a'), hook('wh_b')], new Set(['wh_b']))).toEqual(['wh_b']);
    expect(webhookTargets({ webhookId: 'wh_gone' }, [hook('wh_a')], new Set())).toEqual([]);
  });

  test('an unbound mailbox goes to every catch-all webhook no live mailbox is bound to, oldest first', () => {
    const webhooks = [hook('wh_1'), hook('wh_private', false), hook('wh_bound'), hook('wh_2')];
    expect(webhookTargets({ webhookId: null }, webhooks, new Set(['wh_bound']))).toEqual(['wh_1', 'wh_2']);
  });

  test('ingestion commits the routed deliveries with the message, from the store as it is', async () => {
    const ctx = context(store, clock);
    const now = clock.now();
    const { account, webhook: bound, mailbox: boundBox } = await seed(ctx, receiver.url);
    const catchAll = await store.createWebhook({ accountId: account.id, url: receiver.url, secret: generateWebhookSecret(), catchAll: true, now });
    const plain = await store.createMailbox({ accountId: account.id, address: 'plain@mailwright.test', webhookId: null, createdAt: now, expiresAt: now + 60_000 }, now);

    const recipients = await Promise.all([boundBox, plain].map(async (m) => (await store.findMailboxByAddress(m.address, now))!));
    const copies = await store.insertMessage(planCopies(recipients), MESSAGE, now);
    expect(copies.map((c) => [c.message.mailboxId, c.deliveries.map((d) => d.webhookId)])).toEqual([
      [boundBox.id, [bound.id]],
      [plain.id, [catchAll.id]],
    ]);
    expect((await log(ctx, catchAll)).map((d) => [d.mailboxId, d.status])).toEqual([[plain.id, 'pending']]);
  });

  test('routing reads nothing beyond the recipient look-up, and routes to a webhook made before the look-up', async () => {
    const now = clock.now();
    const account = await store.createAccount({ email: 'plain@example.test', role: 'user', isAdmin: false, passwordHash: null, now });
    await store.createMailbox({ accountId: account.id, address: 'nohooks@mailwright.test', webhookId: null, createdAt: now, expiresAt: now + 60_000 }, now);
    const before = (await store.findMailboxByAddress('nohooks@mailwright.test', now))!;
    const hook = await store.createWebhook({ accountId: account.id, url: receiver.url, secret: generateWebhookSecret(), catchAll: true, now });
    expect(planCopies([before])).toEqual([{ mailboxId: before.id, webhookIds: [] }]);
    const after = (await store.findMailboxByAddress('nohooks@mailwright.test', now))!;
    expect(planCopies([after])).toEqual([{ mailboxId: after.id, webhookIds: [hook.id] }]);
    const bound = await store.createMailbox({ accountId: account.id, address: 'bound@mailwright.test', webhookId: hook.id, createdAt: now, expiresAt: now + 1_000 }, now);
    expect(planCopies([(await store.findMailboxByAddress('nohooks@mailwright.test', now))!, (await store.findMailboxByAddress(bound.address, now))!]))
      .toEqual([{ mailboxId: after.id, webhookIds: [] }, { mailboxId: bound.id, webhookIds: [hook.id] }]);
    expect(planCopies([(await store.findMailboxByAddress('nohooks@mailwright.test', now + 1_000))!])).toEqual([{ mailboxId: after.id, webhookIds: [hook.id] }]);
  });
});

test.describe('sendTestEvent', () => {
  test('sends one signed webhook.test and logs it as delivered', async () => {
    const ctx = context(store, clock);
    const { webhook } = await seed(ctx, receiver.url);
    secret = webhook.secret;

    const result = await sendTestEvent(ctx, webhook);

    expect(result).toEqual({ delivered: true, statusCode: 200, durationMs: expect.any(Number), error: null });
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.verified).toBeNull();
    const event = JSON.parse(receiver.received[0]!.body) as WebhookTestEvent;
    expect(event).toEqual({ type: 'webhook.test', timestamp: new Date(clock.now()).toISOString(), data: { webhookId: webhook.id, nonce: expect.any(String) } });
    const [delivery] = await log(ctx, webhook);
    expect(delivery).toMatchObject({ id: receiver.received[0]!.headers['webhook-id'], event: 'webhook.test', status: 'delivered', messageId: null, mailboxId: null });
    expect(delivery!.attempts).toHaveLength(1);
  });

  test('a failing receiver is reported and logged as failed, without retries', async () => {
    const ctx = context(store, clock);
    const { webhook } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    receiver.script.push(500);
    await using dispatcher = new WebhookDispatcher(ctx).start();

    const result = await sendTestEvent(ctx, webhook);
    clock.advance(60_000);
    await dispatcher.idle();

    expect(result).toEqual({ delivered: false, statusCode: 500, durationMs: expect.any(Number), error: 'HTTP 500' });
    expect(receiver.received).toHaveLength(1);
    const [delivery] = await log(ctx, webhook);
    expect(delivery).toMatchObject({ event: 'webhook.test', status: 'failed', nextAttemptAt: null, attempts: [{ attempt: 1, statusCode: 500, ok: false }] });
  });

  test('an unreachable receiver says so', async () => {
    const ctx = context(store, clock);
    const { webhook } = await seed(ctx, refusing.url());
    const result = await sendTestEvent(ctx, webhook);
    expect(result).toMatchObject({ delivered: false, statusCode: null, error: 'connection refused' });
  });

  test('a loopback target is refused when the server listens publicly', async () => {
    const ctx = context(store, clock, { host: '0.0.0.0', allowPrivateWebhooks: false });
    const { webhook } = await seed(ctx, receiver.url);
    const result = await sendTestEvent(ctx, webhook);
    expect(result.delivered).toBe(false);
    expect(result.error).toContain('--allow-private-webhooks');
    expect(receiver.received).toHaveLength(0);
  });
});
