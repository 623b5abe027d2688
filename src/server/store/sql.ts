// Owns the thin SQL layer the store's aggregates are written on once for both backends: `?`
// placeholders, rows as the driver gives them (rows.ts coerces), the words where the dialects
// differ, and transactions whose body is a generator: SQLite runs it synchronously inside
// better-sqlite3's transaction (nothing slips in between two statements), PostgreSQL on one
// connection, awaiting each statement. The ingest path is each backend's own (*-messages.ts).
import type { Row } from './rows.js';

/** A statement parameter both drivers take (SQLite gets booleans as 1 and 0). */
export type Param = string | number | boolean | null | Buffer;

/** Where the two dialects say things differently. */
export interface Dialect {
  /** Appended to a SELECT that locks the rows it reads: ` FOR UPDATE`; '' in SQLite, whose write transactions already exclude each other. */
  readonly forUpdate: string;
  /** The column that orders a table's rows by insertion, where ids do not (`rowid`; `ord` in PostgreSQL). */
  readonly insertionOrder: string;
  /** Finding text: where a string starts in another (from 1; 0: nowhere), a bytes column as text whatever the bytes (PostgreSQL: `encode(…, 'escape')`), and a string as that text spells it. */
  readonly search: { position: 'instr' | 'strpos'; rawText(column: string): string; spell(text: string): string };
}

/** One statement a transaction body yields, run by the backend. */
export interface Step { kind: 'get' | 'all' | 'run' | 'tryLock'; sql: string; params: Param[] }

/** What a transaction body is: `yield*` each statement, `return` the result. */
export type TxBody<T> = Generator<Step, T, unknown>;

/**
 * The statements of a transaction body, each used with `yield*`:
 * `const row = yield* tx.get('SELECT … WHERE id = ?', id);`
 */
export const tx = {
  *get(sql: string, ...params: Param[]): Generator<Step, Row | undefined, unknown> {
    return (yield { kind: 'get', sql, params }) as Row | undefined;
  },
  *all(sql: string, ...params: Param[]): Generator<Step, Row[], unknown> {
    return (yield { kind: 'all', sql, params }) as Row[];
  },
  /** A write; the number of rows it changed. */
  *run(sql: string, ...params: Param[]): Generator<Step, number, unknown> {
    return (yield { kind: 'run', sql, params }) as number;
  },
  /**
   * Takes the lock `name` for the rest of the transaction if nobody holds it: true when taken.
   * PostgreSQL: a transaction-scoped advisory lock (instances sharing the database take turns);
   * SQLite: always true (one process, one writer at a time).
   */
  *tryLock(name: string): Generator<Step, boolean, unknown> {
    return (yield { kind: 'tryLock', sql: name, params: [] }) as boolean;
  },
};

/** A backend's executor: statements outside a transaction, transactions, durability. */
export interface Sql {
  readonly dialect: Dialect;
  get(sql: string, ...params: Param[]): Promise<Row | undefined>;
  all(sql: string, ...params: Param[]): Promise<Row[]>;
  /** A write; resolves the number of rows it changed. */
  run(sql: string, ...params: Param[]): Promise<number>;
  /** Runs `body` in one transaction: committed when it returns, rolled back when it throws. */
  transaction<T>(body: () => TxBody<T>): Promise<T>;
  /** Resolves once every write made so far is durable (SQLite syncs its log; a PostgreSQL commit already is). */
  durable(): Promise<void>;
  /** Whether `error` is a unique-constraint violation. */
  isUniqueViolation(error: unknown): boolean;
}

/** `value` once every write made so far is durable: for writes acknowledged to a caller. */
export async function acknowledged<T>(sql: Sql, value: T): Promise<T> {
  await sql.durable();
  return value;
}

/**
 * Runs a transaction body to its end, handing each step to `run`. Steps answered at once
 * (SQLite) run it synchronously and return its result; a step answered with a promise
 * (PostgreSQL) makes the rest wait for it, and a promise of the result is returned.
 */
export function drive<T>(body: TxBody<T>, run: (step: Step) => unknown, next = body.next()): T | Promise<T> {
  while (!next.done) {
    let result: unknown;
    try {
      result = run(next.value);
    } catch (error) {
      next = body.throw(error);
      continue;
    }
    if (result instanceof Promise) return result.then((value) => drive(body, run, body.next(value)), (error: unknown) => drive(body, run, body.throw(error)));
    next = body.next(result);
  }
  return next.value;
}
