// Owns making SQLite commits durable without stopping the event loop. The database runs in
// WAL mode with synchronous=NORMAL: a commit appends its pages to the write-ahead log with
// write(2) and returns; nothing is on disk until the log is synced. `WalSync.sync()` syncs
// the log on libuv's thread pool, so SMTP sessions go on being served meanwhile, and one
// fdatasync serves every commit made before it started (group commit): commits that land
// while a sync is running share the next one. A caller acknowledges (SMTP `250`, an API
// `201`) only after its sync resolves, so an acknowledged write survives a crash of the
// process or of the machine, as with synchronous=FULL. A lone commit on an idle loop may be
// synced on the calling thread instead (`syncHere()`): there the trip to the thread pool and
// back would cost about as much as the sync.
//
// SQLite itself syncs the log and the database file at every checkpoint (also in NORMAL
// mode), so frames a checkpoint moves into the database stay durable when the log restarts.
import { fdatasyncSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * When syncs on the calling thread take longer than this (ms) as a rule — their moving average,
 * so that one slow sync among quick ones does not count — they are not tried there for a while:
 */
const SLOW_SYNC_MS = 2;
/** ...for this many times as long as the last took, 1 s at least (20 ms syncs: 20 s on the thread pool). */
const SLOW_SYNC_BACKOFF = 1_000;
/** Weight of the newest sync in the moving average (a single 16 ms sync is enough on its own). */
const SYNC_AVERAGE_WEIGHT = 1 / 8;

export class WalSync {
  #handle: Promise<FileHandle | null> | null = null;
  /** The sync running now, if any. */
  #running: Promise<void> | null = null;
  /** The sync that starts when the running one ends (it covers every commit made before it starts). */
  #queued: Promise<void> | null = null;
  #closed = false;
  /** The log's descriptor once its handle is open (for {@link syncHere}). */
  #fd: number | null = null;
  /** Syncs syncSoon() has promised and not ended (close() waits for them). */
  readonly #soon = new Set<Promise<void>>();
  /** syncHere declines until then (on {@link now}'s clock), after slow syncs. */
  #hereAgainAt = -Infinity;
  /** Moving average of syncHere's times (ms), from the last time it declined. */
  #hereTypical = 0;
  /** Syncs started so far (a test and benchmark figure: fewer than commits when commits were grouped). */
  syncs = 0;

  /**
   * @param walPath the database's `-wal` file
   * @param slowMs when {@link syncHere}'s moving average of times passes this, the next ones decline for a while
   * @param syncFd syncs a descriptor on the calling thread (fdatasync; tests give a slower one)
   * @param now the clock syncs are timed by, in ms (tests give one their slow sync moves on)
   */
  constructor(
    private readonly walPath: string,
    private readonly slowMs = SLOW_SYNC_MS,
    private readonly syncFd: (fd: number) => void = fdatasyncSync,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Resolves once everything committed before the call is on disk. */
  sync(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#queued) return this.#queued;
    if (!this.#running) return this.#start();
    const after = () => {
      this.#queued = null;
      return this.#start();
    };
    this.#queued = this.#running.then(after, after);
    return this.#queued;
  }

  #start(): Promise<void> {
    this.syncs++;
    const run = this.#fdatasync().finally(() => {
      if (this.#running === run) this.#running = null;
    });
    this.#running = run;
    return run;
  }

  async #fdatasync(): Promise<void> {
    // The log exists once the database is in WAL mode and opened for writing; it is kept (and
    // reused from its start after a checkpoint) until the last connection closes.
    this.#handle ??= open(this.walPath, 'r+').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    const handle = await this.#handle;
    if (!handle) {
      this.#handle = null; // not created yet: nothing was written, nothing to sync
      return;
    }
    if (this.#closed) return;
    this.#fd = handle.fd;
    await handle.datasync();
  }

  /**
   * Syncs the log on the calling thread, now, when no sync is under way and the log is open:
   * true when it did (everything committed before the call is on disk), false when the caller
   * waits for {@link sync} instead. For a lone commit on an idle event loop: the hand-over to
   * the thread pool and back costs about as much as the sync itself (~0.08 and ~0.1 ms here).
   * Throws what fdatasync throws.
   */
  syncHere(): boolean {
    if (this.#closed || this.#running || this.#queued || this.#fd === null) return false;
    const started = this.now();
    if (started < this.#hereAgainAt) return false;
    this.syncs++;
    this.syncFd(this.#fd);
    const took = this.now() - started;
    // A disk that makes the calling thread wait long is synced on the thread pool for a while.
    // Judged by the average: a disk whose syncs take ~0.4 ms with one in a hundred over 2 ms
    // stays here (judged by each sync, it went to the pool for seconds after every such one,
    // and a lone message took ~0.1 ms longer).
    this.#hereTypical += (took - this.#hereTypical) * SYNC_AVERAGE_WEIGHT;
    if (this.#hereTypical > this.slowMs) {
      this.#hereAgainAt = started + Math.max(took * SLOW_SYNC_BACKOFF, 1_000);
      this.#hereTypical = 0;
    }
    return true;
  }

  /**
   * Like {@link sync}, for a commit made alone on an idle loop: in the calling thread's next
   * check phase (what the commit set going, such as a waiting long-poll's answer, runs first),
   * with {@link syncHere} when it can, else with the others.
   */
  syncSoon(): Promise<void> {
    const soon = new Promise<void>((resolve, reject) => setImmediate(() => {
      try {
        if (this.syncHere()) resolve();
        else this.sync().then(resolve, reject);
      } catch (error) {
        reject(error as Error);
      }
    }));
    this.#soon.add(soon);
    const done = () => void this.#soon.delete(soon);
    soon.then(done, done);
    return soon;
  }

  /** Waits for syncs under way and closes the log's handle. */
  async close(): Promise<void> {
    await Promise.allSettled(this.#soon);
    const pending = this.#queued ?? this.#running;
    if (pending) await pending.catch(() => {});
    this.#closed = true;
    this.#fd = null;
    const handle = await this.#handle?.catch(() => null);
    await handle?.close();
  }
}
