// Unit tests of the sweeper: expired mailboxes go with their messages and pending
// deliveries, live ones stay; the interval is driven by a fake clock.
import { test, expect } from '@playwright/test';
import { pino } from 'pino';
import { generateWebhookSecret } from '../../src/protocol/index.js';
import { DEFAULT_ROLES, type Clock, type ResolvedConfig, type ServiceContext } from '../../src/server/context.js';
import { ServiceBus } from '../../src/server/events.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import type { NewMessage, Store } from '../../src/server/store/store.js';
import { Sweeper } from '../../src/server/sweeper/sweeper.js';

class FakeClock implements Clock {
  #now = Date.UTC(2030, 0, 1);
  #seq = 0;
  readonly timers = new Map<number, { at: number; fn: () => void }>();
  now() {
    return this.#now;
  }
  setTimeout(fn: () => void, ms: number) {
    const id = ++this.#seq;
    this.timers.set(id, { at: this.#now + ms, fn });
    return { id, unref() {} };
  }
  clearTimeout(handle: unknown) {
    this.timers.delete((handle as { id: number }).id);
  }
  advance(ms: number) {
    this.#now += ms;
    for (const [id, timer] of [...this.timers]) {
      if (timer.at > this.#now) continue;
      this.timers.delete(id);
      timer.fn();
    }
  }
}

const MESSAGE: NewMessage = {
  from: null, to: [], cc: [], subject: 'hello', headers: {}, text: 'hello', html: null, attachments: [],
  raw: Buffer.from('Subject: hello\r\n\r\nhello\r\n'),
};

function context(store: Store, clock: Clock, sweepIntervalMs = 30_000): ServiceContext {
  const config: ResolvedConfig = {
    host: '127.0.0.1', httpPort: 0, smtpPort: 0, data: ':memory:', databaseUrl: null, domains: ['mailwright.test'],
    apiKey: null, logLevel: 'silent', roles: { ...DEFAULT_ROLES }, maxMessageSize: 1024 * 1024,
    sweepIntervalMs, webhookTimeoutMs: 5_000, webhookRetrySchedule: [1_000], allowPrivateWebhooks: false,
  };
  return { config, store, bus: new ServiceBus(), log: pino({ level: 'silent' }), clock };
}

/** Two mailboxes bound to one webhook, one living a minute and one a day, each with mail and a pending delivery. */
async function seed(ctx: ServiceContext) {
  const now = ctx.clock.now();
  const account = await ctx.store.createAccount({ email: 'sweep@example.com', role: 'civilian', isAdmin: false, passwordHash: null, now });
  const webhook = await ctx.store.createWebhook({ accountId: account.id, url: 'http://127.0.0.1:9/hook', secret: generateWebhookSecret(), catchAll: true, now });
  const box = (name: string, lifetime: number) =>
    ctx.store.createMailbox({ accountId: account.id, address: `${name}@mailwright.test`, webhookId: null, createdAt: now, expiresAt: now + lifetime }, now);
  const shortLived = await box('short', 60_000);
  const longLived = await box('long', 86_400_000);
  for (const mailbox of [shortLived, longLived]) {
    await ctx.store.insertMessage([mailbox.id], MESSAGE, now, () => '{}');
    await ctx.store.insertMessage([mailbox.id], MESSAGE, now, () => '{}');
  }
  return { account, webhook, shortLived, longLived };
}

test.describe('Sweeper', () => {
  let store: Store;
  let clock: FakeClock;

  test.beforeEach(() => {
    store = openSqliteStore(':memory:');
    clock = new FakeClock();
  });
  test.afterEach(async () => {
    await store.close();
  });

  test('removes an expired mailbox with its messages and pending deliveries, keeps the live one', async () => {
    const ctx = context(store, clock);
    const { account, webhook, shortLived, longLived } = await seed(ctx);
    await using sweeper = new Sweeper(ctx);

    expect(await sweeper.sweepNow()).toEqual({ mailboxes: 0, messages: 0, deliveries: 0 });

    clock.advance(60_000);
    expect(await sweeper.sweepNow()).toEqual({ mailboxes: 1, messages: 2, deliveries: 2 });

    expect(await store.countMailboxMessages(shortLived.id)).toBe(0);
    expect(await store.getMailbox(account.id, shortLived.id, 0)).toBeNull(); // gone, not merely expired
    expect(await store.getMailbox(account.id, longLived.id, clock.now())).not.toBeNull();
    expect(await store.countMailboxMessages(longLived.id)).toBe(2);
    const deliveries = await store.listDeliveries(webhook.id, 50);
    expect(deliveries.map((d) => d.mailboxId)).toEqual([longLived.id, longLived.id]);
  });

  test('sweeps every interval once started, and not after close()', async () => {
    const ctx = context(store, clock, 10_000);
    const { account, shortLived, longLived } = await seed(ctx);
    const sweeper = new Sweeper(ctx).start();
    sweeper.start(); // idempotent: still one timer
    expect(clock.timers.size).toBe(1);

    clock.advance(60_000); // the first sweep is due at 10 s, the mailbox expires at 60 s
    await sweeper.sweepNow();
    expect(await store.getMailbox(account.id, shortLived.id, 0)).toBeNull();
    expect(clock.timers.size).toBe(1); // re-armed for the next interval

    await sweeper.close();
    await sweeper.close();
    expect(clock.timers.size).toBe(0);
    clock.advance(86_400_000);
    expect(await store.getMailbox(account.id, longLived.id, 0)).not.toBeNull();
  });

  test('a failing sweep keeps the interval going', async () => {
    const ctx = context(store, clock, 10_000);
    let calls = 0;
    const sweep = store.sweepExpired.bind(store);
    store.sweepExpired = async (now) => {
      if (++calls === 1) throw new Error('disk full');
      return sweep(now);
    };
    await using sweeper = new Sweeper(ctx).start();
    clock.advance(10_000);
    await expect(sweeper.sweepNow()).rejects.toThrow('disk full');
    await new Promise((resolve) => setImmediate(resolve));
    expect(clock.timers.size).toBe(1);
    clock.advance(10_000);
    await sweeper.sweepNow();
    expect(calls).toBe(2);
  });
});
