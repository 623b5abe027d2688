// Unit tests of the sweeper: expired mailboxes go with their messages and pending
// deliveries, live ones stay; the interval is driven by a fake clock.
import { test, expect } from '@playwright/test';
import { pino } from 'pino';
import { generateWebhookSecret } from '../../src/protocol/index.js';
import type { ServiceContext } from '../../src/server/context.js';
import { planCopies } from '../../src/server/delivery/routing.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import type { NewMessage, Store } from '../../src/server/store/store.js';
import { Sweeper } from '../../src/server/sweeper/sweeper.js';
import { FakeClock } from '../helpers/clock.js';
import { testContext } from '../helpers/service-context.js';

const MESSAGE: NewMessage = {
  from: null, to: [], cc: [], subject: 'hello',
  raw: Buffer.from('Subject: hello\r\n\r\nhello\r\n'),
};

/**
 * Lets a sweep the fake clock started finish, with what follows it (re-arming the timer): the
 * SQLite store works synchronously, so the rest is promise callbacks, all run before this.
 */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** An account with a catch-all webhook (no dispatcher runs: it is never called); `mailbox(name, lifetime)` makes a mailbox holding two messages, each with a pending delivery. */
async function seed(ctx: ServiceContext) {
  const now = ctx.clock.now();
  const account = await ctx.store.createAccount({ email: 'sweep@example.com', role: 'civilian', isAdmin: false, passwordHash: null, now });
  const webhook = await ctx.store.createWebhook({ accountId: account.id, url: 'https://hooks.example.test/never-called', secret: generateWebhookSecret(), catchAll: true, now });
  const mailbox = async (name: string, lifetime: number) => {
    const at = ctx.clock.now();
    const box = await ctx.store.createMailbox({ accountId: account.id, address: `${name}@mailwright.test`, webhookId: null, createdAt: at, expiresAt: at + lifetime }, at);
    for (let i = 0; i < 2; i++) await ctx.store.insertMessage(planCopies([(await ctx.store.findMailboxByAddress(box.address, at))!]), MESSAGE, at);
    return box;
  };
  /** Whether the mailbox is still in the store at all, expired or not. */
  const kept = async (id: string) => (await ctx.store.getMailbox(account.id, id, 0)) !== null;
  return { account, webhook, mailbox, kept };
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
    const ctx = testContext(store, clock);
    const { account, webhook, mailbox } = await seed(ctx);
    const shortLived = await mailbox('short', 60_000);
    const longLived = await mailbox('long', 86_400_000);
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

  test('once started, sweeps on every interval by itself, and not after close()', async () => {
    const ctx = testContext(store, clock, { sweepIntervalMs: 10_000 });
    const { mailbox, kept } = await seed(ctx);
    const first = await mailbox('first', 15_000);
    const sweeper = new Sweeper(ctx).start();
    sweeper.start(); // idempotent: still one sweep per interval

    clock.advance(9_999);
    await settle();
    clock.advance(1); // the first interval: nothing has expired yet
    await settle();
    expect(await kept(first.id)).toBe(true);
    clock.advance(10_000); // the second: `first` expired at 15 s
    await settle();
    expect(await kept(first.id)).toBe(false);

    const second = await mailbox('second', 5_000);
    clock.advance(10_000); // and the third
    await settle();
    expect(await kept(second.id)).toBe(false);

    await sweeper.close();
    await sweeper.close(); // idempotent
    const third = await mailbox('third', 5_000);
    clock.advance(86_400_000);
    await settle();
    expect(await kept(third.id)).toBe(true);
  });

  test('a failing sweep is logged and the next interval sweeps again', async () => {
    const lines: Array<{ msg: string; err?: { message: string } }> = [];
    const ctx: ServiceContext = {
      ...testContext(store, clock, { sweepIntervalMs: 10_000 }),
      log: pino({ level: 'error' }, { write: (line: string) => void lines.push(JSON.parse(line)) }),
    };
    const { mailbox, kept } = await seed(ctx);
    const box = await mailbox('box', 5_000);
    // A store whose first sweep fails (a full disk, say), then recovers.
    let failures = 1;
    const flaky = new Proxy(store, {
      get(target, key) {
        if (key === 'sweepExpired') return async (now: number) => (failures-- > 0 ? Promise.reject(new Error('disk full')) : target.sweepExpired(now));
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await using _sweeper = new Sweeper({ ...ctx, store: flaky }).start();

    clock.advance(10_000);
    await settle();
    expect(lines.map((l) => [l.msg, l.err?.message])).toEqual([['sweep failed; trying again in 10000 ms', 'disk full']]);
    expect(await kept(box.id)).toBe(true);

    clock.advance(10_000);
    await settle();
    expect(await kept(box.id)).toBe(false);
  });
});
