// How the SQLite store keeps mail on disk: each message once, as received (at most 1.5x its
// size with indexes), space freed by expiry reused by the next mail (the file does not grow
// across expire/refill cycles), and a database made by an earlier version still readable.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, test } from '@playwright/test';
import { SQLITE_MIGRATIONS } from '../../src/server/store/migrations/sqlite.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import type { Store } from '../../src/server/store/store.js';

const NOW = Date.UTC(2030, 0, 1);
const HOUR = 3_600_000;

/** A 2.2 KB message like the benchmarks send. */
function source(i: number): Buffer {
  const line = `${'Lorem ipsum dolor sit amet, consectetur adipiscing elit '.repeat(1)}${i}\r\n`;
  return Buffer.from(`From: App <app@example.test>\r\nTo: box@mailwright.test\r\nSubject: message ${i}\r\nMessage-ID: <${i}@example.test>\r\n\r\n${line.repeat(36)}`);
}

async function fill(store: Store, accountId: string, mailboxes: number, perMailbox: number, expiresAt: number) {
  let bytes = 0;
  for (let b = 0; b < mailboxes; b++) {
    const box = await store.createMailbox({ accountId, address: `box${b}-${expiresAt}@mailwright.test`, webhookId: null, createdAt: NOW, expiresAt }, NOW);
    const inserts = [];
    for (let i = 0; i < perMailbox; i++) {
      const raw = source(i);
      bytes += raw.length;
      inserts.push(store.insertMessage([{ mailboxId: box.id, webhookIds: [] }], { from: { address: 'app@example.test', name: 'App' }, to: [{ address: box.address, name: '' }], cc: [], subject: `message ${i}`, raw }, NOW));
    }
    await Promise.all(inserts);
  }
  return bytes;
}

/** Database handles of this file, kept for the life of the worker (see the upgrade test). */
const KEPT: unknown[] = [];

test('each message is stored once: the file is at most 1.5x the sources, and refilling after expiry does not grow it', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'mw-storage-')), 'store.db');
  let store = openSqliteStore(file);
  const account = await store.createAccount({ email: 'a@example.test', role: 'emperor', isAdmin: false, passwordHash: null, now: NOW });
  const raw = await fill(store, account.id, 10, 300, NOW + HOUR);
  await store.close(); // checkpoints the log into the file
  const first = statSync(file).size;
  expect(first / raw).toBeLessThanOrEqual(1.5);

  for (let cycle = 1; cycle <= 2; cycle++) {
    store = openSqliteStore(file);
    for (let more = true; more;) more = (await store.sweepExpired(NOW + cycle * 2 * HOUR, 500)).more;
    await fill(store, account.id, 10, 300, NOW + (cycle * 2 + 1) * HOUR);
    await store.close();
    expect(statSync(file).size, `after refill ${cycle}`).toBeLessThanOrEqual(first * 1.05);
  }
});

test('a database made by an earlier version keeps its messages: summaries as stored, bodies read from the source', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'mw-upgrade-')), 'store.db');
  const db = new Database(file);
  // exec only, and the handle kept: a better-sqlite3 12 object collected later in this worker
  // aborts it under Node 24 (see RETAINED in src/server/store/sqlite.ts).
  KEPT.push(db);
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  for (const migration of SQLITE_MIGRATIONS.filter((m) => m.version <= 5)) {
    db.exec(migration.sql);
    db.exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (${migration.version}, ${NOW})`);
  }
  const raw = Buffer.from('Subject: Kept\r\n\r\nYour code is 482913').toString('hex');
  db.exec(`INSERT INTO accounts (id, email, role, is_admin, created_at) VALUES ('acc_1', 'old@example.test', 'civilian', 0, ${NOW});
    INSERT INTO mailboxes (id, account_id, address, created_at, expires_at) VALUES ('mbx_1', 'acc_1', 'old@mailwright.test', ${NOW}, ${NOW + HOUR});
    INSERT INTO messages (id, account_id, mailbox_id, mailbox, from_json, to_json, cc_json, subject, received_at, size, headers_json, text_body, html_body, attachments_json, raw)
    VALUES ('msg_1', 'acc_1', 'mbx_1', 'old@mailwright.test', NULL, '[]', '[]', 'Kept', ${NOW}, 40, '{}', 'stale copy', NULL, '[]', X'${raw}'),
           ('msg_2', 'acc_1', 'mbx_1', 'old@mailwright.test', NULL, '[]', '[]', 'Deleted', ${NOW}, 40, '{}', '', NULL, '[]', X'${raw}');
    DELETE FROM messages WHERE id = 'msg_2';`);
  db.close();

  const store = openSqliteStore(file);
  const [summary] = await store.listMessages({ accountId: 'acc_1', afterSeq: 0, limit: 10, includeBody: false, now: NOW });
  expect(summary).toMatchObject({ id: 'msg_1', seq: 1, subject: 'Kept' });
  const message = await store.getMessage('acc_1', 'mbx_1', 'msg_1');
  expect(message?.body?.text).toBe('Your code is 482913\n');
  expect(message?.body?.headers).toEqual({ subject: 'Kept' });
  expect((await store.getRawMessage('acc_1', 'mbx_1', 'msg_1'))?.toString()).toContain('482913');
  // The seq the earlier version gave and deleted (2) is not given again.
  expect(await store.maxSeq()).toBe(2);
  const [stored] = await store.insertMessage([{ mailboxId: 'mbx_1', webhookIds: [] }], { from: null, to: [], cc: [], subject: 'New', raw: Buffer.from('Subject: New\r\n\r\nhi') }, NOW);
  expect(stored!.message.seq).toBe(3);
  expect((await store.getMessage('acc_1', 'mbx_1', stored!.message.id))?.subject).toBe('New');
  // A message of the earlier version, once deleted, is not found by its id either.
  await store.expireMailbox('acc_1', 'mbx_1', NOW);
  await store.sweepExpired(NOW + 1);
  expect(await store.getMessage('acc_1', 'mbx_1', 'msg_1')).toBeNull();
  await store.close();
});
