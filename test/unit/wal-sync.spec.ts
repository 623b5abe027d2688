// Unit tests of WalSync (src/server/store/wal-sync.ts): callers that arrive while a sync of
// the log runs share the next one (group commit); a log not created yet needs no sync.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { WalSync } from '../../src/server/store/wal-sync.js';

/** A log file in a directory of its own, with a page's worth of bytes in it. */
function logWithFrames(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'mw-wal-')), 'db-wal');
  writeFileSync(file, Buffer.alloc(8192, 1));
  return file;
}

test('callers arriving while a sync runs share one more sync, which starts after theirs', async () => {
  const file = logWithFrames();
  const wal = new WalSync(file);
  const first = wal.sync();
  const later = Array.from({ length: 20 }, () => wal.sync());
  expect(new Set(later).size).toBe(1); // one queued sync serves them all
  expect(later[0]).not.toBe(first);
  await Promise.all([first, ...later]);
  expect(wal.syncs).toBe(2);
  await wal.sync();
  expect(wal.syncs).toBe(3);
  await wal.close();
  await wal.close();
});

test('a log that does not exist yet resolves at once and is looked for again next time', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'mw-wal-')), 'db-wal');
  const wal = new WalSync(file);
  await wal.sync();
  writeFileSync(file, 'x');
  await wal.sync();
  expect(wal.syncs).toBe(2);
  await wal.close();
});

test('syncHere syncs on the calling thread only when no sync is under way and the log is open', async () => {
  const file = logWithFrames();
  const wal = new WalSync(file);
  expect(wal.syncHere()).toBe(false); // the log's handle is opened by the first sync()
  expect(wal.syncs).toBe(0);
  const running = wal.sync();
  await Promise.resolve();
  expect(wal.syncHere()).toBe(false); // one runs: the caller waits for sync() instead
  await running;
  expect(wal.syncHere()).toBe(true);
  expect(wal.syncs).toBe(2);
  const queued = [wal.sync(), wal.sync()]; // one runs, one is queued behind it
  expect(wal.syncHere()).toBe(false);
  await Promise.all(queued);
  await wal.close();
  expect(wal.syncHere()).toBe(false); // closed: nothing to sync on
  expect(wal.syncs).toBe(4);
});

test('after a slow syncHere the next ones decline for a while, and sync() still serves', async () => {
  const file = logWithFrames();
  const wal = new WalSync(file, -1); // every sync counts as slow
  await wal.sync();
  expect(wal.syncHere()).toBe(true);
  expect(wal.syncHere()).toBe(false);
  await wal.sync();
  expect(wal.syncs).toBe(3);
  await wal.close();
});

test('one slow syncHere among quick ones keeps the next ones here; slow ones as a rule send them to the pool', async () => {
  const file = logWithFrames();
  let slow = 0;
  // A sync that takes `slow` ms of a clock of the test's own (it syncs nothing, and a busy
  // machine's pauses are not part of the test).
  let clock = 0;
  const wal = new WalSync(file, 2, () => void (clock += slow), () => clock);
  await wal.sync(); // opens the log
  slow = 6;
  expect(wal.syncHere()).toBe(true);
  slow = 0;
  for (let i = 0; i < 5; i++) expect(wal.syncHere(), `quick sync ${i} after one of 6 ms`).toBe(true);
  slow = 6;
  let here = 0;
  while (wal.syncHere() && here < 10) here++;
  expect(here).toBeGreaterThan(0); // a few slow ones pass...
  expect(here).toBeLessThan(10); // ...until their average is over 2 ms: then the pool
  expect(wal.syncHere()).toBe(false);
  await wal.sync();
  await wal.close();
});

test('syncSoon syncs in the next check phase, on the calling thread when it can, and close() waits for it', async () => {
  const file = logWithFrames();
  const wal = new WalSync(file);
  await wal.sync(); // opens the log
  const soon = wal.syncSoon();
  expect(wal.syncs).toBe(1); // not yet: it waits for the check phase
  let synced = false;
  void soon.then(() => (synced = true));
  await wal.close(); // called before the check phase: waits for the promised sync
  expect(synced).toBe(true);
  expect(wal.syncs).toBe(2);
  // Called while a sync runs: one more sync covers it (pooled if that one still runs, here if not).
  const other = new WalSync(file);
  await other.sync();
  const running = other.sync();
  await Promise.all([running, other.syncSoon()]);
  expect(other.syncs).toBe(3);
  await other.close();
});
