// Unit tests of WalSync (src/server/store/wal-sync.ts): each caller's sync resolves once the log
// is on disk, overlapping ones included; a log not created yet needs no sync; close() waits for
// the syncs under way.
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

test('overlapping syncs each resolve, and close() waits for those under way', async () => {
  const wal = new WalSync(logWithFrames());
  await wal.sync();
  let ended = 0;
  const running = Array.from({ length: 5 }, () => wal.sync().then(() => void ended++));
  await wal.close();
  expect(ended).toBe(5);
  await Promise.all(running);
  expect(wal.syncs).toBe(6);
  await wal.sync(); // closed: nothing more is synced
  expect(wal.syncs).toBe(6);
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
