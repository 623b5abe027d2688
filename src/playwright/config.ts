// Owns mailwrightServer(): the Playwright `webServer` entry that starts `mailwright serve` with
// a known API key and ports, stopping with the runner, and publishes MAILWRIGHT_URL /
// MAILWRIGHT_API_KEY / MAILWRIGHT_SMTP_URL so the fixture (in every worker) and the app under
// test find the same service.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PlaywrightTestConfig } from '@playwright/test';
import { LOCAL_API_KEY } from '../protocol/schemas.js';
import { SERVICE_NODE_FLAGS } from '../server/node-flags.js';
import { FIXTURE_ERROR_CODES, MailwrightFixtureError } from './errors.js';

/** One entry of Playwright's `webServer` config. */
export type WebServerEntry = Exclude<NonNullable<PlaywrightTestConfig['webServer']>, readonly unknown[]>;

/** Options of {@link mailwrightServer}. */
export interface MailwrightServerOptions {
  /**
   * HTTP port of the API.
   * @default 8025
   */
  httpPort?: number;
  /**
   * SMTP port the app under test sends to.
   * @default 2525
   */
  smtpPort?: number;
  /**
   * The API key the server ensures and the fixture uses.
   * @default process.env.MAILWRIGHT_API_KEY, else 'mw_playwright_local_key'
   */
  apiKey?: string;
  /**
   * Store: a SQLite file, or `:memory:` for a fresh store per run.
   * @default ':memory:'
   */
  data?: string;
  /**
   * Mailbox domain(s).
   * @default the server's default, 'mailwright.test'
   */
  domain?: string | string[];
  /** More `mailwright serve` arguments, e.g. `['--log-level', 'warn']`. */
  extraArgs?: string[];
  /**
   * Use a service already listening on the port instead of starting one. It must accept
   * `apiKey` (start it with `--api-key` the same key).
   * @default !process.env.CI
   */
  reuseExistingServer?: boolean;
  /**
   * How long to wait for `/health` to answer, in ms.
   * @default 30_000
   */
  timeout?: number;
}

/** The key used when none is given and MAILWRIGHT_API_KEY is unset (`mailwright mcp`'s own service uses it too). */
export const DEFAULT_PLAYWRIGHT_API_KEY = LOCAL_API_KEY;

/** Where `mailwright`'s CLI is: next to this module when built, else the package's dist/. */
function cliPath(): string {
  const candidates = [new URL('../cli.js', import.meta.url), new URL('../../dist/cli.js', import.meta.url)];
  for (const candidate of candidates) {
    const path = fileURLToPath(candidate);
    if (existsSync(path)) return path;
  }
  throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.cliNotFound, `mailwrightServer(): cannot find the mailwright CLI (looked for ${candidates.map((c) => fileURLToPath(c)).join(' and ')}); run \`npm run build\` in the mailwright package`);
}

function quote(arg: string): string {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  if (process.platform === 'win32') return `"${arg.replace(/"/g, '""')}"`;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Node flags the service runs with (see `src/server/node-flags.ts`). */
export { SERVICE_NODE_FLAGS };

/**
 * The first line `mailwright serve` prints; its groups become MAILWRIGHT_URL and
 * MAILWRIGHT_SMTP_URL in the runner's environment (Playwright's `webServer.wait`).
 */
const SERVE_BANNER = /listening: HTTP (?<mailwright_url>http:\/\/\S+) SMTP (?<mailwright_smtp_url>smtp:\/\/\S+)/;

/**
 * A Playwright `webServer` entry that runs `mailwright serve` on 127.0.0.1 with a known key.
 *
 * Side effect, on purpose: it sets `process.env.MAILWRIGHT_URL` (`http://127.0.0.1:<httpPort>`),
 * `MAILWRIGHT_API_KEY` and `MAILWRIGHT_SMTP_URL` (`smtp://127.0.0.1:<smtpPort>`) in the
 * process that loads the config. Playwright's workers inherit that environment, so the
 * fixture needs no further options; read `MAILWRIGHT_SMTP_URL` to configure the app under
 * test. Values already in the environment are overwritten with the ones this server uses.
 *
 * The CLI is run with the current Node (`process.execPath`) from the package's own
 * `dist/cli.js`, so it works from node_modules without `npx`. It is given the runner's pid
 * (`--exit-with-parent`), so the service stops when the runner ends, even if it was killed.
 *
 * @example
 * ```ts
 * // playwright.config.ts
 * import { defineConfig } from '@playwright/test';
 * import { mailwrightServer } from 'mailwright';
 *
 * export default defineConfig({
 *   webServer: [mailwrightServer({ httpPort: 8025, smtpPort: 2525 }), { command: 'npm start', url: 'http://localhost:3000' }],
 * });
 * ```
 */
export function mailwrightServer(options: MailwrightServerOptions = {}): WebServerEntry {
  const httpPort = options.httpPort ?? 8025;
  const smtpPort = options.smtpPort ?? 2525;
  for (const [name, port] of [['httpPort', httpPort], ['smtpPort', smtpPort]] as const) {
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.invalidOption, `mailwrightServer(): ${name} must be a port 0-65535 (0 = a free port the service picks), got ${port}`);
    }
  }
  // Port 0: the service takes free ports and says which in the first line it prints; Playwright
  // reads that line and puts the URLs in the environment the app and the workers start with.
  const picked = httpPort === 0 || smtpPort === 0;
  const apiKey = options.apiKey ?? process.env.MAILWRIGHT_API_KEY ?? DEFAULT_PLAYWRIGHT_API_KEY;
  // Workers load the config again and find the key this function published in the runner.
  const published = process.env.MAILWRIGHT_API_KEY !== undefined && process.env.MAILWRIGHT_API_KEY === process.env.MAILWRIGHT_API_KEY_ORIGIN_KEY;
  const origin = options.apiKey !== undefined ? 'option' : published ? process.env.MAILWRIGHT_API_KEY_ORIGIN : process.env.MAILWRIGHT_API_KEY !== undefined ? 'environment' : 'default';
  const domains = options.domain === undefined ? [] : Array.isArray(options.domain) ? options.domain : [options.domain];
  const args = [
    process.execPath,
    ...SERVICE_NODE_FLAGS,
    cliPath(),
    'serve',
    '--host', '127.0.0.1',
    '--http-port', String(httpPort),
    '--smtp-port', String(smtpPort),
    '--api-key', apiKey,
    '--data', options.data ?? ':memory:',
    ...domains.flatMap((d) => ['--domain', d]),
    // The service stops once this process (the runner) is gone, even if it was killed with SIGKILL.
    '--exit-with-parent', String(process.pid),
    ...(options.extraArgs ?? []),
  ];
  const baseURL = `http://127.0.0.1:${httpPort}`;
  if (!picked) {
    process.env.MAILWRIGHT_URL = baseURL;
    process.env.MAILWRIGHT_SMTP_URL = `smtp://127.0.0.1:${smtpPort}`;
  }
  process.env.MAILWRIGHT_API_KEY = apiKey;
  // Lets the fixture say where its key came from when the service refuses it.
  process.env.MAILWRIGHT_API_KEY_ORIGIN = origin;
  process.env.MAILWRIGHT_API_KEY_ORIGIN_KEY = apiKey;
  return {
    name: 'mailwright',
    command: args.map(quote).join(' '),
    ...(picked ? { wait: { stdout: SERVE_BANNER } } : { url: `${baseURL}/health` }),
    // A server on ports picked at start cannot be found again: always start a fresh one.
    reuseExistingServer: picked ? false : options.reuseExistingServer ?? !process.env.CI,
    timeout: options.timeout ?? 30_000,
    stdout: 'ignore',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 },
  };
}
