// How the SQLite store commits arriving mail: a lone message on the event loop's own thread,
// mail arriving together on the ingest writer's thread, in shared transactions (one log sync
// each), every message failing or succeeding on its own, and nothing under way lost on close.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { markAsUntransferable } from 'node:worker_threads';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, test } from '@playwright/test';
import { IngestWriter } from '../../src/server/store/sqlite-ingest.js';
import { INGEST_ROUTING, openSqliteStore, type SqliteStore } from '../../src/server/store/sqlite.js';
import type { InsertedCopy, MailboxRecord } from '../../src/server/store/store.js';

const NOW = Date.UTC(2030, 0, 1);
const HOUR = 3_600_000;

/** Database handles of this file, kept for the life of the worker (see RETAINED in src/server/store/sqlite.ts). */
const KEPT: unknown[] = [];

/** The event loop of a test is rarely busy: by default here, mail arriving together goes to the writer whatever the loop's load. */
const ALWAYS_BUSY = { ...INGEST_ROUTING, busyAbove: 0, idleBelow: 0 };

async function storeWithMailboxes(names: string[], routing = ALWAYS_BUSY): Promise<{ file: string; store: SqliteStore; boxes: MailboxRecord[] }> {
  const file = join(mkdtempSync(join(tmpdir(), 'mw-ingest-')), 'mail.db');
  const store = openSqliteStore(file, routing);
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

test('a lone message is committed on the event loop\'s thread; mail arriving together goes to the writer\'s thread', async () => {
  const { store, boxes: [box] } = await storeWithMailboxes(['a']);
  try {
    const writer = store.ingestWriter!;
    await store.insertMessage([{ mailboxId: box!.id, webhookIds: [] }], message('lone'), NOW);
    expect(store.ownCommits).toBe(1);
    expect(writer.messages).toBe(0);

    await writer.whenReady();
    const told: string[] = [];
    const copies = await Promise.all(Array.from({ length: 30 }, (_, i) =>
      store.insertMessage([{ mailboxId: box!.id, webhookIds: [] }], message(`burst ${i}`), NOW, ([copy]) => told.push(copy!.message.subject))));
    // The first of the burst finds nothing under way; the other 29 find it syncing.
    expect(store.ownCommits).toBe(2);
    expect(writer.messages).toBe(29);
    expect(writer.batches).toBeLessThanOrEqual(29);
    expect(told.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `burst ${i}`).sort());
    // seq follows the order of the commits: the listing is complete and ordered.
    const listed = await store.listMessages({ accountId: box!.accountId, afterSeq: 0, limit: 100, includeBody: false, now: NOW });
    expect(listed).toHaveLength(31);
    expect(listed.map((m) => m.seq)).toEqual([...listed.map((m) => m.seq)].sort((x, y) => x - y));
    expect(new Set(copies.map(([c]) => c!.message.id)).size).toBe(30);
  } finally {
    await store.close();
  }
});

test('a commit on the event loop\'s thread is reported in order unless the writer\'s thread holds messages; the writer\'s never are', async () => {
  // Never busy: every message through the store is committed on the event loop's thread.
  const { store, boxes: [box] } = await storeWithMailboxes(['a'], { ...INGEST_ROUTING, busyAbove: 1 });
  try {
    const told: Array<[string, boolean]> = [];
    const tell = (copies: InsertedCopy[], inOrder: boolean) => void told.push([copies[0]!.message.subject, inOrder]);
    const plan = [{ mailboxId: box!.id, webhookIds: [] }];
    await store.insertMessage(plan, message('alone'), NOW, tell);
    const writer = store.ingestWriter!;
    await writer.whenReady();
    const held = writer.insert({ copies: plan, message: message('on the writer'), now: NOW }, tell);
    await store.insertMessage(plan, message('beside the writer'), NOW, tell);
    await held;
    await store.insertMessage(plan, message('after the writer'), NOW, tell);
    expect(told).toEqual([['alone', true], ['beside the writer', false], ['on the writer', false], ['after the writer', true]]);
  } finally {
    await store.close();
  }
});

test('a source that is the whole of its memory block is moved to the writer\'s thread, any other is copied there; both are stored as sent', async () => {
  const { store, boxes: [box] } = await storeWithMailboxes(['a']);
  try {
    const writer = store.ingestWriter!;
    await writer.whenReady();
    const plan = [{ mailboxId: box!.id, webhookIds: [] }];
    const sent = message('sent').raw;
    const whole = Buffer.from(new Uint8Array(sent).buffer);
    const slice = Buffer.from(sent.toString('latin1'), 'latin1');
    expect(slice.buffer.byteLength).toBeGreaterThan(slice.length); // a slice of Node's shared pool
    // A whole block marked as not transferable: Node 21 and later refuse to move it, Node 20 clones it.
    const kept = Buffer.from(new Uint8Array(sent).buffer);
    markAsUntransferable(kept.buffer);
    const [[moved], [copied], [keptCopy]] = await Promise.all([
      writer.insert({ copies: plan, message: { ...message('whole'), raw: whole }, now: NOW }),
      writer.insert({ copies: plan, message: { ...message('slice'), raw: slice }, now: NOW }),
      writer.insert({ copies: plan, message: { ...message('kept'), raw: kept }, now: NOW }),
    ]);
    expect(whole.length).toBe(0);
    expect(whole.buffer.byteLength).toBe(0);
    expect(slice.equals(sent)).toBe(true);
    expect(kept.equals(sent)).toBe(true);
    expect(writer.idle).toBe(true);
    for (const copy of [moved!, copied!, keptCopy!]) {
      expect((await store.getRawMessage(box!.accountId, box!.id, copy.message.id))!.equals(sent)).toBe(true);
      expect(copy.message.size).toBe(sent.length);
    }
  } finally {
    await store.close();
  }
});

test('mail arriving together on a loop that keeps up is committed on the event loop\'s thread; the writer is not even started', async () => {
  // Utilization never exceeds 1: the loop never counts as busy.
  const { store, boxes: [box] } = await storeWithMailboxes(['a'], { ...INGEST_ROUTING, busyAbove: 1 });
  try {
    const copies = await Promise.all(Array.from({ length: 30 }, (_, i) => store.insertMessage([{ mailboxId: box!.id, webhookIds: [] }], message(`burst ${i}`), NOW)));
    expect(copies).toHaveLength(30);
    expect(store.ownCommits).toBe(30);
    expect(store.ingestWriter!.messages).toBe(0);
    expect(store.ingestWriter!.ready).toBe(false);
  } finally {
    await store.close();
  }
});

test('the writer commits what reached it meanwhile in one transaction, and a message that cannot be stored fails alone', async () => {
  const { file, store, boxes: [a, b] } = await storeWithMailboxes(['a', 'b']);
  const writer = store.ingestWriter!;
  await writer.whenReady();
  // Another connection holds the write lock: the writer's first transaction waits for it, and
  // what reaches it meanwhile waits in its queue for the next one.
  const holder = new Database(file);
  KEPT.push(holder);
  holder.exec('BEGIN IMMEDIATE');
  const committed: string[] = [];
  const job = (subject: unknown, ...boxes: MailboxRecord[]) =>
    writer.insert({ copies: boxes.map((box) => ({ mailboxId: box.id, webhookIds: [] })), message: message(subject), now: NOW }, (copies: InsertedCopy[]) => committed.push(String(copies[0]?.message.subject)));
  const results = Promise.allSettled([
    job('first', a!), job('single', a!), job(null, a!), job('two copies', a!, b!),
    ...Array.from({ length: 16 }, (_, i) => job(`more ${i}`, a!)),
  ]);
  await new Promise((resolve) => setTimeout(resolve, 50));
  holder.exec('COMMIT');
  holder.close();
  const settled = await results;
  try {
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', ...Array(16).fill('fulfilled')]);
    expect((settled[2] as PromiseRejectedResult).reason.message).toMatch(/NOT NULL/);
    expect(writer.messages).toBe(20);
    expect(writer.batches).toBeLessThanOrEqual(2);
    expect(committed).toHaveLength(19);
    expect((await store.listMailboxMessages(a!.id, { limit: 100 })).map((m) => m.subject).slice(-3)).toEqual(['two copies', 'single', 'first']);
    expect((await store.listMailboxMessages(b!.id, { limit: 10 })).map((m) => m.subject)).toEqual(['two copies']);
  } finally {
    await store.close();
  }
});

test('closing the store waits for the messages the writer holds: every one resolved is stored', async () => {
  const { file, store, boxes: [box] } = await storeWithMailboxes(['a']);
  await store.ingestWriter!.whenReady();
  const inserts = Array.from({ length: 40 }, (_, i) => store.insertMessage([{ mailboxId: box!.id, webhookIds: [] }], message(`m${i}`), NOW));
  const closed = store.close();
  const settled = await Promise.allSettled(inserts);
  await closed;
  expect(settled.every((r) => r.status === 'fulfilled')).toBe(true);
  expect(store.ingestWriter!.messages).toBeGreaterThan(0);
  await expect(store.insertMessage([{ mailboxId: box!.id, webhookIds: [] }], message('late'), NOW)).rejects.toThrow(/closed/);

  const reopened = openSqliteStore(file);
  try {
    expect(await reopened.countMailboxMessages(box!.id)).toBe(40);
  } finally {
    await reopened.close();
  }
});

test('a writer thread with nothing to write ends, and the next mail starts another', async () => {
  const { file, store, boxes: [box] } = await storeWithMailboxes(['a']);
  const writer = new IngestWriter({ file, cacheKib: 512 }, 20);
  try {
    const job = (subject: string) => writer.insert({ copies: [{ mailboxId: box!.id, webhookIds: [] }], message: message(subject), now: NOW });
    await writer.whenReady();
    await Promise.all([job('one'), job('two')]);
    await expect.poll(() => writer.ready, { message: 'the idle thread ends' }).toBe(false);
    await Promise.all([job('three'), job('four')]);
    expect(writer.threads).toBe(2);
    expect(writer.messages).toBe(4);
    // A source that is not one is refused at once and leaves nothing under way.
    await expect(writer.insert({ copies: [{ mailboxId: box!.id, webhookIds: [] }], message: { ...message('bad'), raw: null as unknown as Buffer }, now: NOW })).rejects.toThrow();
    expect(writer.idle).toBe(true);
    expect(await store.countMailboxMessages(box!.id)).toBe(4);
  } finally {
    await writer.close();
    await store.close();
  }
});
