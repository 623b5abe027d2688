#!/usr/bin/env node
// `npm test`: every Playwright project (unit, integration, ui, e2e), after making sure a Chromium
// is there for the browser suite: Playwright's own, else a system one, else it installs one
// (Debian/Ubuntu's package when apt-get can be used, else `playwright install chromium`) or
// stops with the command that fixes it. Arguments are passed on to `playwright test`.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { findChromium } from '../dist/playwright/browser.js';

const require = createRequire(import.meta.url);
const playwrightCli = require.resolve('@playwright/test/cli');
const args = process.argv.slice(2);

function run(command, commandArgs, options = {}) {
  return spawnSync(command, commandArgs, { stdio: 'inherit', ...options }).status === 0;
}

function needsBrowser() {
  const projects = args.flatMap((a, i) => (a.startsWith('--project=') ? [a.slice(10)] : a === '--project' ? [args[i + 1]] : []));
  return projects.length === 0 || projects.includes('e2e') || projects.includes('ui');
}

function installChromium() {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = run('sh', ['-c', 'command -v apt-get >/dev/null'], { stdio: 'ignore' });
  const canSudo = !isRoot && run('sh', ['-c', 'command -v sudo >/dev/null && sudo -n true'], { stdio: 'ignore' });
  if (hasApt && (isRoot || canSudo)) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const apt = (...aptArgs) => (isRoot ? run('apt-get', aptArgs, { env }) : run('sudo', ['-n', 'apt-get', ...aptArgs], { env }));
    console.log("mailwright: no Chromium found; installing Debian/Ubuntu's chromium package");
    if (apt('update', '-qq') && apt('install', '-y', '-qq', 'chromium') && findChromium().source !== 'none') return true;
  }
  console.log('mailwright: no Chromium found; trying `npx playwright install chromium`');
  return run(process.execPath, [playwrightCli, 'install', 'chromium']) && findChromium().source !== 'none';
}

if (needsBrowser()) {
  let found = findChromium();
  if (found.source === 'none' && installChromium()) found = findChromium();
  if (found.source === 'none') {
    console.error('mailwright: no Chromium for the e2e suite. Fix: `npx playwright install chromium` (or `sudo apt-get install chromium`), then `npm test` again.');
    process.exit(1);
  }
  console.log(`mailwright: e2e uses ${found.source === 'playwright' ? "Playwright's own Chromium" : found.path}`);
}

// The Postgres suites (store contract, fleet) run when a PostgreSQL answers: the one
// MAILWRIGHT_TEST_DATABASE_URL names, else the usual local one (trust auth, database test).
async function findPostgres() {
  const candidates = process.env.MAILWRIGHT_TEST_DATABASE_URL ? [process.env.MAILWRIGHT_TEST_DATABASE_URL] : ['postgres://postgres@127.0.0.1:5432/test'];
  const { default: pg } = await import('pg');
  for (const url of candidates) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return url;
    } catch {
      // not this one
    } finally {
      await client.end().catch(() => {});
    }
  }
  return undefined;
}
// Under CI (CI=true) they are required: without a PostgreSQL they run and fail, saying why.
const postgres = await findPostgres();
if (postgres) process.env.MAILWRIGHT_TEST_DATABASE_URL = postgres;
else delete process.env.MAILWRIGHT_TEST_DATABASE_URL;
if (postgres) console.log(`mailwright: Postgres suites use ${postgres.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')}`);
else if (process.env.CI === 'true') console.error('mailwright: Postgres suites: no PostgreSQL answered, and CI=true requires them: they will fail (start PostgreSQL on 127.0.0.1:5432 or set MAILWRIGHT_TEST_DATABASE_URL)');
else console.log('mailwright: Postgres suites: skipped: no PostgreSQL (set MAILWRIGHT_TEST_DATABASE_URL to run them)');

const result = spawnSync(process.execPath, [playwrightCli, 'test', ...args], { stdio: 'inherit' });
process.exit(result.status ?? 1);
