// PostgreSQL for the test suites: a fresh schema per caller in the database that
// MAILWRIGHT_TEST_DATABASE_URL names, dropped afterwards. Without that variable the Postgres
// suites skip themselves, saying so; under CI (CI=true) they run and fail instead, so a CI
// that lost its PostgreSQL does not pass without them.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The database the Postgres suites use, or undefined (they skip). */
export const TEST_DATABASE_URL = process.env.MAILWRIGHT_TEST_DATABASE_URL || undefined;

/** CI=true: the Postgres suites must run, and fail when no PostgreSQL answers. */
export const REQUIRE_POSTGRES = process.env.CI === 'true';

/** Why the Postgres suites did not run. */
export const NO_POSTGRES = 'skipped: no PostgreSQL (set MAILWRIGHT_TEST_DATABASE_URL=postgres://…/db to run the Postgres suites)';

export interface FreshSchema extends AsyncDisposable {
  /** A connection string whose search_path is the new, empty schema. */
  url: string;
  schema: string;
  drop(): Promise<void>;
}

/** Creates an empty schema in the test database; `drop()` (or `await using`) removes it with everything in it. */
export async function freshSchema(): Promise<FreshSchema> {
  if (!TEST_DATABASE_URL) {
    throw new Error('no PostgreSQL: CI=true requires the Postgres suites, and MAILWRIGHT_TEST_DATABASE_URL is not set (scripts/test.js sets it when a PostgreSQL answers at postgres://postgres@127.0.0.1:5432/test); start PostgreSQL or set the variable');
  }
  const schema = `mw_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    } finally {
      await client.end();
    }
  };
  return { url: url.toString(), schema, drop, [Symbol.asyncDispose]: drop };
}
