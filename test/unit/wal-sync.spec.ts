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
