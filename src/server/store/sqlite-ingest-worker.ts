// The ingest writer's thread (sqlite-ingest.ts starts it): its own connection to the store's
// SQLite file. Messages that reach it are queued; once the messages waiting in its port are
// read, one transaction commits them all, the main thread hears of the commit, the log is
// synced (fdatasync, on this thread: the event loop that speaks SMTP never waits for the
// disk), and the main thread hears that the batch is durable. What arrives meanwhile waits for
// the next round (group commit).
import { closeSync, fdatasyncSync, openSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { FromWriter, IngestWorkerData, ToWriter } from './sqlite-ingest.js';
import { toWire } from './sqlite-ingest.js';
import { configureConnection, messageWriter, type InsertJob } from './sqlite-messages.js';

const port = parentPort!;
const { file, cacheKib } = workerData as IngestWorkerData;
const db = new Database(file);
configureConnection(db, cacheKib);
// The writer prepares its statements once and holds them while the thread lives (see RETAINED in sqlite.ts).
const write = messageWriter(db, (sql) => db.prepare(sql));

let queue: Array<{ id: number; job: InsertJob }> = [];
let scheduled = false;
/** The log's descriptor, opened after the first commit (the log exists from then on). */
let wal: number | null = null;

function send(message: FromWriter): void {
  port.postMessage(message);
}

function flush(): void {
  scheduled = false;
  if (queue.length === 0) return;
  const batch = queue;
  queue = [];
  const ids = batch.map((entry) => entry.id);
  // A Buffer arrives as a plain Uint8Array: better-sqlite3 binds either as a BLOB.
  const results = write(batch.map((entry) => entry.job));
  send({ type: 'committed', ids, results: results.map(toWire) });
  try {
    wal ??= openSync(`${file}-wal`, 'r+');
    fdatasyncSync(wal);
    send({ type: 'durable', ids });
  } catch (error) {
    send({ type: 'durable', ids, error: `syncing the database log failed: ${(error as Error).message}` });
  }
}

port.on('message', (message: ToWriter) => {
  if (message.type === 'insert') {
    queue.push(message);
    // Every message already in the port is read before the immediate runs: they share it.
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
    return;
  }
  flush();
  if (wal !== null) closeSync(wal);
  db.close();
  port.close();
});

send({ type: 'ready' });
