// The store contract: one suite, run against every backend — SQLite always, Postgres when
// MAILWRIGHT_TEST_DATABASE_URL names a database (each run in a fresh schema). What one
// backend promises, the other must keep, including under concurrent callers.
import { expect, test } from '@playwright/test';
import pg from 'pg';
import { openPostgresStore } from '../../src/server/store/postgres.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import { MailboxLimitError, StoreConflictError, type NewMessage, type Store } from '../../src/server/store/store.js';
import { freshSchema, NO_POSTGRES, REQUIRE_POSTGRES, TEST_DATABASE_URL, type FreshSchema } from '../helpers/postgres.js';

interface Backend {
  name: string;
  available: boolean;
  /** Opens `count` stores on one fresh database (several instances of a fleet for Postgres; one store for SQLite). */
  open(count: number): Promise<{ stores: Store[]; close(): Promise<void> }>;
}

const BACKENDS: Backend[] = [
  {
    name: 'sqlite',
    available: true,
    async open() {
      const store = openSqliteStore(':memory:');
      return { stores: [store], close: () => store.close() };
    },
  },
  {
    name: 'postgres',
    available: TEST_DATABASE_URL !== undefined || REQUIRE_POSTGRES,
    async open(count) {
      const schema: FreshSchema = await freshSchema();
      const stores = await Promise.all(Array.from({ length: count }, () => openPostgresStore(schema.url)));
      return {
        stores,
        async close() {
          for (const store of stores) await store.close();
          await schema.drop();
        },
      };
    },
  },
];

const NOW = Date.UTC(2030, 0, 1);
const HOUR = 3_600_000;
const mail = (subject: string): NewMessage => ({
  from: { address: 'app@example.com', name: 'App' }, to: [{ address: 'x@mailwright.test', name: '' }], cc: [], subject,
  raw: Buffer.from(`Subject: ${subject}\r\n\r\ntext of ${subject}`),
});

/**
 * Inserts and resolves once readers see the copies: PostgreSQL's cursor reads stop at its
 * visibility horizon, which a transaction elsewhere on a shared server may hold a moment past
 * the insert's answer (SQLite tells before it answers).
 */
async function insert(store: Store, copies: Parameters<Store['insertMessage']>[0], message: NewMessage, now: number) {
  let seen: () => void = () => {};
  const announced = new Promise<void>((resolve) => (seen = resolve));
  const inserted = await store.insertMessage(copies, message, now, () => seen());
  if (inserted.length > 0) await announced;
  return inserted;
}

for (const backend of BACKENDS) {
  test.describe(`store contract: ${backend.name}`, () => {
    test.skip(!backend.available, NO_POSTGRES);
    let stores: Store[];
    let close: () => Promise<void>;
    test.beforeEach(async () => {
      ({ stores, close } = await backend.open(2));
    });
    test.afterEach(() => close?.());
    /** The second instance where the backend is shared, else the same store. */
    const other = () => stores[1] ?? stores[0]!;

    async function account(email = 'qa@example.com') {
      return stores[0]!.createAccount({ email, role: 'civilian', isAdmin: false, passwordHash: null, now: NOW });
    }

    test('a store says whether other instances share it', () => {
      expect(stores[0]!.capabilities.sharedByInstances).toBe(backend.name === 'postgres');
    });

    test('accounts are unique by email, found case-insensitively, and take a password and a role', async () => {
      const a = await account('Mixed@Example.com');
      expect(a.email).toBe('mixed@example.com');
      await expect(account('mixed@example.com')).rejects.toBeInstanceOf(StoreConflictError);
      await expect(account('mixed@example.com')).rejects.toMatchObject({ code: 'MW_ERR_STORE_CONFLICT' });
      await other().setPassword(a.id, 'scrypt$x$y');
      expect(await other().setAccountRole(a.id, 'duke')).toBe(true);
      expect(await stores[0]!.getAccountByEmail('MIXED@example.com')).toMatchObject({ id: a.id, role: 'duke', passwordHash: 'scrypt$x$y' });
      expect(await stores[0]!.setAccountRole('acc_none', 'duke')).toBe(false);
      expect((await other().listAccounts(NOW)).map((x) => x.email)).toEqual(['mixed@example.com']);
    });

    test('keys: found by hash while live, revoked once, last use recorded', async () => {
      const a = await account();
      const key = await stores[0]!.createApiKey({ accountId: a.id, name: 'ci', prefix: 'mw_abcde', hash: 'h1', scopes: ['emails'], now: NOW });
      expect(await other().findApiKeyByHash('h1')).toMatchObject({ id: key.id, scopes: ['emails'], lastUsedAt: null, hash: 'h1' });
      await other().touchApiKey(key.id, NOW + 5);
      expect((await stores[0]!.listApiKeys(a.id))[0]!.lastUsedAt).toBe(NOW + 5);
      expect(await stores[0]!.revokeApiKey(key.id, NOW + 10)).toBe(true);
      expect(await other().revokeApiKey(key.id, NOW + 11)).toBe(false);
      expect(await other().findApiKeyByHash('h1')).toBeNull();
    });

    test('quota: concurrent calls on every instance never pass the allowance', async () => {
      const a = await account();
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % stores.length]!.consumeCall(a.id, '2030-01', 12)));
      expect(results.filter((r) => r.allowed)).toHaveLength(12);
      expect(await stores[0]!.getUsage(a.id, '2030-01')).toBe(12);
      expect(await other().consumeCall(a.id, '2030-01', null)).toEqual({ used: 13, allowed: true });
      expect(await other().consumeCall(a.id, '2030-02', 0)).toEqual({ used: 0, allowed: false });
    });

    test('a redeem code is used once, even when redeemed on several instances at once', async () => {
      const a = await account();
      await stores[0]!.createRedeemCode({ hash: 'code1', calls: 500, now: NOW });
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => stores[i % stores.length]!.redeemCode({ hash: 'code1', accountId: a.id, period: '2030-01', now: NOW })));
      expect(results.filter((r) => r === 500)).toHaveLength(1);
      expect(results.filter((r) => r === null)).toHaveLength(7);
      expect(await other().getTopUps(a.id, '2030-01')).toBe(500);
    });

    test('mailboxes: one live mailbox per address, an expired one is replaced, the live limit holds under concurrency', async () => {
      const a = await account();
      const box = (address: string, expiresAt = NOW + HOUR) => ({ accountId: a.id, address, webhookId: null, createdAt: NOW, expiresAt });
      await stores[0]!.createMailbox(box('One@mailwright.test', NOW + 10), NOW);
      await expect(other().createMailbox(box('one@mailwright.test'), NOW)).rejects.toBeInstanceOf(StoreConflictError);
      const replaced = await other().createMailbox(box('one@mailwright.test'), NOW + 20); // the first expired at NOW + 10
      expect((await stores[0]!.getMailbox(a.id, 'ONE@mailwright.test', NOW + 20))?.id).toBe(replaced.id);
      // Limit 4 live (one exists): of ten concurrent creations three succeed.
      const attempts = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => stores[i % stores.length]!.createMailbox(box(`b${i}@mailwright.test`), NOW + 20, 4)));
      expect(attempts.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
      for (const r of attempts) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(MailboxLimitError);
      expect(await other().countLiveMailboxes(a.id, NOW + 20)).toBe(4);
      // The same new address on two instances at once: one wins, the other is told it is taken.
      const race = await Promise.allSettled([stores[0]!.createMailbox(box('race@mailwright.test'), NOW + 20), other().createMailbox(box('race@mailwright.test'), NOW + 20)]);
      expect(race.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(race.find((r) => r.status === 'rejected')).toMatchObject({ reason: expect.any(StoreConflictError) });
    });

    test('messages: stored with their deliveries in one commit, read by cursor, newest first, whole and raw', async () => {
      const a = await account();
      const mb = await stores[0]!.createMailbox({ accountId: a.id, address: 'in@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW);
      const hook = await stores[0]!.createWebhook({ accountId: a.id, url: 'https://hooks.example/x', secret: 's', catchAll: true, now: NOW });
      const [first] = await insert(stores[0]!, [{ mailboxId: mb.id, webhookIds: [hook.id, 'wh_deleted'] }], mail('one'), NOW);
      expect(first!.deliveries.map((d) => d.webhookId)).toEqual([hook.id]);
      await insert(other(), [{ mailboxId: mb.id, webhookIds: [] }], mail('two'), NOW + 1);
      const all = await other().listMessages({ accountId: a.id, afterSeq: 0, limit: 10, includeBody: true, now: NOW + 2 });
      expect(all.map((m) => m.subject)).toEqual(['one', 'two']);
      expect(all[0]!.body?.text).toBe('text of one\n'); // read from the stored source by the MIME parser
      expect(await stores[0]!.maxSeq()).toBe(all[1]!.seq);
      expect((await stores[0]!.listMessages({ accountId: a.id, mailboxIds: [mb.id], afterSeq: all[0]!.seq, limit: 10, includeBody: false, now: NOW + 2 })).map((m) => m.subject)).toEqual(['two']);
      expect((await other().listMailboxMessages(mb.id, { limit: 10 })).map((m) => m.subject)).toEqual(['two', 'one']);
      expect(await other().countMailboxMessages(mb.id)).toBe(2);
      expect((await stores[0]!.getMessage(a.id, mb.id, first!.message.id))?.body?.headers).toEqual({ subject: 'one' });
      expect((await stores[0]!.getRawMessage(a.id, mb.id, first!.message.id))?.toString()).toContain('Subject: one');
      expect(await stores[0]!.getMessage('acc_other', mb.id, first!.message.id)).toBeNull();
      // An id is found only whole: another of the same shape, or a part of it, finds nothing.
      const id = first!.message.id;
      for (const wrong of [`${id.slice(0, -1)}${id.endsWith('a') ? 'b' : 'a'}`, id.slice(0, -1), `${id}x`, id.toUpperCase(), 'msg_nope', '']) {
        expect(await stores[0]!.getMessage(a.id, mb.id, wrong), wrong).toBeNull();
        expect(await stores[0]!.getRawMessage(a.id, mb.id, wrong), wrong).toBeNull();
      }
    });

    test('search: finds subject, sender, recipients and words of the source, in any case, literally, in the account\'s live mailboxes only', async () => {
      const a = await account();
      const b = await account('other@example.com');
      const box = (accountId: string, address: string, expiresAt = NOW + HOUR) => stores[0]!.createMailbox({ accountId, address, webhookId: null, createdAt: NOW, expiresAt }, NOW);
      const [inbox, spare, ending, theirs] = [await box(a.id, 'in@mailwright.test'), await box(a.id, 'spare@mailwright.test'), await box(a.id, 'ending@mailwright.test', NOW + 10), await box(b.id, 'theirs@mailwright.test')];
      const send = (mailboxId: string, message: NewMessage, at = NOW) => insert(stores[0]!, [{ mailboxId, webhookIds: [] }], message, at);
      const source = (headers: string, body: string) => Buffer.from(`${headers}\r\n\r\n${body}`);
      await send(inbox.id, {
        from: { address: 'signup@shop.example', name: 'Shop Team' }, to: [{ address: 'qa@mailwright.test', name: '' }], cc: [], subject: 'Welcome aboard',
        raw: source('From: Shop Team <signup@shop.example>\r\nTo: qa@mailwright.test\r\nSubject: Welcome aboard', 'Your spring sale code is 482913.\r\n'),
      });
      await send(inbox.id, {
        from: { address: 'billing@corp.example', name: '' }, to: [{ address: 'finance@mailwright.test', name: '' }], cc: [{ address: 'audit@corp.example', name: 'Audit' }],
        subject: 'Grüße and your receipt',
        raw: source('From: billing@corp.example\r\nTo: finance@mailwright.test\r\nCc: Audit <audit@corp.example>\r\nSubject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?= and your receipt\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable',
          'Caf=C3=A9 total 42 =E2=82=AC, reference Zebra-77, paid in full by a card ending =\r\nin 4242.\r\n'),
      });
      await send(spare.id, {
        from: { address: 'deals@shop.example', name: '' }, to: [{ address: 'spare@mailwright.test', name: '' }], cc: [], subject: 'Save 100% today',
        // Bytes that are not UTF-8 and a zero byte do not stop a search of the source.
        raw: Buffer.concat([source('From: deals@shop.example\r\nSubject: Save 100% today', 'Binary '), Buffer.from([0xff, 0xfe, 0, 0xc3]), Buffer.from(' then code SPRING_SALE and a \\ backslash\r\n')]),
      });
      await send(ending.id, { ...mail('Welcome to the ending box'), raw: source('Subject: Welcome to the ending box', 'gone soon') });
      await send(theirs.id, { ...mail('Welcome aboard'), raw: source('Subject: Welcome aboard', 'Your spring sale code is 999999.') });

      const subjects = async (query: string | undefined, more: { mailboxId?: string; now?: number; accountId?: string } = {}) =>
        (await other().searchMessages({ accountId: a.id, query, limit: 10, now: NOW + 20, ...more })).map((m) => m.subject);
      // Without a query: everything in the live mailboxes, newest first; the expired mailbox's mail only while it lived.
      expect(await subjects(undefined)).toEqual(['Save 100% today', 'Grüße and your receipt', 'Welcome aboard']);
      expect(await subjects('', { now: NOW + 5 })).toEqual(['Welcome to the ending box', 'Save 100% today', 'Grüße and your receipt', 'Welcome aboard']);
      expect(await subjects('welcome')).toEqual(['Welcome aboard']); // not another account's, not the expired mailbox's
      expect(await subjects('WELCOME', { now: NOW + 5 })).toEqual(['Welcome to the ending box', 'Welcome aboard']);
      expect(await subjects('welcome', { accountId: b.id })).toEqual(['Welcome aboard']);
      expect(await subjects('999999')).toEqual([]);
      expect(await subjects('Shop Team')).toEqual(['Welcome aboard']); // the sender's name
      expect(await subjects('SHOP.example')).toEqual(['Save 100% today', 'Welcome aboard']); // senders
      expect(await subjects('finance@mailwright')).toEqual(['Grüße and your receipt']); // a recipient
      expect(await subjects('audit@corp')).toEqual(['Grüße and your receipt']); // cc
      expect(await subjects('grüße')).toEqual(['Grüße and your receipt']); // the subject as decoded
      expect(await subjects('482913')).toEqual(['Welcome aboard']); // a 7bit body
      expect(await subjects('zebra-77')).toEqual(['Grüße and your receipt']); // a quoted-printable body
      expect(await subjects('then code spring_sale')).toEqual(['Save 100% today']); // after bytes not UTF-8 and a zero byte
      expect(await subjects('  a \\ backslash ')).toEqual(['Save 100% today']);
      // % and _ are taken literally.
      expect(await subjects('100%')).toEqual(['Save 100% today']);
      expect(await subjects('%')).toEqual(['Save 100% today']);
      expect(await subjects('1_0')).toEqual([]);
      expect(await subjects('g_s')).toEqual(['Save 100% today']); // not "spring sale"
      expect(await subjects('spring sale')).toEqual(['Welcome aboard']);
      // Within one mailbox.
      expect(await subjects(undefined, { mailboxId: spare.id })).toEqual(['Save 100% today']);
      expect(await subjects('shop.example', { mailboxId: inbox.id })).toEqual(['Welcome aboard']);
      expect(await subjects(undefined, { mailboxId: theirs.id })).toEqual([]); // another account's mailbox
      expect(await subjects(undefined, { mailboxId: ending.id })).toEqual([]); // expired
      // Bodies, read from the source, when asked.
      const [found] = await stores[0]!.searchMessages({ accountId: a.id, query: 'zebra', limit: 10, includeBody: true, now: NOW });
      expect(found).toMatchObject({ mailbox: 'in@mailwright.test', mailboxId: inbox.id, body: { text: expect.stringContaining('Café total 42 €, reference Zebra-77') } });
    });

    test('search pages newest first by seq, with and without a query', async () => {
      const a = await account();
      const mb = await stores[0]!.createMailbox({ accountId: a.id, address: 'pages@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW);
      for (let i = 1; i <= 7; i++) await insert(stores[i % stores.length]!, [{ mailboxId: mb.id, webhookIds: [] }], mail(i % 2 ? `odd ${i}` : `even ${i}`), NOW + i);
      const pages = async (query?: string) => {
        const all: string[][] = [];
        for (let beforeSeq: number | undefined; ;) {
          const page = await other().searchMessages({ accountId: a.id, query, beforeSeq, limit: 2, now: NOW + 10 });
          if (page.length === 0) return all;
          all.push(page.map((m) => m.subject));
          beforeSeq = page.at(-1)!.seq;
        }
      };
      expect(await pages()).toEqual([['odd 7', 'even 6'], ['odd 5', 'even 4'], ['odd 3', 'even 2'], ['odd 1']]);
      expect(await pages('ODD')).toEqual([['odd 7', 'odd 5'], ['odd 3', 'odd 1']]);
      expect((await stores[0]!.listMailboxMessages(mb.id, { limit: 3 })).map((m) => m.subject)).toEqual(['odd 7', 'even 6', 'odd 5']);
    });

    test('a seq is never given twice: a message stored after the newest were deleted comes after every one before', async () => {
      const a = await account();
      const old = await stores[0]!.createMailbox({ accountId: a.id, address: 'gone@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + 10 }, NOW);
      const live = await stores[0]!.createMailbox({ accountId: a.id, address: 'stays@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW);
      const [kept] = await insert(stores[0]!, [{ mailboxId: live.id, webhookIds: [] }], mail('kept'), NOW);
      const newest = [];
      for (const subject of ['n1', 'n2']) newest.push((await insert(stores[0]!, [{ mailboxId: old.id, webhookIds: [] }], mail(subject), NOW))[0]!.message);
      expect((await other().sweepExpired(NOW + 20)).messages).toBe(2);
      const [after] = await insert(other(), [{ mailboxId: live.id, webhookIds: [] }], mail('after'), NOW + 20);
      expect(after!.message.seq).toBeGreaterThan(newest[1]!.seq);
      expect(await stores[0]!.maxSeq()).toBe(after!.message.seq);
      const listed = await stores[0]!.listMessages({ accountId: a.id, afterSeq: kept!.message.seq, limit: 10, includeBody: false, now: NOW + 20 });
      expect(listed.map((m) => m.subject)).toEqual(['after']);
      expect((await stores[0]!.getMessage(a.id, live.id, after!.message.id))?.subject).toBe('after');
      expect(await stores[0]!.getMessage(a.id, old.id, newest[1]!.id)).toBeNull();
    });

    test('a message is announced once committed (readable then; on SQLite before the insert resolves); not when it fails', async () => {
      const a = await account();
      const mb = await stores[0]!.createMailbox({ accountId: a.id, address: 'told@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW);
      const order: string[] = [];
      let readable: Promise<string[]> | undefined;
      const inserted = stores[0]!.insertMessage([{ mailboxId: mb.id, webhookIds: [] }], mail('told'), NOW, (copies) => {
        order.push(`committed ${copies.map((c) => c.message.subject).join()}`);
        readable = other().listMessages({ accountId: a.id, mailboxIds: [mb.id], afterSeq: 0, limit: 10, includeBody: false, now: NOW }).then((ms) => ms.map((m) => m.subject));
      }).then((copies) => order.push(`resolved ${copies.length}`));
      await inserted;
      // PostgreSQL announces once every transaction begun before has ended (its visibility
      // horizon), which a transaction elsewhere on the server may hold past the insert's answer.
      if (backend.name === 'sqlite') expect(order).toEqual(['committed told', 'resolved 1']);
      else await expect.poll(() => [...order].sort()).toEqual(['committed told', 'resolved 1']);
      expect(await readable).toEqual(['told']);
      let told = false;
      await expect(stores[0]!.insertMessage([{ mailboxId: mb.id, webhookIds: [] }], { ...mail('bad'), raw: null as unknown as Buffer }, NOW, () => (told = true))).rejects.toThrow();
      expect(told).toBe(false);
    });

    test('deliveries: a due one is leased to one claimer, attempts are logged, pending ones can be failed', async () => {
      const a = await account();
      const hook = await stores[0]!.createWebhook({ accountId: a.id, url: 'https://hooks.example/x', secret: 's', catchAll: true, now: NOW });
      for (let i = 0; i < 6; i++) await stores[0]!.createDelivery({ webhookId: hook.id, accountId: a.id, event: 'webhook.test', messageId: null, mailboxId: null, nextAttemptAt: NOW + i, now: NOW + i });
      const [x, y] = await Promise.all([stores[0]!.claimDueDeliveries(NOW + 10, 10_000, 4), other().claimDueDeliveries(NOW + 10, 10_000, 4)]);
      const claimed = [...x, ...y].map((d) => d.id);
      expect(claimed).toHaveLength(6);
      expect(new Set(claimed).size).toBe(6); // nobody got one twice
      expect(await stores[0]!.claimDueDeliveries(NOW + 11, 10_000, 10)).toEqual([]); // leased
      expect((await other().claimDueDeliveries(NOW + 10_011, 10_000, 10)).length).toBe(6); // the lease ran out
      const first = claimed[0]!;
      await stores[0]!.recordAttempt(first, { attempt: 1, at: NOW, durationMs: 5, statusCode: 200, error: null, ok: true }, { status: 'delivered', nextAttemptAt: null });
      expect(await other().failPendingDeliveries(hook.id, { at: NOW, durationMs: 0, statusCode: null, error: 'given up', ok: false })).toBe(5);
      const log = await other().listDeliveries(hook.id, 10);
      expect(log).toHaveLength(6);
      expect(log.find((d) => d.id === first)).toMatchObject({ status: 'delivered', attemptLog: [{ attempt: 1, statusCode: 200, ok: true }] });
      expect(log.filter((d) => d.status === 'failed').every((d) => d.attemptLog.at(-1)?.error === 'given up')).toBe(true);
      expect(await stores[0]!.nextDeliveryDue()).toBeNull();
    });

    test('settings, sessions and one-time sign-in tokens', async () => {
      const a = await account();
      const values = await Promise.all([stores[0]!.ensureSetting('secret', 'one'), other().ensureSetting('secret', 'two')]);
      expect(values[0]).toBe(values[1]);
      await stores[0]!.saveSession({ idHash: 's1', accountId: a.id, data: '{"a":1}', expiresAt: NOW + HOUR });
      await stores[0]!.saveSession({ idHash: 's2', accountId: a.id, data: '{}', expiresAt: NOW + HOUR });
      expect(await other().getSession('s1', NOW)).toEqual({ idHash: 's1', accountId: a.id, data: '{"a":1}', expiresAt: NOW + HOUR });
      expect(await other().getSession('s1', NOW + HOUR)).toBeNull();
      await other().deleteAccountSessions(a.id, 's2');
      expect(await stores[0]!.getSession('s1', NOW)).toBeNull();
      expect(await stores[0]!.getSession('s2', NOW)).not.toBeNull();
      await stores[0]!.createSignInToken({ hash: 't1', accountId: a.id, expiresAt: NOW + HOUR });
      const uses = await Promise.all([stores[0]!.consumeSignInToken('t1', NOW), other().consumeSignInToken('t1', NOW)]);
      expect(uses.filter((u) => u === a.id)).toHaveLength(1);
    });

    test('orderings hold on ties: keys and webhooks made in the same millisecond list by id, the sweep takes mailboxes expiring together by id', async () => {
      const a = await account();
      const keys = await Promise.all(['k3', 'k1', 'k2'].map((name) => stores[0]!.createApiKey({ accountId: a.id, name, prefix: name, hash: `hash-${name}-${a.id}`, scopes: ['emails'], now: NOW })));
      expect((await other().listApiKeys(a.id)).map((k) => k.id)).toEqual(keys.map((k) => k.id).sort());
      const hooks = await Promise.all([1, 2, 3].map((n) => stores[0]!.createWebhook({ accountId: a.id, url: `http://127.0.0.1:${n}/`, secret: 's', catchAll: false, now: NOW })));
      expect((await other().listWebhooks(a.id)).map((w) => w.id)).toEqual(hooks.map((w) => w.id).sort());
      const boxes = await Promise.all(['tie-c', 'tie-a', 'tie-b'].map((name) => stores[0]!.createMailbox({ accountId: a.id, address: `${name}@mailwright.test`, webhookId: null, createdAt: NOW, expiresAt: NOW + 10 }, NOW)));
      const byId = boxes.map((b) => b.id).sort();
      const swept = await other().sweepExpired(NOW + 10, 1);
      expect(swept).toMatchObject({ mailboxes: 1, more: true });
      const left = (await stores[0]!.listLiveMailboxes({ accountId: a.id, now: NOW })).map((b) => b.id);
      expect(left).toEqual(expect.arrayContaining(byId.slice(1)));
      expect(left).not.toContain(byId[0]);
    });

    test('fault rules: added and listed oldest first, carried by the recipient look-up until spent, used atomically across instances, gone with their mailbox', async () => {
      const a = await account();
      const box = await stores[0]!.createMailbox({ accountId: a.id, address: 'faulty@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW);
      const rule = { mailboxId: box.id, stage: 'rcpt' as const, code: 451, enhancedCode: '4.3.0', message: null, delayMs: null, disconnect: false, probability: 1 };
      const counted = await stores[0]!.addFault({ ...rule, times: 3, createdAt: NOW });
      const forever = await other().addFault({ ...rule, stage: 'data', code: null, enhancedCode: null, delayMs: 200, times: null, createdAt: NOW + 1 });
      expect(counted).toMatchObject({ ...rule, times: 3, hits: 0 });
      expect(await other().listFaults(box.id)).toEqual([counted, forever]);
      expect((await other().findMailboxByAddress('faulty@mailwright.test', NOW))?.faults).toEqual([counted, forever]);
      // Ten uses at once over the instances: exactly three count.
      const uses = await Promise.all(Array.from({ length: 10 }, (_, i) => stores[i % stores.length]!.takeFault(counted.id)));
      expect(uses.filter(Boolean).map((f) => f!.hits).sort()).toEqual([1, 2, 3]);
      expect(await stores[0]!.takeFault(counted.id)).toBeNull();
      // A spent rule is listed (hits 3 of 3) but no longer carried by the look-up.
      expect((await other().listFaults(box.id))[0]).toMatchObject({ id: counted.id, hits: 3, times: 3 });
      await expect.poll(async () => (await other().findMailboxByAddress('faulty@mailwright.test', NOW))?.faults.map((f) => f.id)).toEqual([forever.id]);
      expect((await stores[0]!.takeFault(forever.id))?.hits).toBe(1);
      expect(await other().clearFaults(box.id)).toBe(2);
      expect(await stores[0]!.listFaults(box.id)).toEqual([]);
      expect(await stores[0]!.takeFault(forever.id)).toBeNull();
      // A rule dies with its mailbox: replaced at its address after expiry, or swept.
      const dying = await stores[0]!.addFault({ ...rule, times: null, createdAt: NOW });
      await stores[0]!.expireMailbox(a.id, box.id, NOW + 1);
      const again = await other().createMailbox({ accountId: a.id, address: 'faulty@mailwright.test', webhookId: null, createdAt: NOW + 2, expiresAt: NOW + HOUR }, NOW + 2);
      expect(await stores[0]!.listFaults(box.id)).toEqual([]);
      expect(await stores[0]!.takeFault(dying.id)).toBeNull();
      expect((await other().findMailboxByAddress('faulty@mailwright.test', NOW + 2))?.faults).toEqual([]);
      await stores[0]!.addFault({ ...rule, mailboxId: again.id, times: null, createdAt: NOW + 2 });
      await stores[0]!.sweepExpired(NOW + HOUR + 1);
      expect(await stores[0]!.listFaults(again.id)).toEqual([]);
    });

    test('a password change kills the account\'s unused sign-in links', async () => {
      const a = await account();
      await stores[0]!.createSignInToken({ hash: 'before-change', accountId: a.id, expiresAt: NOW + HOUR });
      await other().setPassword(a.id, 'new-hash');
      expect(await stores[0]!.consumeSignInToken('before-change', NOW)).toBeNull();
      expect((await stores[0]!.getAccount(a.id))!.passwordHash).toBe('new-hash');
      await stores[0]!.createSignInToken({ hash: 'after-change', accountId: a.id, expiresAt: NOW + HOUR });
      expect(await other().consumeSignInToken('after-change', NOW)).toBe(a.id);
    });

    test('failed sign-ins are counted atomically across instances, in a window that opens with the first', async () => {
      const WINDOW = 15 * 60_000;
      expect(await other().getSignInFailures('k', NOW)).toBeNull();
      // 20 failures at once, spread over the instances: none is lost.
      const counts = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % stores.length]!.countSignInFailure('k', NOW + i, WINDOW)));
      expect(counts.map((c) => c.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(new Set(counts.map((c) => c.windowEndsAt))).toEqual(new Set([counts.find((c) => c.count === 1)!.windowEndsAt]));
      const ends = counts[0]!.windowEndsAt;
      expect(await other().getSignInFailures('k', ends - 1)).toEqual({ count: 20, windowEndsAt: ends });
      expect(await other().getSignInFailures('other-key', NOW)).toBeNull();
      // Once the window ends the count starts again, in a new window.
      expect(await other().getSignInFailures('k', ends)).toBeNull();
      expect(await stores[0]!.countSignInFailure('k', ends, WINDOW)).toEqual({ count: 1, windowEndsAt: ends + WINDOW });
      await other().clearSignInFailures('k');
      expect(await stores[0]!.getSignInFailures('k', ends)).toBeNull();
      // The sweep deletes windows that ended.
      await stores[0]!.countSignInFailure('swept', NOW, WINDOW);
      await stores[0]!.sweepExpired(NOW + WINDOW);
      expect(await stores[0]!.countSignInFailure('swept', NOW, WINDOW)).toEqual({ count: 1, windowEndsAt: NOW + WINDOW });
    });

    test("the recipient lookup finds a mailbox by address in any case, with its account's routing as of the time asked", async () => {
      const a = await account();
      const box = await stores[0]!.createMailbox({ accountId: a.id, address: 'rcpt@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW);
      expect(await other().findMailboxByAddress('RCPT@mailwright.test', NOW)).toEqual({ ...box, faults: [], routing: { webhooks: [], boundWebhookIds: [], changesAt: null } });
      const hook = await stores[0]!.createWebhook({ accountId: a.id, url: 'http://127.0.0.1:1/', secret: 's', catchAll: false, now: NOW });
      const older = await stores[0]!.createWebhook({ accountId: a.id, url: 'http://127.0.0.1:2/', secret: 's', catchAll: true, now: NOW - 1 });
      const webhooks = [{ id: older.id, catchAll: true }, { id: hook.id, catchAll: false }];
      expect((await other().findMailboxByAddress('rcpt@mailwright.test', NOW))?.routing).toEqual({ webhooks, boundWebhookIds: [], changesAt: null });
      // A mailbox bound to a webhook changes its account's routing while it lives; it has none of its own.
      await stores[0]!.createMailbox({ accountId: a.id, address: 'bound@mailwright.test', webhookId: older.id, createdAt: NOW, expiresAt: NOW + 10 }, NOW);
      await stores[0]!.createMailbox({ accountId: a.id, address: 'bound2@mailwright.test', webhookId: older.id, createdAt: NOW, expiresAt: NOW + 20 }, NOW);
      expect((await other().findMailboxByAddress('rcpt@mailwright.test', NOW))?.routing).toEqual({ webhooks, boundWebhookIds: [older.id], changesAt: NOW + 10 });
      expect((await other().findMailboxByAddress('rcpt@mailwright.test', NOW + 10))?.routing).toEqual({ webhooks, boundWebhookIds: [older.id], changesAt: NOW + 20 });
      expect((await other().findMailboxByAddress('rcpt@mailwright.test', NOW + 20))?.routing).toEqual({ webhooks, boundWebhookIds: [], changesAt: null });
      expect((await other().findMailboxByAddress('bound@mailwright.test', NOW))?.routing).toBeNull();
      await stores[0]!.deleteWebhook(a.id, hook.id);
      await stores[0]!.deleteWebhook(a.id, older.id);
      expect((await other().findMailboxByAddress('rcpt@mailwright.test', NOW))?.routing).toEqual({ webhooks: [], boundWebhookIds: [], changesAt: null });
      expect(await other().findMailboxByAddress('nobody@mailwright.test', NOW)).toBeNull();
    });

    test('the recipient lookup, asked again and again, follows a mailbox ended, swept and its address taken again', async () => {
      const a = await account();
      const address = 'again@mailwright.test';
      const first = await stores[0]!.createMailbox({ accountId: a.id, address, webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW);
      expect((await other().findMailboxByAddress(address, NOW))?.expiresAt).toBe(NOW + HOUR);
      expect((await other().findMailboxByAddress(address, NOW))?.expiresAt).toBe(NOW + HOUR);
      await stores[0]!.expireMailbox(a.id, address, NOW + 5);
      expect((await other().findMailboxByAddress(address, NOW))?.expiresAt).toBe(NOW + 5);
      const second = await stores[0]!.createMailbox({ accountId: a.id, address, webhookId: null, createdAt: NOW + 10, expiresAt: NOW + 20 }, NOW + 10);
      expect(second.id).not.toBe(first.id);
      expect((await other().findMailboxByAddress(address, NOW))?.id).toBe(second.id);
      await stores[0]!.sweepExpired(NOW + 30);
      expect(await other().findMailboxByAddress(address, NOW)).toBeNull();
      expect(await other().findMailboxByAddress(address.toUpperCase(), NOW)).toBeNull();
    });

    test('the recipient lookup finds a new mailbox at once, with its account\'s webhooks, and is not disturbed by its neighbours', async () => {
      const a = await account();
      await stores[0]!.createWebhook({ accountId: a.id, url: 'http://127.0.0.1:1/', secret: 's', catchAll: true, now: NOW });
      const kept = await stores[0]!.createMailbox({ accountId: a.id, address: 'kept@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW);
      const routing = (await other().findMailboxByAddress('Kept@mailwright.test', NOW))?.routing;
      expect(routing?.webhooks).toHaveLength(1);
      const neighbour = await stores[0]!.createMailbox({ accountId: a.id, address: 'neighbour@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW);
      expect((await other().findMailboxByAddress('neighbour@mailwright.test', NOW))?.id).toBe(neighbour.id);
      await stores[0]!.expireMailbox(a.id, neighbour.id, NOW + 5);
      await stores[0]!.sweepExpired(NOW + 10);
      expect(await other().findMailboxByAddress('neighbour@mailwright.test', NOW)).toBeNull();
      expect(await other().findMailboxByAddress('kept@mailwright.test', NOW)).toEqual({ ...kept, faults: [], routing });
    });

    test('the sweeper removes what expired, on any instance, without double work or errors', async () => {
      const a = await account();
      const mb = await stores[0]!.createMailbox({ accountId: a.id, address: 'old@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + 10 }, NOW);
      await insert(stores[0]!, [{ mailboxId: mb.id, webhookIds: [] }], mail('old'), NOW);
      const sweeps = await Promise.all([stores[0]!.sweepExpired(NOW + 20), other().sweepExpired(NOW + 20)]);
      expect(sweeps.reduce((n, s) => n + s.mailboxes, 0)).toBe(1);
      expect(sweeps.reduce((n, s) => n + s.messages, 0)).toBe(1);
      expect(await stores[0]!.findMailboxByAddress('old@mailwright.test', NOW)).toBeNull();
    });

    test('a sweep in chunks deletes at most its limit per call, keeps the mailbox until it is empty, and a live mailbox untouched', async () => {
      const a = await account();
      const old = await stores[0]!.createMailbox({ accountId: a.id, address: 'full@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + 10 }, NOW);
      const live = await stores[0]!.createMailbox({ accountId: a.id, address: 'live@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW);
      const hook = await stores[0]!.createWebhook({ accountId: a.id, url: 'http://127.0.0.1:1/', secret: 's', catchAll: true, now: NOW });
      await Promise.all(Array.from({ length: 7 }, (_, i) => insert(stores[0]!, [{ mailboxId: old.id, webhookIds: [hook.id] }, { mailboxId: live.id, webhookIds: [] }], mail(`m${i}`), NOW)));
      const chunks = [];
      for (let more = true; more;) {
        const chunk = await other().sweepExpired(NOW + 20, 5);
        expect(chunk.messages + chunk.deliveries).toBeLessThanOrEqual(5);
        chunks.push(chunk);
        more = chunk.more;
        expect(chunks.length).toBeLessThan(10);
      }
      expect(chunks.reduce((n, c) => n + c.messages, 0)).toBe(7);
      expect(chunks.reduce((n, c) => n + c.deliveries, 0)).toBe(7);
      expect(chunks.map((c) => c.mailboxes)).toEqual([0, 0, 1]);
      expect(await stores[0]!.findMailboxByAddress('full@mailwright.test', NOW)).toBeNull();
      expect(await stores[0]!.countMailboxMessages(live.id)).toBe(7);
    });

    test("a mailbox's message count follows what arrives, on every instance, asked again and again and at once", async () => {
      const a = await account();
      const mine = await stores[0]!.createMailbox({ accountId: a.id, address: 'count@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW);
      const next = await stores[0]!.createMailbox({ accountId: a.id, address: 'next@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW);
      const counts = async () => [await stores[0]!.countMailboxMessages(mine.id), await other().countMailboxMessages(mine.id), await stores[0]!.countMailboxMessages(next.id)];
      expect(await counts()).toEqual([0, 0, 0]);
      expect(await counts()).toEqual([0, 0, 0]);
      await insert(stores[0]!, [{ mailboxId: mine.id, webhookIds: [] }], mail('a'), NOW);
      expect(await counts()).toEqual([1, 1, 0]);
      for (let i = 0; i < 3; i++) await insert(other(), [{ mailboxId: mine.id, webhookIds: [] }, { mailboxId: next.id, webhookIds: [] }], mail(`b${i}`), NOW);
      await insert(stores[0]!, [{ mailboxId: next.id, webhookIds: [] }], mail('c'), NOW);
      expect(await counts()).toEqual([4, 4, 4]);
      // Calls that overlap, with mail arriving between them, each answer a count that was true.
      const sent = insert(other(), [{ mailboxId: mine.id, webhookIds: [] }], mail('d'), NOW);
      const during = await Promise.all([stores[0]!.countMailboxMessages(mine.id), stores[0]!.countMailboxMessages(mine.id), other().countMailboxMessages(mine.id)]);
      for (const n of during) expect([4, 5]).toContain(n);
      await sent;
      expect(await counts()).toEqual([5, 5, 4]);
      expect(await counts()).toEqual([5, 5, 4]);
      expect(await stores[0]!.countMailboxMessages('mbx_none')).toBe(0);
      // The list of live mailboxes (web UI, CLI) counts the same, before and after more mail.
      const listed = async () => (await other().listLiveMailboxes({ accountId: a.id, now: NOW })).map((m) => [m.address, m.messageCount]);
      expect(await listed()).toEqual([['count@mailwright.test', 5], ['next@mailwright.test', 4]]);
      await insert(stores[0]!, [{ mailboxId: next.id, webhookIds: [] }], mail('e'), NOW);
      expect(await listed()).toEqual([['count@mailwright.test', 5], ['next@mailwright.test', 5]]);
    });

    test('the start-up lock lets one caller in at a time', async () => {
      let inside = 0;
      let most = 0;
      const work = async () => {
        inside++;
        most = Math.max(most, inside);
        await new Promise<void>((resolve) => setImmediate(resolve));
        inside--;
      };
      await Promise.all(Array.from({ length: 4 }, (_, i) => stores[i % stores.length]!.withStartupLock(work)));
      expect(most).toBe(1);
    });
  });
}

// What only a store shared by several instances must keep: PostgreSQL.
test.describe('store contract: postgres, several instances at once', () => {
  test.skip(TEST_DATABASE_URL === undefined && !REQUIRE_POSTGRES, NO_POSTGRES);
  let stores: Store[];
  let close: () => Promise<void>;
  let schema: FreshSchema;
  test.beforeEach(async () => {
    schema = await freshSchema();
    stores = await Promise.all(Array.from({ length: 3 }, () => openPostgresStore(schema.url)));
    close = async () => {
      for (const store of stores) await store.close();
      await schema.drop();
    };
  });
  test.afterEach(() => close?.());

  /** A client of the test's own on the schema, closed with the test. */
  async function connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    return client;
  }

  test('inserts commit in parallel on every instance, transactions held open on purpose: a cursor reader sees every message once, none skipped', async () => {
    test.setTimeout(60_000);
    const a = await stores[0]!.createAccount({ email: 'fleet@example.com', role: 'civilian', isAdmin: false, passwordHash: null, now: NOW });
    const boxes = await Promise.all(Array.from({ length: 3 }, (_, i) => stores[0]!.createMailbox({ accountId: a.id, address: `f${i}@mailwright.test`, webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW)));
    const holder = await connect();
    const seen: string[] = [];
    let cursor = 0;
    /** One page as GET /api/emails reads it: the settled position first, then the messages after the cursor. */
    const page = async () => {
      const snapshot = await stores[2]!.maxSeq();
      const messages = await stores[2]!.listMessages({ accountId: a.id, afterSeq: cursor, limit: 3, includeBody: false, now: NOW });
      seen.push(...messages.map((m) => m.subject));
      cursor = messages.at(-1)?.seq ?? Math.max(cursor, snapshot);
      return messages;
    };
    const sent: string[] = [];
    try {
      for (let round = 0; round < 4; round++) {
        const held = round % 2;
        const free = 1 - held;
        // A transaction holds the mailbox's row: an insert into it takes its position (its
        // transaction id) and then waits, uncommitted, for the row.
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM mailboxes WHERE id = $1 FOR UPDATE', [boxes[held]!.id]);
        const late = stores[held]!.insertMessage([{ mailboxId: boxes[held]!.id, webhookIds: [] }], mail(`late ${round}`), NOW);
        await expect.poll(async () => (await holder.query('SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [(holder as unknown as { processID: number }).processID])).rows[0].n).toBe(1);
        // Meanwhile another instance commits several, after the late one took its position.
        for (let i = 0; i < 3; i++) {
          const copies = await stores[free]!.insertMessage([{ mailboxId: boxes[2]!.id, webhookIds: [] }], mail(`early ${round}.${i}`), NOW);
          expect(copies).toHaveLength(1);
          sent.push(`early ${round}.${i}`);
        }
        // They are stored (newest first, mailbox view) but not given to a cursor reader yet: the late one may still come before them.
        expect((await stores[2]!.listMailboxMessages(boxes[2]!.id, { limit: 1 }))[0]?.subject).toBe(`early ${round}.2`);
        const before = seen.length;
        expect(await page()).toEqual([]);
        expect(seen.length).toBe(before);
        await holder.query('COMMIT');
        expect(await late).toHaveLength(1);
        sent.push(`late ${round}`);
        while (seen.length < sent.length) await page();
      }
      expect(await page()).toEqual([]);
      expect(new Set(seen).size).toBe(seen.length); // none twice
      expect([...seen].sort()).toEqual([...sent].sort()); // none skipped
      // Each late message came before the ones committed while it was held.
      for (let round = 0; round < 4; round++) expect(seen.indexOf(`late ${round}`)).toBeLessThan(seen.indexOf(`early ${round}.0`));
    } finally {
      await holder.end();
    }
  });

  test('many inserts at once on three instances, read while they commit: each message once, in one order for every reader', async () => {
    test.setTimeout(60_000);
    const a = await stores[0]!.createAccount({ email: 'many@example.com', role: 'civilian', isAdmin: false, passwordHash: null, now: NOW });
    const box = await stores[0]!.createMailbox({ accountId: a.id, address: 'many@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW);
    const subjects = Array.from({ length: 90 }, (_, i) => `m${i}`);
    const writing = Promise.all(subjects.map((s, i) => stores[i % 3]!.insertMessage([{ mailboxId: box.id, webhookIds: [] }], mail(s), NOW)));
    const readers = [0, 1, 2].map(async (r) => {
      const seen: string[] = [];
      let cursor = 0;
      while (seen.length < subjects.length) {
        const snapshot = await stores[r]!.maxSeq();
        const messages = await stores[r]!.listMessages({ accountId: a.id, mailboxIds: [box.id], afterSeq: cursor, limit: 7, includeBody: false, now: NOW });
        seen.push(...messages.map((m) => m.subject));
        cursor = messages.at(-1)?.seq ?? Math.max(cursor, snapshot);
      }
      return seen;
    });
    const inserted = await writing;
    const [first, ...others] = await Promise.all(readers);
    expect(new Set(first).size).toBe(subjects.length);
    expect([...first!].sort()).toEqual([...subjects].sort());
    for (const other of others) expect(other).toEqual(first);
    // Messages of one batch share a transaction and hold consecutive places in it.
    expect(new Set(inserted.map(([c]) => c!.message.seq)).size).toBe(subjects.length);
  });

  test('a batch whose insert committed but whose announcement failed is answered once, stored once, and the sender not told to retry', async () => {
    // The procedure that writes a batch, wrapped so that it fails after its commits: what a
    // failed announcement or a connection lost after the commit looks like to the instance.
    const admin = await connect();
    try {
      const { rows: [procedure] } = await admin.query(`SELECT pg_get_function_arguments(p.oid) AS args, p.proargnames AS names FROM pg_proc p
        WHERE p.proname = 'mailwright_ingest' AND p.pronamespace = current_schema()::regnamespace`);
      await admin.query('ALTER PROCEDURE mailwright_ingest RENAME TO mailwright_ingest_then');
      await admin.query(`CREATE PROCEDURE mailwright_ingest(${procedure.args}) LANGUAGE plpgsql AS $$
        BEGIN CALL mailwright_ingest_then(${(procedure.names as string[]).join(', ')}); RAISE EXCEPTION 'the announcement failed'; END $$`);
    } finally {
      await admin.end();
    }
    const a = await stores[0]!.createAccount({ email: 'late@example.com', role: 'civilian', isAdmin: false, passwordHash: null, now: NOW });
    const box = await stores[0]!.createMailbox({ accountId: a.id, address: 'late@mailwright.test', webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW);
    const [alone] = await insert(stores[0]!, [{ mailboxId: box.id, webhookIds: [] }], mail('alone'), NOW);
    expect(alone?.message.subject).toBe('alone');
    // Several at once go as one batch, whose failure would otherwise have each retried alone.
    const together = await Promise.all(['one', 'two', 'three'].map((subject) => insert(stores[0]!, [{ mailboxId: box.id, webhookIds: [] }], mail(subject), NOW)));
    expect(together.map(([c]) => c?.message.subject)).toEqual(['one', 'two', 'three']);
    const listed = await stores[1]!.listMessages({ accountId: a.id, afterSeq: 0, limit: 10, includeBody: false, now: NOW });
    expect(listed.map((m) => m.subject).sort()).toEqual(['alone', 'one', 'three', 'two']);
    expect(listed.map((m) => m.id).sort()).toEqual([alone!, ...together.map(([c]) => c!)].map((c) => c.message.id).sort());
  });

  test('cached recipient look-ups: answered without the database while nothing changed, and follow what another instance changes', async () => {
    const [a, b] = stores as [Store, Store];
    const stops = [a, b].map((s) => s.watchCommits!({ onMessage: () => {}, onResync: () => {} }));
    const locker = await connect();
    try {
      const account = await a.createAccount({ email: 'cache@example.com', role: 'civilian', isAdmin: false, passwordHash: null, now: NOW });
      // Real time here: the cache keeps only mailboxes live by the clock.
      const now = Date.now();
      const box = await a.createMailbox({ accountId: account.id, address: 'cached@mailwright.test', webhookId: null, createdAt: now, expiresAt: now + HOUR }, now);
      // Listening (the cache is on only once b's listening connection is up, which a test cannot
      // see from outside), b reads it, and then answers while nothing may read the mailboxes table
      // at all: a cached answer comes before the event loop's next turn, a read of the table
      // would wait for the lock. The lock is held for that one turn only (its transaction holds
      // back the horizon of every fleet on this server), then the warm-up is tried again.
      await expect.poll(async () => {
        expect(await b.findMailboxByAddress('cached@mailwright.test', now)).toEqual({ ...box, faults: [], routing: { webhooks: [], boundWebhookIds: [], changesAt: null } });
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE mailboxes IN ACCESS EXCLUSIVE MODE');
        const answer = b.findMailboxByAddress('CACHED@mailwright.test', now);
        const fromCache = await Promise.race([answer.then(() => true), new Promise<boolean>((resolve) => setImmediate(resolve, false))]);
        await locker.query('COMMIT');
        expect(await answer).toEqual({ ...box, faults: [], routing: { webhooks: [], boundWebhookIds: [], changesAt: null } });
        return fromCache;
      }, { message: 'b answers a cached look-up while the mailboxes table is locked' }).toBe(true);
      // An address not found is not cached: created on a, it is found on b at once.
      expect(await b.findMailboxByAddress('new@mailwright.test', now)).toBeNull();
      await a.createMailbox({ accountId: account.id, address: 'new@mailwright.test', webhookId: null, createdAt: now, expiresAt: now + HOUR }, now);
      expect((await b.findMailboxByAddress('new@mailwright.test', now))?.address).toBe('new@mailwright.test');
      // Changes made on a reach b's cache: a webhook of the account, a mailbox bound to it, the mailbox ended early.
      const hook = await a.createWebhook({ accountId: account.id, url: 'http://127.0.0.1:1/', secret: 's', catchAll: true, now });
      await expect.poll(async () => (await b.findMailboxByAddress('cached@mailwright.test', now))?.routing?.webhooks).toEqual([{ id: hook.id, catchAll: true }]);
      await a.createMailbox({ accountId: account.id, address: 'bound@mailwright.test', webhookId: hook.id, createdAt: now, expiresAt: now + HOUR }, now);
      await expect.poll(async () => (await b.findMailboxByAddress('cached@mailwright.test', now))?.routing?.boundWebhookIds).toEqual([hook.id]);
      // A fault rule added on a reaches b's cached look-up, and so does its being spent.
      const fault = await a.addFault({ mailboxId: box.id, stage: 'rcpt', code: 451, enhancedCode: '4.3.0', message: null, delayMs: null, disconnect: false, times: 1, probability: 1, createdAt: now });
      await expect.poll(async () => (await b.findMailboxByAddress('cached@mailwright.test', now))?.faults.map((f) => f.id)).toEqual([fault.id]);
      expect((await a.takeFault(fault.id))?.hits).toBe(1);
      await expect.poll(async () => (await b.findMailboxByAddress('cached@mailwright.test', now))?.faults).toEqual([]);
      // Ended early, but still live by the clock: only the announcement can tell b's cache.
      await a.expireMailbox(account.id, box.id, now + HOUR / 2);
      await expect.poll(async () => (await b.findMailboxByAddress('cached@mailwright.test', now))?.expiresAt).toBe(now + HOUR / 2);
    } finally {
      await locker.query('ROLLBACK').catch(() => {});
      await locker.end();
      for (const stop of stops) await stop();
    }
  });
});
