// Owns making SQLite commits durable without stopping the event loop. In WAL mode with
// synchronous=NORMAL a commit only write(2)s its pages to the log; `sync()` fdatasyncs the log on
// libuv's thread pool, covering every commit made before it started (overlapping syncs allowed).
// A caller acknowledges (SMTP `250`, an API `201`) only after its sync resolves, so an
// acknowledged write survives a crash, as with synchronous=FULL; SQLite syncs at every checkpoint.
import { open, type FileHandle } from 'node:fs/promises';

export class WalSync {
  #handle: Promise<FileHandle | null> | null = null;
  /** Syncs under way (close() waits for them). */
  readonly #running = new Set<Promise<void>>();
  #closed = false;
  /** Syncs started so far (a test figure). */
  syncs = 0;

  /** @param walPath the database's `-wal` file */
  constructor(private readonly walPath: string) {}

  /** Resolves once everything committed before the call is on disk. */
  sync(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.syncs++;
    const run = this.#fdatasync();
    this.#running.add(run);
    const done = () => void this.#running.delete(run);
    run.then(done, done);
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
    await handle.datasync();
  }

  /** Waits for syncs under way and closes the log's handle. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled(this.#running);
    const handle = await this.#handle?.catch(() => null);
    await handle?.close();
  }
}
