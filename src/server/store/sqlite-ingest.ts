// Owns committing arriving mail to a SQLite file on a thread of its own. The event loop that
// speaks SMTP and HTTP hands each message to the ingest writer and goes on serving; the
// writer's thread inserts every message that reached it meanwhile in one transaction, reports
// the commit (the store's readers see the messages from then on: waiters and webhooks are told),
// syncs the log (fdatasync) and then reports the batch durable (the senders' `250`). Messages
// arriving while it syncs wait in its queue and share the next transaction and sync (group
// commit). The thread has a connection of its own to the same database (WAL: readers on the
// main connection are never blocked by it). sqlite-ingest-worker.ts is the thread's side.
import { Worker } from 'node:worker_threads';
import type { InsertJob, InsertResult } from './sqlite-messages.js';
import type { InsertedCopy, OnCommitted } from './store.js';

/** What the writer's thread starts with. */
export interface IngestWorkerData {
  file: string;
  cacheKib: number;
}

/** Main thread → writer. */
export type ToWriter = { type: 'insert'; id: number; job: InsertJob } | { type: 'close' };

/** An InsertResult as it crosses threads (an Error would lose its code). */
export type WireResult = { copies: InsertedCopy[] } | { error: string; code?: string };

/** Writer → main thread: its connection is open; a batch committed (visible to readers), then durable (or not). */
export type FromWriter =
  | { type: 'ready' }
  | { type: 'committed'; ids: number[]; results: WireResult[] }
  | { type: 'durable'; ids: number[]; error?: string };

export function toWire(result: InsertResult): WireResult {
  if (!(result instanceof Error)) return { copies: result };
  const code = (result as { code?: unknown }).code;
  return typeof code === 'string' ? { error: result.message, code } : { error: result.message };
}

function fromWire(result: WireResult): InsertResult {
  if ('copies' in result) return result.copies;
  return Object.assign(new Error(result.error), result.code ? { code: result.code } : {});
}

/**
 * The writer thread's script. Run from the compiled package, it sits beside this module; run
 * from the TypeScript sources (the test runner loads them), it is the compiled one in dist/,
 * which `npm test` builds first.
 */
function workerScript(): URL {
  return import.meta.url.endsWith('.ts')
    ? new URL('../../../dist/server/store/sqlite-ingest-worker.js', import.meta.url)
    : new URL('./sqlite-ingest-worker.js', import.meta.url);
}

interface Pending {
  committed?: OnCommitted | undefined;
  resolve: (copies: InsertedCopy[]) => void;
  reject: (error: Error) => void;
  result?: InsertResult;
}

/** A copy of `raw` in an ArrayBuffer of its own. */
const copyOf = (raw: Buffer): ArrayBuffer => new Uint8Array(raw).buffer;

/** The ArrayBuffer `raw` spans the whole of (so it can be moved as it is), or null. */
function wholeBlock(raw: Buffer): ArrayBuffer | null {
  const block = raw.buffer;
  return block instanceof ArrayBuffer && raw.byteOffset === 0 && raw.byteLength === block.byteLength ? block : null;
}

/** A thread with nothing to write for this long ends (its ~10 MB go back); the next burst of mail starts another. */
const IDLE_EXIT_MS = 1_000;

/** The ingest writer of one SQLite file: `insert` resolves once the message is committed and synced. */
export class IngestWriter {
  #worker: Worker | null = null;
  #online = false;
  /** Resolves when the running thread has its connection open. */
  #ready: Promise<void> | null = null;
  #settleReady: ((error?: Error) => void) | null = null;
  /** Transactions the thread committed, and the messages they held (test and benchmark figures). */
  batches = 0;
  messages = 0;
  readonly #pending = new Map<number, Pending>();
  #next = 0;
  #closing: Promise<void> | null = null;
  #idleTimer: NodeJS.Timeout | null = null;

  /** Threads started so far (a test and benchmark figure). */
  threads = 0;

  /** @param idleExitMs how long a thread with nothing to write lives on */
  constructor(private readonly data: IngestWorkerData, private readonly idleExitMs = IDLE_EXIT_MS) {}

  /** True once the thread has its connection open and can take messages (see {@link start}). */
  get ready(): boolean {
    return this.#online;
  }

  /** Starts the thread unless it runs; resolves once it can take messages. */
  whenReady(): Promise<void> {
    this.start();
    return this.#ready!;
  }

  /** True when no message handed to the writer is waiting for its answer (its thread is not writing). */
  get idle(): boolean {
    return this.#pending.size === 0;
  }

  /**
   * Hands one message to the writer. `committed` is called once its transaction commits (while
   * the log syncs); the promise resolves once it is on disk, with the copies stored. A source
   * that is the whole of its ArrayBuffer is moved to the thread (it is empty here afterwards);
   * any other is copied into a block of its own, which is moved.
   */
  insert(job: InsertJob, committed?: OnCommitted): Promise<InsertedCopy[]> {
    if (this.#closing) return Promise.reject(new Error('the store is closed'));
    const worker = this.start();
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    // A throw (no memory for a copy) rejects the promise with nothing left pending.
    return new Promise((resolve, reject) => {
      const id = ++this.#next;
      // Moved rather than cloned: the thread allocates no copy, and nothing of the message is
      // left on this thread's heap for its garbage collector to find (RSS 5-10 MB lower after
      // a burst here than with a clone).
      const send = (block: ArrayBuffer) =>
        worker.postMessage({ type: 'insert', id, job: { ...job, message: { ...job.message, raw: Buffer.from(block) } } } satisfies ToWriter, [block]);
      const whole = wholeBlock(job.message.raw);
      try {
        send(whole ?? copyOf(job.message.raw));
      } catch (error) {
        // A block marked as not transferable cannot be moved (Node 21 and later throw; Node 20 clones it): a copy can.
        if (!whole) throw error;
        send(copyOf(job.message.raw));
      }
      if (this.#pending.size === 0) worker.ref(); // a message under way keeps the process up
      this.#pending.set(id, { committed, resolve, reject });
    });
  }

  /** Waits for the messages under way, then closes the writer's connection and ends its thread. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#idleTimer) clearTimeout(this.#idleTimer);
      const worker = this.#worker;
      if (!worker) return;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.ref(); // the process waits for the thread to end, not only for the ref'd handles it has left
      worker.postMessage({ type: 'close' } satisfies ToWriter);
      await exited;
    })();
    return this.#closing;
  }

  /**
   * Starts the thread unless it runs: it takes a few tens of ms to load, so the store starts it
   * when mail first arrives together and commits on its own thread until it is {@link ready}.
   */
  start(): Worker {
    if (this.#worker) return this.#worker;
    // A small young generation: the thread holds a batch of messages at a time (RSS).
    const worker = new Worker(workerScript(), { workerData: this.data, resourceLimits: { maxYoungGenerationSizeMb: 1 } });
    worker.unref();
    worker.on('message', (message: FromWriter) => this.#onMessage(worker, message));
    // A failed thread fails what it held; the next message starts a new one.
    worker.on('error', (error) => this.#fail(worker, error));
    worker.on('exit', (code) => this.#fail(worker, new Error(`the ingest writer's thread exited (code ${code}) with messages under way; send them again`)));
    this.#worker = worker;
    this.threads++;
    this.#ready = new Promise((resolve, reject) => (this.#settleReady = (error) => (error ? reject(error) : resolve())));
    this.#ready.catch(() => {}); // a failure is also told to the messages under way
    return worker;
  }

  #onMessage(worker: Worker, message: FromWriter): void {
    if (message.type === 'ready') {
      if (this.#worker === worker) {
        this.#online = true;
        this.#settleReady?.();
      }
      return;
    }
    if (message.type === 'committed') {
      this.batches++;
      this.messages += message.ids.length;
      message.ids.forEach((id, i) => {
        const pending = this.#pending.get(id);
        if (!pending) return;
        const result = fromWire(message.results[i]!);
        pending.result = result;
        // Reported after the commit, while the event loop may commit messages of its own meanwhile: never in order.
        if (!(result instanceof Error)) pending.committed?.(result, false);
      });
      return;
    }
    for (const id of message.ids) {
      const pending = this.#pending.get(id);
      if (!pending) continue;
      this.#pending.delete(id);
      const result = message.error ? new Error(message.error) : pending.result!;
      if (result instanceof Error) pending.reject(result);
      else pending.resolve(result);
    }
    if (this.#pending.size === 0 && this.#worker) {
      this.#worker.unref();
      this.#idleTimer ??= setTimeout(() => this.#retire(), this.idleExitMs).unref();
    }
  }

  /** Ends an idle thread: it closes its connection and exits; a later message starts a new one. */
  #retire(): void {
    this.#idleTimer = null;
    const worker = this.#worker;
    if (!worker || this.#pending.size > 0 || this.#closing) return;
    this.#worker = null;
    this.#online = false;
    worker.postMessage({ type: 'close' } satisfies ToWriter);
  }

  #fail(worker: Worker, error: Error): void {
    if (this.#worker !== worker) return; // a retired thread, which held nothing
    this.#worker = null;
    this.#online = false;
    this.#settleReady?.(error);
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}
