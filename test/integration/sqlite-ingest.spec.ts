// How the SQLite store commits arriving mail: on the event loop, messages handed over together
// in one transaction, every message failing or succeeding on its own, each caller told of its
// commit before its sync ends, and nothing under way lost on close.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { openSqliteStore, type SqliteStore } from '../../src/server/store/sqlite.js';
import type { InsertedCopy, MailboxRecord } from '../../src/server/store/store.js';

const NOW = Date.UTC(2030, 0, 1);
const HOUR = 3_600_000;

async function storeWithMailboxes(names: string[]): Promise<{ file: string; store: SqliteStore; boxes: MailboxRecord[] }> {
  const file = join(mkdtempSync(join(tmpdir(), 'mw-ingest-')), 'mail.db');
  const store = openSqliteStore(file);
  const account = await store.createAccount({ email: 'ingest@example.test', role: 'user', isAdmin: false, passwordHash: null, now: NOW });
  const boxes = [];
  for (const name of names) {
    boxes.push(await store.createMailbox({ accountId: account.id, address: `${name}@mailwright.test`, webhookId: null, createdAt: NOW, expiresAt: NOW + HOUR }, NOW));
  }
  return { file, store, boxes };
}

const message = (subject: unknown) => ({
  from: null, to: [{ address: 'a@mailwright.test', name: '' }], cc: [], subject: subject as string,
  raw: Buffer.from(`Subject: ${String(subject)}\r\n\r\n${'body line\r\n'.repeat(100)}`),
});

test('mail handed over together shares one transaction; each caller is told of its commit, in seq order', async () => {
  const { store, boxes: [box] } = await storeWithMailboxes(['a']);
  try {
    const told: string[] = [];
    const copies = await Promise.all(Array.from({ length: 30 }, (_, i) =>
      store.insertMessage([{ mailboxId: box!.id, webhookIds: [] }], message(`burst ${i}`), NOW, ([copy]) => told.push(copy!.message.subject))));
    expect(store.commits).toMatchObject({ transactions: 1, messages: 30 });
    expect(told).toEqual(Array.from({ length: 30 }, (_, i) => `burst ${i}`));
    const listed = await store.listMessages({ accountId: box!.accountId, afterSeq: 0, limit: 100, includeBody: false, now: NOW });
    expect(listed.map((m) => m.subject)).toEqual(told);
    expect(listed.map((m) => m.id)).toEqual(copies.map(([c]) => c!.message.id));
  } finally {
    await store.close();
  }
});

test('a caller hears of its commit before its sync ends; what arrives meanwhile shares the next transaction', async () => {
  const { store, boxes: [box] } = await storeWithMailboxes(['a']);
  try {
    const plan = [{ mailboxId: box!.id, webhookIds: [] }];
    const events: string[] = [];
    let later: Array<Promise<InsertedCopy[]>> = [];
    const first = store.insertMessage(plan, message('first'), NOW, () => {
      events.push('first committed');
      later = Array.from({ length: 10 }, (_, i) => store.insertMessage(plan, message(`during sync ${i}`), NOW));
    }).then(() => events.push('first durable'));
    await first;
    await Promise.all(later);
    expect(events).toEqual(['first committed', 'first durable']);
    expect(store.commits).toMatchObject({ transactions: 2, messages: 11 });
    expect(await store.countMailboxMessages(box!.id)).toBe(11);
  } finally {
    await store.close();
  }
});

test('a message that cannot be stored fails alone; the others of its transaction are stored', async () => {
  const { store, boxes: [a, b] } = await storeWithMailboxes(['a', 'b']);
  try {
    const committed: string[] = [];
    const job = (subject: unknown, ...boxes: MailboxRecord[]) =>
      store.insertMessage(boxes.map((box) => ({ mailboxId: box.id, webhookIds: [] })), message(subject), NOW, (copies) => committed.push(String(copies[0]?.message.subject)));
    const settled = await Promise.allSettled([
      job('first', a!), job('single', a!), job(null, a!), job('two copies', a!, b!), job(null, a!, b!),
      ...Array.from({ length: 16 }, (_, i) => job(`more ${i}`, a!)),
    ]);
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected', ...Array(16).fill('fulfilled')]);
    expect((settled[2] as PromiseRejectedResult).reason.message).toMatch(/NOT NULL/);
    expect(store.commits).toMatchObject({ transactions: 1, messages: 21 });
    expect(committed).toHaveLength(19);
    expect((await store.listMailboxMessages(a!.id, { limit: 100 })).map((m) => m.subject).slice(-3)).toEqual(['two copies', 'single', 'first']);
    expect((await store.listMailboxMessages(b!.id, { limit: 10 })).map((m) => m.subject)).toEqual(['two copies']);
  } finally {
    await store.close();
  }
});

test('closing the store waits for the messages under way: every one resolved is stored', async () => {
  const { file, store, boxes: [box] } = await storeWithMailboxes(['a']);
  const inserts = Array.from({ length: 40 }, (_, i) => store.insertMessage([{ mailboxId: box!.id, webhookIds: [] }], message(`m${i}`), NOW));
  const closed = store.close();
  const settled = await Promise.allSettled(inserts);
  await closed;
  expect(settled.every((r) => r.status === 'fulfilled')).toBe(true);
  await expect(store.insertMessage([{ mailboxId: box!.id, webhookIds: [] }], message('late'), NOW)).rejects.toThrow(/closed/);

  const reopened = openSqliteStore(file);
  try {
    expect(await reopened.countMailboxMessages(box!.id)).toBe(40);
  } finally {
    await reopened.close();
  }
});
