// Owns the PostgreSQL connection every part of the Postgres store shares: the pool, queries
// and transactions, advisory locks, migrations, the fleet's notification channels and the
// one connection that listens on them (reconnected with backoff; its subscribers are told
// when it drops and when it is back, so they re-check what they may have missed).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { POSTGRES_MIGRATIONS } from './migrations/postgres.js';
import { num, str, type Row } from './rows.js';
import { drive, type Sql, type Step } from './sql.js';

/** Reconnect delays of the listening connection, ms. */
const LISTEN_BACKOFF = [100, 250, 500, 1_000, 2_000, 5_000];

/**
 * Advisory lock keys, per schema (two fleets in one database do not share them):
 * `hashtext(current_schema() || ':' || name)`.
 */
const lockKey = (name: string) => `hashtext(current_schema() || ':${name}')`;

/**
 * The visibility horizon as a message position: every transaction whose id is below the
 * oldest one still in progress has ended, so no message at a position below this one can
 * appear any more (a message's position is its transaction id times 2^16 plus its place in
 * the transaction, see postgres-messages.ts).
 */
export const HORIZON_SQL = '(pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16)';

export type Queryable = pg.Pool | pg.PoolClient;

/** SQL text, or a named statement: prepared once per connection (see {@link PgDb.rows}). */
export type Statement = string | { name: string; text: string };

/** What the listening connection reports: a notification, or that it dropped / is back. */
export interface ListenSubscriber {
  /** A notification on one of the store's channels (`kind` names which). */
  onNotification(kind: 'messages' | 'routing', payload: string): void;
  /** The connection is up: the first time, or again after a drop (anything may have been missed meanwhile). */
  onUp(again: boolean): void;
  /** The connection dropped: notifications are missed until `onUp`. */
  onDown(): void;
}

export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505';
}

/** The connection string with its password hidden, for messages. */
export function masked(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/** One PostgreSQL database (schema) and what the store's parts need of it. */
export class PgDb {
  readonly pool: pg.Pool;
  /** Tells this instance's own notifications from the others'. */
  readonly instance = randomUUID();
  /** The schema the store's tables are in; the channels are named after it. */
  schema = 'public';
  readonly #subscribers = new Set<ListenSubscriber>();
  #listening: { stop(): Promise<void>; up: boolean } | null = null;
  #closed = false;

  constructor(readonly url: string) {
    this.pool = new pg.Pool({ connectionString: url, max: 10 });
    // An idle client that loses its server must not crash the process; the next query reconnects.
    this.pool.on('error', () => {});
  }

  /** The channel of `kind` for this schema (two fleets in one database do not hear each other). */
  channel(kind: 'messages' | 'routing'): string {
    return `mailwright_${kind}:${this.schema}`;
  }

  /**
   * Runs `sql`; given a name too, as a statement each connection prepares once (parsed and
   * planned once, where the ingest path sends the same statement again and again).
   */
  async rows(sql: Statement, params: unknown[] = [], on: Queryable = this.pool): Promise<Row[]> {
    return (await on.query(typeof sql === 'string' ? { text: sql, values: params } : { ...sql, values: params })).rows as Row[];
  }
  async row(sql: Statement, params: unknown[] = [], on: Queryable = this.pool): Promise<Row | undefined> {
    return (await this.rows(sql, params, on))[0];
  }
  async count(sql: string, params: unknown[] = [], on: Queryable = this.pool): Promise<number> {
    return (await on.query(sql, params)).rowCount ?? 0;
  }

  /** Runs `fn` in one transaction on one connection. */
  async tx<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /** Runs `fn` holding the session-level advisory lock `name` on a connection of its own. */
  async locked<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query(`SELECT pg_advisory_lock(${lockKey(name)})`);
      try {
        return await fn();
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${lockKey(name)})`);
      }
    } finally {
      client.release();
    }
  }

  /** Takes the transaction-scoped advisory lock `name` if free: true when taken. */
  async tryXactLock(name: string, client: pg.PoolClient): Promise<boolean> {
    return Boolean((await this.row(`SELECT pg_try_advisory_xact_lock(${lockKey(name)}) AS got`, [], client))?.got);
  }

  /** Applies the numbered migrations not applied yet, under a lock: instances starting together migrate once. */
  async migrate(): Promise<void> {
    this.schema = str((await this.row('SELECT current_schema() AS s'))!.s);
    await this.locked('migrate', async () => {
      await this.pool.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
      const applied = new Set((await this.rows('SELECT version FROM schema_migrations')).map((r) => num(r.version)));
      for (const migration of POSTGRES_MIGRATIONS) {
        if (applied.has(migration.version)) continue;
        await this.tx(async (client) => {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [migration.version, Date.now()]);
        });
      }
    });
  }

  /** The visibility horizon now, as a message position (see {@link HORIZON_SQL}). */
  async horizon(): Promise<number> {
    return num((await this.row(`SELECT ${HORIZON_SQL}::text AS h`))!.h);
  }

  /** Whether the listening connection is up now. */
  get listening(): boolean {
    return this.#listening?.up ?? false;
  }

  /**
   * Subscribes to the store's channels, opening the listening connection with the first
   * subscriber. Returns a function that unsubscribes (the last one closes the connection).
   */
  subscribe(subscriber: ListenSubscriber): () => Promise<void> {
    this.#subscribers.add(subscriber);
    if (this.listening) subscriber.onUp(false);
    if (!this.#listening && !this.#closed) this.#listening = this.#listen();
    return async () => {
      if (!this.#subscribers.delete(subscriber)) return;
      if (this.#subscribers.size === 0 && this.#listening) {
        const listening = this.#listening;
        this.#listening = null;
        await listening.stop();
      }
    };
  }

  #listen(): { stop(): Promise<void>; up: boolean } {
    const state = { up: false, stop: async () => {} };
    let stopped = false;
    let client: pg.Client | undefined;
    let failures = 0;
    let retry: NodeJS.Timeout | undefined;
    const channels = new Map([[this.channel('messages'), 'messages'], [this.channel('routing'), 'routing']] as const);
    const each = (fn: (s: ListenSubscriber) => void) => {
      for (const s of [...this.#subscribers]) fn(s);
    };
    const connect = async (): Promise<void> => {
      if (stopped) return;
      const next = new pg.Client({ connectionString: this.url });
      next.on('error', () => reconnect(next));
      next.on('end', () => reconnect(next));
      next.on('notification', (note) => {
        const kind = channels.get(note.channel);
        if (kind && note.payload) each((s) => s.onNotification(kind, note.payload!));
      });
      try {
        await next.connect();
        // Named, so an operator (or a test) can tell this fleet's listeners apart in pg_stat_activity.
        await next.query("SELECT set_config('application_name', 'mailwright-listen ' || current_schema(), false)");
        for (const name of channels.keys()) await next.query(`LISTEN ${pg.escapeIdentifier(name)}`);
      } catch {
        reconnect(next);
        return;
      }
      if (stopped) {
        await next.end().catch(() => {});
        return;
      }
      client = next;
      state.up = true;
      const again = failures > 0;
      failures = 0;
      each((s) => s.onUp(again));
    };
    const reconnect = (which: pg.Client) => {
      if (stopped || (client !== which && client !== undefined) || retry) return;
      client = undefined;
      if (state.up) {
        state.up = false;
        each((s) => s.onDown());
      }
      which.end().catch(() => {});
      const delay = LISTEN_BACKOFF[Math.min(failures, LISTEN_BACKOFF.length - 1)]!;
      failures++;
      retry = setTimeout(() => {
        retry = undefined;
        void connect();
      }, delay);
      retry.unref();
    };
    state.stop = async () => {
      stopped = true;
      state.up = false;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => {});
    };
    void connect();
    return state;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#subscribers.clear();
    await this.#listening?.stop();
    this.#listening = null;
    await this.pool.end();
  }
}

/** `text` as `encode(…, 'escape')` spells its UTF-8 bytes: a zero or high byte as `\ooo`, a backslash doubled. */
const escapeBytes = (text: string) => [...Buffer.from(text)].map((b) => (b === 92 ? '\\\\' : b > 0 && b < 128 ? String.fromCharCode(b) : `\\${b.toString(8).padStart(3, '0')}`)).join('');

/** The SQL executor of the store's shared aggregates on `db` (see sql.ts): `?` becomes `$n` once per statement. */
export function pgSql(db: PgDb): Sql {
  const texts = new Map<string, string>();
  const numbered = (sql: string) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  const text = (sql: string) => texts.get(sql) ?? texts.set(sql, numbered(sql)).get(sql)!;
  const run = async (step: Step, on: Queryable): Promise<unknown> => {
    if (step.kind === 'tryLock') return db.tryXactLock(step.sql, on as pg.PoolClient);
    if (step.kind === 'run') return db.count(text(step.sql), step.params, on);
    const rows = await db.rows(text(step.sql), step.params, on);
    return step.kind === 'get' ? rows[0] : rows;
  };
  return {
    dialect: { forUpdate: ' FOR UPDATE', insertionOrder: 'ord', search: { position: 'strpos', rawText: (column) => `encode(${column}, 'escape')`, spell: escapeBytes } },
    get: (sql, ...params) => run({ kind: 'get', sql, params }, db.pool) as Promise<Row | undefined>,
    all: (sql, ...params) => run({ kind: 'all', sql, params }, db.pool) as Promise<Row[]>,
    run: (sql, ...params) => run({ kind: 'run', sql, params }, db.pool) as Promise<number>,
    transaction: (body) => db.tx(async (client) => drive(body(), (step) => run(step, client))),
    durable: async () => {},
    isUniqueViolation,
  };
}
