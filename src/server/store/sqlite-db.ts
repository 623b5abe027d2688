// Owns the SQLite connection every part of the SQLite store shares (better-sqlite3 in WAL
// mode): opening and migrating the file, prepared statements made once per SQL text, and
// durability. Commits do not sync the log (synchronous=NORMAL); a write acknowledged to someone
// (a message's SMTP `250`, a created mailbox, key or webhook) resolves only once the log is
// synced on libuv's thread pool (wal-sync.ts), one sync for every commit made meanwhile.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SQLITE_MIGRATIONS } from './migrations/sqlite.js';
import type { Row } from './rows.js';
import { drive, type Param, type Sql, type Step } from './sql.js';
import { WalSync } from './wal-sync.js';

/**
 * Page cache of the connection, KiB. better-sqlite3 builds SQLite with a 16 MB default, which
 * a busy store fills and keeps for good (RSS); the pages reads and arriving mail touch (each
 * mailbox's index leaf, the newest rows) fit in a few MB, and the rest is in the OS's cache.
 */
const CACHE_KIB = 2_048;

/** Page size of a new database file: 8 KiB pages hold three 2-3 KB messages (a 4 KiB page holds one). */
const PAGE_SIZE = 8_192;

/**
 * better-sqlite3 12 wraps databases and statements in node::ObjectWrap; from Node 24.19 on,
 * such a wrapper that is garbage-collected outside a JS context aborts the process
 * ("Assertion failed: (env) != nullptr"). Version 13 fixes it but needs Node >= 22. Until
 * then no wrapper may ever be collected: a connection prepares a statement once per SQL text
 * and caches it, and a closed connection's database and statements are kept here for the life
 * of the process (a few hundred bytes each once closed).
 */
const RETAINED: unknown[] = [];

/** Whether `error` is SQLite's refusal of a value already in a UNIQUE column. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** One SQLite database and what its store's parts need of it. */
export class SqliteDb {
  readonly db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();
  readonly #wal: WalSync | null;
  #closing: Promise<void> | null = null;

  /**
   * Opens (creating when needed) the database at `file` (or ':memory:') and applies its
   * migrations. NORMAL: commits do not sync the log (see {@link durable}). The log is cut back
   * to 64 MiB after a checkpoint. exec, not db.pragma(): pragma() makes a throw-away Statement
   * (see RETAINED).
   */
  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.exec(`PRAGMA page_size = ${PAGE_SIZE}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = ${64 * 1024 * 1024};
      PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA cache_size = ${-CACHE_KIB};`);
    this.#wal = file === ':memory:' ? null : new WalSync(`${file}-wal`);
    this.#migrate();
  }

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.#closing !== null;
  }

  /** The prepared statement for `sql`, made once (see RETAINED). */
  prepare(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
  get(sql: string, ...params: unknown[]): Row | undefined {
    return this.prepare(sql).get(...params) as Row | undefined;
  }
  all(sql: string, ...params: unknown[]): Row[] {
    return this.prepare(sql).all(...params) as Row[];
  }
  run(sql: string, ...params: unknown[]): Database.RunResult {
    return this.prepare(sql).run(...params);
  }
  /** Runs `fn` in one write transaction (BEGIN IMMEDIATE) and returns what it returned. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** Resolves once every commit made so far is on disk (at once for an in-memory database). */
  durable(): Promise<void> {
    return this.#wal ? this.#wal.sync() : Promise.resolve();
  }

  /** `value` once the write that made it is on disk: for writes acknowledged to a caller. */
  async acknowledged<T>(value: T): Promise<T> {
    await this.durable();
    return value;
  }

  /** Applies the numbered migrations not applied yet, each in its own transaction. */
  #migrate(): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    const applied = new Set(this.all('SELECT version FROM schema_migrations').map((row) => Number(row.version)));
    for (const migration of SQLITE_MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      this.transaction(() => {
        this.db.exec(migration.sql);
        this.run('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)', migration.version, Date.now());
      });
    }
  }

  /**
   * Refuses new work from now on ({@link closed}), waits for `drain` (the work under way) and
   * for syncs, and closes the connection. Calling it again waits for the first call.
   */
  close(drain: () => Promise<void> = async () => {}): Promise<void> {
    this.#closing ??= (async () => {
      await drain();
      await this.#wal?.close();
      this.db.close();
      RETAINED.push(this.db, ...this.#statements.values());
    })();
    return this.#closing;
  }
}

/** booleans as SQLite stores them: 1 and 0. */
const bind = (params: Param[]) => params.map((p) => (typeof p === 'boolean' ? Number(p) : p));

/** The SQL executor of the store's shared aggregates on `db` (see sql.ts): statements run at once, on the event loop's thread. */
export function sqliteSql(db: SqliteDb): Sql {
  const run = (step: Step): unknown => {
    if (step.kind === 'tryLock') return true;
    if (step.kind === 'run') return db.run(step.sql, ...bind(step.params)).changes;
    return step.kind === 'get' ? db.get(step.sql, ...bind(step.params)) : db.all(step.sql, ...bind(step.params));
  };
  return {
    dialect: { forUpdate: '', insertionOrder: 'rowid', search: { position: 'instr', rawText: (column) => `CAST(${column} AS TEXT)`, spell: (text) => text } },
    get: async (sql, ...params) => db.get(sql, ...bind(params)),
    all: async (sql, ...params) => db.all(sql, ...bind(params)),
    run: async (sql, ...params) => db.run(sql, ...bind(params)).changes,
    transaction: async (body) => db.transaction(() => drive(body(), run)),
    durable: () => db.durable(),
    isUniqueViolation,
  };
}
