// Unit tests of webhook delivery: a real SQLite store, a real local receiver, a fake clock
// that drives the retry schedule (no sleeps), and the delivery log as the observable.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { pino } from 'pino';
import { generateWebhookSecret, verifyWebhook, type MessageReceivedEvent, type WebhookTestEvent } from '../../src/protocol/index.js';
import { DEFAULT_ROLES, type Clock, type ResolvedConfig, type ServiceContext } from '../../src/server/context.js';
import { WebhookDispatcher, sendTestEvent, toDeliveryDto } from '../../src/server/delivery/dispatcher.js';
import { messageReceivedPayload } from '../../src/server/dto.js';
import { ServiceBus } from '../../src/server/events.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import type { NewMessage, Store, WebhookRecord } from '../../src/server/store/store.js';

// ---- helpers ------------------------------------------------------------------------------

/** A clock that moves only when told; due timers fire on `advance`. */
class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  readonly timers = new Map<number, { at: number; fn: () => void }>();
  constructor(start = Date.UTC(2030, 0, 1)) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  setTimeout(fn: () => void, ms: number) {
    const id = ++this.#seq;
    this.timers.set(id, { at: this.#now + ms, fn });
    return { id, unref() {} };
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete((handle as { id: number }).id);
  }
  advance(ms: number): void {
    this.#now += ms;
    for (const [id, timer] of [...this.timers].sort((a, b) => a[1].at - b[1].at)) {
      if (timer.at > this.#now) continue;
      this.timers.delete(id);
      timer.fn();
    }
  }
}

type Answer = number | 'hang';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  verified: ReturnType<typeof verifyWebhook>;
}

/** A local webhook receiver that verifies signatures and answers from a script (then 200). */
async function startReceiver(secret: () => string, clock: Clock, script: Answer[] = []) {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers, body, verified: verifyWebhook(secret(), req.headers, body, { now: clock.now() }) });
      for (const w of waiters.splice(0)) w();
      const answer = script.shift() ?? 200;
      if (answer === 'hang') return;
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    script,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A URL on 127.0.0.1 where nothing listens. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hook`;
}

function config(overrides: Partial<ResolvedConfig> = {}): ResolvedConfig {
  return {
    host: '127.0.0.1', httpPort: 0, smtpPort: 0, data: ':memory:', databaseUrl: null, domains: ['mailwright.test'],
    apiKey: null, logLevel: 'silent', roles: { ...DEFAULT_ROLES }, maxMessageSize: 10 * 1024 * 1024,
    sweepIntervalMs: 30_000, webhookTimeoutMs: 5_000, webhookRetrySchedule: [1_000, 2_000], allowPrivateWebhooks: false,
    ...overrides,
  };
}

function context(store: Store, clock: Clock, overrides: Partial<ResolvedConfig> = {}): ServiceContext {
  return { config: config(overrides), store, bus: new ServiceBus(), log: pino({ level: 'silent' }), clock };
}

const MESSAGE: NewMessage = {
  from: { address: 'app@example.com', name: 'App' },
  to: [{ address: 'user@mailwright.test', name: '' }],
  cc: [],
  subject: 'Your code is 123456',
  headers: { subject: 'Your code is 123456' },
  text: 'Your code is 123456',
  html: null,
  attachments: [],
  raw: Buffer.from('Subject: Your code is 123456\r\n\r\nYour code is 123456\r\n'),
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

/** Stores a message as ingestion does (deliveries in the same transaction) and announces it. */
async function receiveMail(ctx: ServiceContext, mailboxId: string) {
  const now = ctx.clock.now();
  const [copy] = await ctx.store.insertMessage([mailboxId], MESSAGE, now, (m) => messageReceivedPayload(m, now));
  ctx.bus.emit('delivery.scheduled', copy!.deliveries);
  return copy!;
}

async function log(ctx: ServiceContext, webhook: WebhookRecord) {
  return (await ctx.store.listDeliveries(webhook.id, 50)).map(toDeliveryDto);
}

// ---- tests --------------------------------------------------------------------------------

// Every test gets a fake clock, a fresh in-memory store and a signature-checking receiver.
let clock: FakeClock;
let store: Store;
let secret = '';
let receiver: Awaited<ReturnType<typeof startReceiver>>;

test.beforeEach(async () => {
  clock = new FakeClock();
  store = openSqliteStore(':memory:');
  receiver = await startReceiver(() => secret, clock);
});
test.afterEach(async () => {
  await receiver.close();
  await store.close();
});

test.describe('WebhookDispatcher', () => {
  test('delivers a signed message.received on the first try', async () => {
    const ctx = context(store, clock);
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    await using dispatcher = new WebhookDispatcher(ctx).start();

    const copy = await receiveMail(ctx, mailbox.id);
    await dispatcher.idle();

    expect(receiver.received).toHaveLength(1);
    const [call] = receiver.received;
    expect(call!.verified).toBeNull();
    expect(call!.headers['webhook-id']).toBe(copy.deliveries[0]!.id);
    expect(call!.headers['content-type']).toBe('application/json');
    expect(call!.headers['user-agent']).toBe('mailwright');
    const event = JSON.parse(call!.body) as MessageReceivedEvent;
    expect(event.type).toBe('message.received');
    expect(event.data).toMatchObject({ id: copy.message.id, mailboxId: mailbox.id, subject: 'Your code is 123456', text: 'Your code is 123456' });

    const [delivery] = await log(ctx, webhook);
    expect(delivery).toMatchObject({ status: 'delivered', nextAttemptAt: null, messageId: copy.message.id, event: 'message.received' });
    expect(delivery!.attempts).toEqual([{ attempt: 1, at: new Date(clock.now()).toISOString(), durationMs: expect.any(Number), statusCode: 200, error: null, ok: true }]);
  });

  test('retries a 500 on the schedule, with the same webhook-id and a fresh signature', async () => {
    const ctx = context(store, clock, { webhookRetrySchedule: [1_000, 2_000] });
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    receiver.script.push(500, 500);
    await using dispatcher = new WebhookDispatcher(ctx).start();

    await receiveMail(ctx, mailbox.id);
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

    await receiveMail(ctx, mailbox.id);
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

  test('connection refused is retried until the schedule is exhausted, then failed', async () => {
    const ctx = context(store, clock, { webhookRetrySchedule: [100, 200] });
    const { webhook, mailbox } = await seed(ctx, await closedPortUrl());
    await using dispatcher = new WebhookDispatcher(ctx).start();

    await receiveMail(ctx, mailbox.id);
    await dispatcher.idle();
    clock.advance(100);
    await dispatcher.idle();
    clock.advance(200);
    await dispatcher.idle();

    const [delivery] = await log(ctx, webhook);
    expect(delivery).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(delivery!.attempts.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
      [1, null, 'connection refused'],
      [2, null, 'connection refused'],
      [3, null, 'connection refused'],
    ]);
    expect(await store.nextDeliveryDue()).toBeNull();
    expect(clock.timers.size).toBeLessThanOrEqual(1); // only the idle look at the store
  });

  test('a non-2xx answer after the last retry fails the delivery', async () => {
    const ctx = context(store, clock, { webhookRetrySchedule: [] });
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    receiver.script.push(404);
    await using dispatcher = new WebhookDispatcher(ctx).start();

    await receiveMail(ctx, mailbox.id);
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
      await receiveMail(ctx1, mailbox.id);
      await dispatcher1.idle();
      // Committed while nothing listens: no bus event reaches a dispatcher.
      const now = clock.now();
      await first.insertMessage([mailbox.id], MESSAGE, now, (m) => messageReceivedPayload(m, now));
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

    await receiveMail(ctx, mailbox.id);
    await dispatcher.idle();
    expect(await store.deleteWebhook(account.id, webhook.id)).toBe(true);
    clock.advance(1_000);
    await dispatcher.idle();

    expect(receiver.received).toHaveLength(1);
    expect(await store.nextDeliveryDue()).toBeNull();
  });

  test('a delivery claimed before its webhook disappeared is closed, not sent', async () => {
    const ctx = context(store, clock);
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    const copy = await receiveMail(ctx, mailbox.id);
    // Simulate a store without cascading deletes: the webhook lookup comes back empty.
    const lookup = store.getWebhookById.bind(store);
    store.getWebhookById = async () => null;
    try {
      await using dispatcher = new WebhookDispatcher(ctx).start();
      await dispatcher.idle();
    } finally {
      store.getWebhookById = lookup;
    }
    expect(receiver.received).toHaveLength(0);
    const [delivery] = await log(ctx, webhook);
    expect(delivery).toMatchObject({ id: copy.deliveries[0]!.id, status: 'failed' });
    expect(delivery!.attempts[0]!.error).toContain('was deleted');
  });

  test('bounds the attempts in flight', async () => {
    const ctx = context(store, clock, { webhookTimeoutMs: 1_000 });
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    let inFlight = 0;
    let peak = 0;
    const getWebhook = store.getWebhookById.bind(store);
    store.getWebhookById = async (id) => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return getWebhook(id);
    };
    const now = clock.now();
    for (let i = 0; i < 10; i++) await store.insertMessage([mailbox.id], MESSAGE, now, (m) => messageReceivedPayload(m, now));
    await using dispatcher = new WebhookDispatcher(ctx, { concurrency: 3 }).start();
    await dispatcher.idle();

    expect(peak).toBe(3);
    expect(receiver.received).toHaveLength(10);
    expect((await log(ctx, webhook)).every((d) => d.status === 'delivered')).toBe(true);
  });

  test('close() stops delivering; a scheduled delivery stays pending', async () => {
    const ctx = context(store, clock);
    const { webhook, mailbox } = await seed(ctx, receiver.url);
    secret = webhook.secret;
    const dispatcher = new WebhookDispatcher(ctx).start();
    await dispatcher.close();
    await receiveMail(ctx, mailbox.id);
    clock.advance(60_000);
    await dispatcher.idle();
    expect(receiver.received).toHaveLength(0);
    expect((await log(ctx, webhook))[0]!.status).toBe('pending');
    expect(clock.timers.size).toBe(0);
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
    const { webhook } = await seed(ctx, await closedPortUrl());
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
