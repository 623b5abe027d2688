// Owns the `mailwright` command: `serve`, the store administration commands, the commands
// that talk to a running service over HTTP (mailboxes create, messages list|show), and `mcp`
// (the MCP tools on stdio, against that service or one of its own). Results go
// to stdout (a created secret alone on the last line; lists as a table, or JSON with --json),
// errors to stderr in one line. Exit codes: 0 ok, 1 failure while running, 2 usage error.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { banner } from './banner.js';
import { prettyDestination } from './pretty-log.js';
import { fromNow, iso, table, when, type Column } from './table.js';
import { HELP_FLAG, SERVICE_FLAGS, STORE_FLAGS, commandUsage, groupUsage, mainUsage, nearest, numericRule, parseOptions, type CommandSpec, type Flag, type Flags } from './usage.js';
import { MailwrightApiError, MailwrightClient, MailwrightError, type Message, type MessageSummary } from '../client/index.js';
import { ADMIN_EMAIL, AdminError, createAccount, createKey, createSignInToken, grantQuota, mintRedeemCode, parseScopes, requireAccount, signInLink } from '../server/auth/accounts.js';
import { LOCAL_API_KEY } from '../protocol/schemas.js';
import { ConfigError, DEFAULT_HTTP_PORT, DEFAULT_SMTP_PORT, parseDuration, resolveConfig, type ServerOptions } from '../server/config.js';
import { ROLE_NAMES } from '../server/context.js';
import { openStore } from '../server/store/open.js';
import type { AccountRecord, Store } from '../server/store/store.js';
import { RUNTIME_SERVICE_FLAGS } from '../server/node-flags.js';
import { VERSION } from '../server/version.js';

/** A wrong command line (unknown command or option, missing or invalid argument): exit 2. */
class UsageError extends Error {
  readonly code = 'MW_ERR_USAGE';
}
/** A failure while running that its message fully explains (no stack): exit 1. */
class RunError extends Error {
  readonly code = 'MW_ERR_RUN';
}

type Values = Record<string, string | boolean | string[] | undefined>;

interface Command extends CommandSpec {
  /** Name of the one positional argument, for commands that take one. */
  positional?: string;
  run(values: Values, positionals: string[]): Promise<void>;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const LOG_FORMATS = ['pretty', 'json'];

const SERVE_FLAGS: Flags = {
  host: { type: 'string', arg: 'H', help: 'interface (default 127.0.0.1)' },
  'http-port': { type: 'string', arg: 'N', numeric: 'whole', help: 'HTTP port (default 8025; 0 = any free port)' },
  'smtp-port': { type: 'string', arg: 'N', numeric: 'whole', help: 'SMTP port (default 2525; 0 = any free port)' },
  domain: { type: 'string', multiple: true, arg: 'D', help: 'mailbox domain, repeatable (default mailwright.test)' },
  'api-key': { type: 'string', arg: 'KEY', help: 'ensure an admin account holding KEY exists' },
  'log-level': { type: 'string', arg: 'L', help: `${LOG_LEVELS.join('|')} (default info)` },
  'log-format': { type: 'string', arg: 'F', help: 'pretty|json (default pretty on a terminal, json otherwise)' },
  quota: { type: 'string', multiple: true, arg: 'ROLE=N', help: 'monthly call allowance of a role, repeatable (N or "unlimited")' },
  'max-message-size': { type: 'string', arg: 'N', help: 'largest SMTP message in bytes (default 10485760)' },
  'sweep-interval': { type: 'string', arg: 'D', help: 'how often expired mailboxes are deleted (default 30s)' },
  'webhook-timeout': { type: 'string', arg: 'D', help: 'webhook request timeout (default 5s)' },
  'webhook-retry-schedule': { type: 'string', arg: 'D,D,…', help: 'delays before each webhook retry (default 1s,2s,5s,10s,30s,1m,5m,15m,1h)' },
  'allow-private-webhooks': { type: 'boolean', help: 'allow webhooks to private addresses on a public host' },
  'greeting-delay': { type: 'string', arg: 'D', help: 'pause before the SMTP greeting, as an internet MX does (default 0: greet at once)' },
  'open-signup': { type: 'boolean', help: 'let people create civilian accounts from the web UI ("Create account")' },
  'trust-proxy': { type: 'string', arg: 'P', help: 'believe X-Forwarded-* from these proxies: true, or addresses/CIDRs, comma-separated (default: ignore them)' },
  'smtp-max-clients': { type: 'string', arg: 'N', help: 'most SMTP connections served at once (default 100)' },
  'catch-all': { type: 'boolean', help: 'local development: mail to any address at a served domain creates its mailbox' },
  'catch-all-owner': { type: 'string', arg: 'E', help: "the account owning catch-all mailboxes (default: the admin)" },
  'allow-catch-all-public': { type: 'boolean', help: 'allow --catch-all although the server listens on a public host' },
  'exit-with-parent': { type: 'string', arg: 'PID', help: 'stop (as on SIGTERM) once process PID is gone, e.g. a killed test runner' },
};

/** The options of `mailwright mcp`'s own service. */
const MCP_FLAGS: Flags = {
  'http-port': { ...SERVE_FLAGS['http-port']!, help: 'HTTP port of its own service: API, web UI, /mcp (default 8025; 0 = any free port)' },
  'smtp-port': { ...SERVE_FLAGS['smtp-port']!, help: 'SMTP port of its own service, where the app sends mail (default 2525; 0 = any free port)' },
  domain: SERVE_FLAGS.domain!,
  'log-level': { ...SERVE_FLAGS['log-level']!, help: `${LOG_LEVELS.join('|')} (default warn), written to stderr` },
};

const EMAIL: Flag = { type: 'string', arg: 'E', help: "the account's email (required)" };
const CALLS: Flag = { type: 'string', arg: 'N', numeric: 'positive', help: 'number of API calls (required)' };
const JSON_FLAG: Flag = { type: 'boolean', help: 'print a JSON array instead of a table' };

/** A command's own flags, then the store's and --help. */
function withCommon(own: Flags): Flags {
  return { ...own, ...STORE_FLAGS, ...HELP_FLAG };
}

/** Writes `text` to stdout as whole lines. */
function out(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** A string flag's value. */
const str = (values: Values, flag: string) => values[flag] as string | undefined;

function integer(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`--${name} must be a whole number, got "${text}"`);
  return Number(text);
}

/** A count flag's value: a whole number above 0 (`-5` and `0` are numbers, but not counts). */
function count(name: string, text: string): number {
  if (!/^[-+]?\d+$/.test(text.trim())) return integer(name, text)!;
  const value = Number(text);
  if (!(value > 0) || !Number.isSafeInteger(value)) throw new UsageError(`--${name} must be ${numericRule('positive')}, got ${text.trim()}`);
  return value;
}

function parseQuota(entries: string[]): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const entry of entries.flatMap((e) => e.split(',')).filter(Boolean)) {
    const match = /^([a-z]+)=(\d+|unlimited)$/i.exec(entry.trim());
    if (!match) throw new UsageError(`--quota "${entry}" must look like ROLE=N or ROLE=unlimited, e.g. --quota civilian=1000`);
    out[match[1]!.toLowerCase()] = match[2] === 'unlimited' ? null : Number(match[2]);
  }
  return out;
}

/** serve options from flags, falling back to MAILWRIGHT_* variables. */
export function serveOptions(values: Record<string, string | boolean | string[] | undefined>, env: NodeJS.ProcessEnv): ServerOptions {
  const pick = (flag: string) => (values[flag] as string | undefined) ?? env[`MAILWRIGHT_${flag.toUpperCase().replace(/-/g, '_')}`];
  const domains = (values.domain as string[] | undefined) ?? env.MAILWRIGHT_DOMAIN?.split(',').map((d) => d.trim()).filter(Boolean);
  const quota = (values.quota as string[] | undefined) ?? (env.MAILWRIGHT_QUOTA ? [env.MAILWRIGHT_QUOTA] : []);
  const duration = (flag: string) => {
    const text = pick(flag);
    return text === undefined ? undefined : parseDuration(text);
  };
  const schedule = pick('webhook-retry-schedule');
  const flag = (name: string) => values[name] === true || /^(1|true|yes)$/i.test(env[`MAILWRIGHT_${name.toUpperCase().replace(/-/g, '_')}`] ?? '');
  return {
    host: pick('host'),
    httpPort: integer('http-port', pick('http-port')),
    smtpPort: integer('smtp-port', pick('smtp-port')),
    data: pick('data'),
    databaseUrl: pick('database-url'),
    domains,
    apiKey: pick('api-key'),
    logLevel: pick('log-level'),
    quota: parseQuota(quota),
    maxMessageSize: integer('max-message-size', pick('max-message-size')),
    sweepIntervalMs: duration('sweep-interval'),
    webhookTimeoutMs: duration('webhook-timeout'),
    greetingDelayMs: duration('greeting-delay'),
    webhookRetrySchedule: schedule === undefined ? undefined : schedule.split(',').filter(Boolean).map(parseDuration),
    allowPrivateWebhooks: flag('allow-private-webhooks'),
    openSignup: flag('open-signup'),
    trustProxy: pick('trust-proxy'),
    smtpMaxClients: integer('smtp-max-clients', pick('smtp-max-clients')),
    catchAll: flag('catch-all'),
    catchAllOwner: pick('catch-all-owner'),
    allowCatchAllPublic: flag('allow-catch-all-public'),
  };
}

/** `--log-format`, else MAILWRIGHT_LOG_FORMAT, else pretty on a terminal and json otherwise. */
function logFormat(values: Values, env: NodeJS.ProcessEnv): 'pretty' | 'json' {
  const given = str(values, 'log-format') ?? (env.MAILWRIGHT_LOG_FORMAT || undefined);
  if (given === undefined) return process.stdout.isTTY ? 'pretty' : 'json';
  if (!LOG_FORMATS.includes(given)) throw new UsageError(`--log-format must be ${LOG_FORMATS.join(' or ')}, got "${given}"`);
  return given as 'pretty' | 'json';
}

/** The store flag to repeat in a suggested command ('' for the default store). */
function storeArgs(config: { data: string; databaseUrl: string | null }): string {
  if (config.databaseUrl) return ' --database-url URL';
  if (config.data === join('.mailwright', 'mailwright.db')) return '';
  return ` --data ${/^[\w@%+=:,./-]+$/.test(config.data) ? config.data : JSON.stringify(config.data)}`;
}

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `--exit-with-parent`, else MAILWRIGHT_EXIT_WITH_PARENT: the pid whose end stops the service. */
function parentToWatch(values: Values, env: NodeJS.ProcessEnv): number | undefined {
  const text = str(values, 'exit-with-parent') ?? (env.MAILWRIGHT_EXIT_WITH_PARENT || undefined);
  const pid = integer('exit-with-parent', text);
  if (pid === undefined) return undefined;
  if (pid === 0 || !isAlive(pid)) throw new UsageError(`--exit-with-parent ${text}: no process has that pid; pass the pid of the process whose end should stop the service`);
  return pid;
}

/**
 * Calls `onGone` once process `pid` has ended or this process has a new parent (its own parent
 * ended), checked every second. A runner killed with SIGKILL cannot stop what it started; this
 * does. The pid is passed rather than the parent's taken, as the parent may be a shell.
 */
function watchParent(pid: number, onGone: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (isAlive(pid) && process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, 1_000);
  timer.unref();
}

async function serve(values: Values): Promise<void> {
  const options = serveOptions(values, process.env);
  const parentPid = parentToWatch(values, process.env);
  if (options.logLevel !== undefined && !LOG_LEVELS.includes(options.logLevel)) {
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${options.logLevel}"`);
  }
  const pretty = logFormat(values, process.env) === 'pretty';
  const config = resolveConfig(options);
  // The service's process: V8 reads these as it runs, so they take effect without a restart.
  for (const flag of RUNTIME_SERVICE_FLAGS) setFlagsFromString(flag);
  const logDestination = pretty ? prettyDestination(process.stdout, { color: process.stdout.isTTY === true && process.stdout.hasColors() }) : undefined;
  // Loaded only to serve: the HTTP app, its plugins and templates are not needed by the other commands.
  const { startServer } = await import('../server/start.js');
  const server = await startServer(options, { logDestination }).catch((error: unknown) => {
    throw portInUse(error, options) ?? error;
  });
  let stopping = false;
  // The one way the service stops: on a signal, or once the process it was told to follow is gone.
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${why}\n`);
    const force = setTimeout(() => {
      process.stderr.write('shutdown took longer than 15 s; exiting anyway\n');
      process.exit(1);
    }, 15_000);
    force.unref();
    server.close().then(() => process.exit(0), (error: unknown) => {
      process.stderr.write(`shutdown failed: ${String(error)}\n`);
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM: shutting down'));
  process.on('SIGINT', () => stop('SIGINT: shutting down'));
  if (parentPid !== undefined) {
    watchParent(parentPid, () => {
      // Whoever read this output may have gone with it: a write into its closed pipe (EPIPE) must
      // not end the process before it has stopped.
      for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
      stop(`the process that started this service (pid ${parentPid}) is gone; stopping`);
    });
  }
  // Where it listens, for `accounts sign-in-link` and the HTTP commands run beside this store; gone when it stops.
  const forget = recordService(serviceRecordFile(config), server.httpUrl);
  process.once('exit', forget);
  const configuredBy = str(values, 'api-key') ? '--api-key' : process.env.MAILWRIGHT_API_KEY ? 'MAILWRIGHT_API_KEY' : null;
  // Printed last, in one write: whoever waits for its first line may signal at once.
  process.stdout.write(
    banner({
      version: VERSION,
      httpUrl: server.httpUrl,
      smtpUrl: server.smtpUrl,
      adminEmail: ADMIN_EMAIL,
      data: config.data,
      databaseUrl: config.databaseUrl,
      storeArgs: storeArgs(config),
      key: configuredBy ? { configuredBy } : server.apiKey ? { created: server.apiKey } : null,
      signInUrl: server.signInUrl,
      catchAll: server.catchAll,
    }),
  );
}

/**
 * `mailwright mcp`: the MCP tools on stdio, against the service the environment names, or
 * against a service of its own on 127.0.0.1 (the embedded default) when it names none.
 */
async function mcp(values: Values): Promise<void> {
  const env = process.env;
  const url = env.MAILWRIGHT_URL?.trim() || undefined;
  const apiKey = env.MAILWRIGHT_API_KEY?.trim() || undefined;
  const { serveStdio } = await import('../mcp/server.js');
  if (url !== undefined || apiKey !== undefined) {
    if (apiKey === undefined) throw new UsageError(`\`mailwright mcp\` with MAILWRIGHT_URL needs MAILWRIGHT_API_KEY (an API key of that service, mw_…); unset MAILWRIGHT_URL to start a service of its own`);
    const base = (url ?? `http://127.0.0.1:${DEFAULT_HTTP_PORT}`).replace(/\/+$/, '');
    if (!/^https?:\/\//i.test(base)) throw new UsageError(`MAILWRIGHT_URL is "${base}", which is not an http:// or https:// URL; write e.g. http://127.0.0.1:${DEFAULT_HTTP_PORT}`);
    const client = new MailwrightClient({ baseURL: base, apiKey, timeout: 15_000 });
    await serveStdio(client, { smtpUrl: env.MAILWRIGHT_SMTP_URL?.trim() || (await smtpUrlOf(client, base)) });
    await client.close().catch(() => {});
    return;
  }
  const options: ServerOptions = { ...serveOptions(values, env), host: '127.0.0.1', apiKey: LOCAL_API_KEY, catchAll: false };
  options.logLevel ??= 'warn';
  if (!LOG_LEVELS.includes(options.logLevel)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${options.logLevel}"`);
  const config = resolveConfig(options);
  const { startServer } = await import('../server/start.js');
  const server = await startServer(options, { logDestination: prettyDestination(process.stderr, { color: false }) }).catch((error: unknown) => {
    const busy = portInUse(error, options);
    if (!busy) throw error;
    throw new RunError(`${busy.message}. If it is a mailwright service, set MAILWRIGHT_URL and MAILWRIGHT_API_KEY for \`mailwright mcp\` to use it instead`);
  });
  const forget = recordService(serviceRecordFile(config), server.httpUrl);
  const signIn = server.signInUrl ? `; sign in to its web UI once with ${server.signInUrl}` : '';
  process.stderr.write(`mailwright mcp: its own service: web UI and API ${server.httpUrl}, SMTP ${server.smtpUrl}, store ${config.databaseUrl ? 'PostgreSQL' : config.data}${signIn}\n`);
  const client = new MailwrightClient({ baseURL: server.httpUrl, apiKey: LOCAL_API_KEY, timeout: 15_000 });
  const stopped = new AbortController();
  const stop = () => stopped.abort();
  process.once('SIGTERM', stop).once('SIGINT', stop);
  try {
    await Promise.race([serveStdio(client, { smtpUrl: server.smtpUrl, signal: stopped.signal }), new Promise((resolve) => stopped.signal.addEventListener('abort', resolve))]);
  } finally {
    forget();
    await client.close().catch(() => {});
    await server.close();
    // Stopped by a signal, stdin may still be open: it would keep the process alive.
    process.stdin.destroy();
  }
}

/**
 * Where a running service takes mail, from its own answer (`smtpPort` of GET /api/config) at the
 * API's host; null when it cannot say (an older service, a key without the `config` scope).
 */
async function smtpUrlOf(client: MailwrightClient, base: string): Promise<string | null> {
  try {
    const { smtpPort } = await client.getConfig();
    return smtpPort === undefined ? null : `smtp://${new URL(base).hostname}:${smtpPort}`;
  } catch (error) {
    process.stderr.write(`mailwright mcp: the service at ${base} did not say its SMTP port (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); set MAILWRIGHT_SMTP_URL to tell agents where mail goes\n`);
    return null;
  }
}

/** A one-line, actionable error for a port that another process holds, instead of a stack trace. */
function portInUse(error: unknown, options: { httpPort?: number | undefined; smtpPort?: number | undefined }): RunError | undefined {
  const e = error as { code?: string; port?: number };
  if (e?.code !== 'EADDRINUSE') return undefined;
  const smtpPort = options.smtpPort ?? DEFAULT_SMTP_PORT;
  const smtp = e.port !== undefined && e.port === smtpPort && e.port !== (options.httpPort ?? DEFAULT_HTTP_PORT);
  const flag = smtp ? 'smtp-port' : 'http-port';
  const port = e.port ?? (smtp ? smtpPort : options.httpPort ?? DEFAULT_HTTP_PORT);
  return new RunError(
    `${smtp ? 'SMTP' : 'HTTP'} port ${port} is already in use; pass --${flag} with another port, or --${flag} 0 to take a free one (or stop the process that holds it)`,
  );
}

/** The store the flags (or MAILWRIGHT_DATA / MAILWRIGHT_DATABASE_URL) name, resolved. */
function storeConfig(values: Values) {
  const env = process.env;
  return resolveConfig({ data: str(values, 'data') ?? env.MAILWRIGHT_DATA, databaseUrl: str(values, 'database-url') ?? env.MAILWRIGHT_DATABASE_URL });
}

/** Where `serve` records the URL it listens on: beside its SQLite file (none for :memory: or PostgreSQL). */
function serviceRecordFile(config: { data: string; databaseUrl: string | null }): string | undefined {
  return config.databaseUrl || config.data === ':memory:' ? undefined : `${config.data}.service.json`;
}

interface ServiceRecord {
  url: string;
  pid: number;
}

function readServiceRecord(file: string): ServiceRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as Partial<ServiceRecord>;
    return typeof record.url === 'string' && typeof record.pid === 'number' ? { url: record.url, pid: record.pid } : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the record (best effort: a read-only folder only loses the convenience); returns what removes it. */
function recordService(file: string | undefined, url: string): () => void {
  if (!file) return () => {};
  try {
    writeFileSync(file, `${JSON.stringify({ url, pid: process.pid, startedAt: new Date().toISOString() })}\n`);
  } catch {
    return () => {};
  }
  return () => {
    // Another `serve` on the same store may have recorded itself since.
    if (readServiceRecord(file)?.pid === process.pid) rmSync(file, { force: true });
  };
}

/** Where the running service is, and who said so (for messages). */
interface ServiceAddress {
  url: string;
  source: 'flag' | 'environment' | 'recorded' | 'default';
}

/**
 * The service's address: --url, else MAILWRIGHT_URL, else what a running `serve` of this store
 * recorded, else the default port on this machine.
 */
function serviceAddress(values: Values, config: { data: string; databaseUrl: string | null } | undefined): ServiceAddress {
  const trim = (url: string) => url.replace(/\/+$/, '');
  const flag = str(values, 'url');
  if (flag !== undefined) return { url: trim(flag), source: 'flag' };
  if (process.env.MAILWRIGHT_URL) return { url: trim(process.env.MAILWRIGHT_URL), source: 'environment' };
  const file = config ? serviceRecordFile(config) : undefined;
  const record = file ? readServiceRecord(file) : undefined;
  if (record && isAlive(record.pid)) return { url: trim(record.url), source: 'recorded' };
  return { url: `http://127.0.0.1:${DEFAULT_HTTP_PORT}`, source: 'default' };
}

/** Opens the store the flags (or MAILWRIGHT_DATA / MAILWRIGHT_DATABASE_URL) name; `mustExist` for commands that only read. */
async function withStore<T>(values: Values, run: (store: Store, roles: string[]) => Promise<T>, opts: { mustExist?: boolean } = {}): Promise<T> {
  const config = storeConfig(values);
  if (opts.mustExist && !config.databaseUrl && config.data !== ':memory:' && !existsSync(config.data)) {
    throw new RunError(`there is no store at ${resolve(config.data)}; pass --data with the file \`mailwright serve\` uses (default ./.mailwright/mailwright.db)`);
  }
  const store = await openStore(config);
  try {
    return await run(store, Object.keys(config.roles));
  } finally {
    await store.close();
  }
}

function required(value: string | undefined, name: string, example: string): string {
  if (!value) throw new UsageError(`${name} is required, e.g. ${example}`);
  return value;
}

/** Opens the store and finds the account that the (required) --email names. */
async function withAccount<T>(values: Values, run: (store: Store, account: AccountRecord) => Promise<T>, opts: { mustExist?: boolean } = {}): Promise<T> {
  const email = required(str(values, 'email'), '--email', '--email qa@example.com');
  return withStore(values, async (store) => run(store, await requireAccount(store, email)), opts);
}

/** Rows as a table for people, or with --json as a JSON array for scripts. */
function printList<T>(values: Values, rows: readonly T[], json: (row: T) => object, columns: ReadonlyArray<Column<T>>, empty: string): void {
  out(values.json ? JSON.stringify(rows.map(json), null, 2) : table(rows, columns, empty));
}

/** The service commands' flags, then --help. */
function withServiceFlags(own: Flags): Flags {
  return { ...own, ...SERVICE_FLAGS, ...HELP_FLAG };
}

/** A failure of the running service as one line: its code first, then what to do. */
function serviceError(code: string, message: string): RunError {
  return new RunError(`${code}: ${message}`);
}

/**
 * Runs `run` with a client of the running service (see {@link serviceAddress}) and the key of
 * --api-key or MAILWRIGHT_API_KEY; a service that does not answer, or refuses the key, is one
 * coded line naming the way out (exit 1).
 */
async function withService<T>(values: Values, run: (client: MailwrightClient, url: string) => Promise<T>): Promise<T> {
  const env = process.env;
  let config: ReturnType<typeof storeConfig> | undefined;
  try {
    config = resolveConfig({ data: env.MAILWRIGHT_DATA, databaseUrl: env.MAILWRIGHT_DATABASE_URL });
  } catch {
    config = undefined; // no store to look beside: the default address
  }
  const service = serviceAddress(values, config);
  const keyFrom = str(values, 'api-key') !== undefined ? '--api-key' : 'MAILWRIGHT_API_KEY';
  const apiKey = str(values, 'api-key') ?? (env.MAILWRIGHT_API_KEY || undefined);
  if (!apiKey) {
    throw new UsageError('an API key is required: pass --api-key mw_… or set MAILWRIGHT_API_KEY (`mailwright keys create --email you@example.com` makes one; `mailwright serve` prints the admin\'s at its first start)');
  }
  let client: MailwrightClient;
  try {
    client = new MailwrightClient({ baseURL: service.url, apiKey, timeout: 15_000 });
  } catch {
    throw new UsageError(`${service.source === 'flag' ? '--url' : 'MAILWRIGHT_URL'} is "${service.url}", which is not an http:// or https:// URL; write e.g. http://127.0.0.1:${DEFAULT_HTTP_PORT}`);
  }
  try {
    return await run(client, client.baseURL);
  } catch (error) {
    throw explainServiceFailure(error, service, `${apiKey.slice(0, 8)}… (from ${keyFrom})`);
  } finally {
    await client.close().catch(() => {});
  }
}

/** A client error as the CLI says it: unreachable service, refused key, or the API's own problem. */
function explainServiceFailure(error: unknown, service: ServiceAddress, key: string): unknown {
  const where = { flag: 'given by --url', environment: 'from MAILWRIGHT_URL', recorded: 'where `mailwright serve` said it listens', default: 'the default address' }[service.source];
  if (error instanceof MailwrightApiError) {
    switch (error.code) {
      case 'missing_api_key':
      case 'invalid_api_key':
        return serviceError(error.code, `the service at ${service.url} refused the API key ${key}: it is unknown there, or revoked. Pass a live key with --api-key or MAILWRIGHT_API_KEY; \`mailwright keys create --email you@example.com --data FILE\` makes one in the service's store`);
      case 'scope_denied':
        return serviceError(error.code, `the API key ${key} lacks the "emails" scope; make one that has it: \`mailwright keys create --email you@example.com --scopes emails\``);
      default:
        if (/^http_\d+$/.test(error.code)) {
          return serviceError(error.code, `the server at ${service.url} (${where}) answered HTTP ${error.status}, not as a mailwright service does; pass --url (or set MAILWRIGHT_URL) with the address \`mailwright serve\` printed`);
        }
        return serviceError(error.code, error.detail);
    }
  }
  if (error instanceof MailwrightError) {
    const reason = error.cause instanceof Error ? error.cause.message : error.message.split('\n')[0];
    if (error.code === 'MW_ERR_CONNECTION' || error.code === 'MW_ERR_TIMEOUT') {
      return serviceError(error.code, `no mailwright service answers at ${service.url} (${where}): ${reason}. Start one with \`npx mailwright serve\`, or pass --url (or set MAILWRIGHT_URL) with the address it printed`);
    }
    if (error.code === 'MW_ERR_BAD_RESPONSE') {
      return serviceError(error.code, `the server at ${service.url} (${where}) did not answer as a mailwright service does: ${reason}; check --url`);
    }
    return serviceError(error.code, error.message.split('\n')[0]!);
  }
  return error;
}

/** Longest subject shown in a table cell; a longer one is cut with `…`. */
const SUBJECT_WIDTH = 60;

function clip(text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/** `Name <address>`, or the address alone. */
function addressText(address: { name?: string | null; address: string } | null | undefined): string {
  if (!address) return '(no sender)';
  return address.name ? `${address.name} <${address.address}>` : address.address;
}

/** Pages of `GET /api/emails` read at most, 100 messages each: the account's recent mail, for people. */
const MAX_LISTING_PAGES = 50;

/** Every message of the account's live mailboxes (up to {@link MAX_LISTING_PAGES} pages), oldest first. */
async function allMessages(client: MailwrightClient): Promise<MessageSummary[]> {
  const messages: MessageSummary[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_LISTING_PAGES; page++) {
    const answer = await client.listEmails({ limit: 100, ...(after !== undefined ? { after } : {}) });
    messages.push(...answer.messages);
    after = answer.cursor;
    if (answer.messages.length < 100) break;
  }
  return messages;
}

/** The message with this id: in `mailbox` when given, else looked up among the account's live mailboxes. */
async function findMessage(client: MailwrightClient, id: string, mailbox: string | undefined): Promise<Message> {
  if (mailbox !== undefined) return client.getMessage(mailbox, id);
  const summary = (await allMessages(client)).find((m) => m.id === id);
  if (!summary) {
    throw serviceError('message_not_found', `no message ${id} in the live mailboxes of this key's account; list them with \`mailwright messages list\` (a message goes with its mailbox when that expires)`);
  }
  return client.getMessage(summary.mailboxId, id);
}

/** What `messages show` prints: the message, its text, its links and what the fixture's waits would find. */
async function describeMessage(message: Message, url: string): Promise<{ text: string; json: object }> {
  // Loaded here only: the other commands do not need the HTML parser.
  const { explainCode, explainVerificationLink, findLinks } = await import('../extract/index.js');
  const input = { subject: message.subject, text: message.text, html: message.html };
  const links = findLinks(input);
  const link = explainVerificationLink(input);
  const code = explainCode(input);
  const page = `${url}/mailboxes/${encodeURIComponent(message.mailboxId)}/messages/${encodeURIComponent(message.id)}`;
  const lines = [
    `Subject  ${message.subject || '(no subject)'}`,
    `From     ${addressText(message.from)}`,
    `To       ${message.to.map(addressText).join(', ') || '(none)'}`,
    `Date     ${when(Date.parse(message.receivedAt))}`,
    `Mailbox  ${message.mailbox} (${message.mailboxId})`,
    `Id       ${message.id}`,
    `Web UI   ${page}`,
    '',
    message.text?.trim() ? message.text.trimEnd() : message.html ? '(no text part; the HTML part is in the web UI, above)' : '(no body)',
    '',
    links.length === 0 ? 'Links: none' : `Links (${links.length}):`,
    ...links.map((l, i) => `  ${i + 1}. ${l.url}${l.kind === 'other' ? '' : `  [${l.kind}]`}`),
    '',
    `Verification link: ${link.answer ?? `none (${link.verdict})`}`,
    `Code: ${code.answer ?? `none (${code.verdict})`}`,
  ];
  return {
    text: lines.join('\n'),
    json: { ...message, webUI: page, links: links.map((l) => ({ url: l.url, text: l.text, kind: l.kind })), verificationLink: link.answer ?? null, code: code.answer ?? null },
  };
}

const COMMANDS: readonly Command[] = [
  {
    name: 'serve',
    synopsis: '[options]',
    summary: 'run the HTTP API, web UI and SMTP server',
    about: 'Every option has a MAILWRIGHT_* twin, e.g. MAILWRIGHT_HTTP_PORT for --http-port; a flag wins over its variable.',
    flags: withCommon(SERVE_FLAGS),
    run: serve,
  },
  {
    name: 'accounts create',
    synopsis: '--email E [--role R] [--password P]',
    summary: 'create an account',
    flags: withCommon({
      email: EMAIL,
      role: { type: 'string', arg: 'R', help: `${ROLE_NAMES.join('|')} (default civilian)` },
      password: { type: 'string', arg: 'P', help: 'password for signing in to the web UI' },
    }),
    run: async (values) => {
      const email = required(str(values, 'email'), '--email', '--email qa@example.com');
      await withStore(values, async (store, roles) => {
        const account = await createAccount(store, roles, { email, role: str(values, 'role'), password: str(values, 'password'), now: Date.now() });
        out(`created account ${account.email} (${account.id}), role ${account.role}`);
      });
    },
  },
  {
    name: 'accounts list',
    synopsis: '[--json]',
    summary: 'list the accounts with their role and live mailboxes',
    flags: withCommon({ json: JSON_FLAG }),
    run: (values) =>
      withStore(values, async (store) => {
        printList(
          values,
          await store.listAccounts(Date.now()),
          (a) => ({ id: a.id, email: a.email, role: a.role, admin: a.isAdmin, createdAt: iso(a.createdAt), liveMailboxes: a.liveMailboxes }),
          [['email', (a) => a.email], ['role', (a) => a.role], ['admin', (a) => (a.isAdmin ? 'yes' : 'no')], ['created', (a) => when(a.createdAt)], ['mailboxes', (a) => String(a.liveMailboxes)]],
          'no accounts yet; create one with `mailwright accounts create --email E`',
        );
      }, { mustExist: true }),
  },
  {
    name: 'accounts sign-in-link',
    synopsis: '--email E [--url URL]',
    summary: 'print a one-time web UI sign-in link (15 minutes) that lets the account set a new password',
    about: 'The link uses --url, else MAILWRIGHT_URL, else the address the running `mailwright serve` of this store recorded, else the default port.',
    flags: withCommon({
      email: EMAIL,
      url: { type: 'string', arg: 'URL', help: `the service's address, as a browser reaches it (default: see above, http://127.0.0.1:${DEFAULT_HTTP_PORT} last)` },
    }),
    run: (values) =>
      withAccount(values, async (store, account) => {
        const token = await createSignInToken(store, account, Date.now());
        const service = serviceAddress(values, storeConfig(values));
        if (service.source === 'default') {
          process.stderr.write(`mailwright: note: no running \`mailwright serve\` of this store was found, so the link assumes the default address ${service.url}; if the service listens elsewhere, pass --url (or set MAILWRIGHT_URL) with the address it printed\n`);
        }
        out(`one-time sign-in link for ${account.email} (works once, for 15 minutes):`);
        out(signInLink(service.url, token));
      }, { mustExist: true }),
  },
  {
    name: 'keys create',
    synopsis: '--email E [--scopes emails,config] [--name N]',
    summary: 'create an API key for an account; the key is shown only once',
    flags: withCommon({
      email: EMAIL,
      scopes: { type: 'string', arg: 'LIST', help: 'comma-separated subset of emails,config (default both)' },
      name: { type: 'string', arg: 'N', help: 'a label for the key (default "default")' },
    }),
    run: (values) =>
      withAccount(values, async (store, account) => {
        const { key, record } = await createKey(store, account, { scopes: parseScopes(str(values, 'scopes')), name: str(values, 'name'), now: Date.now() });
        out(`created key ${record.id} (${record.name}) for ${account.email} with scopes ${record.scopes.join(',')}; it is shown only now:`);
        out(key);
      }),
  },
  {
    name: 'keys list',
    synopsis: '--email E [--json]',
    summary: "list an account's API keys (prefixes only; secrets are never stored)",
    flags: withCommon({ email: EMAIL, json: JSON_FLAG }),
    run: (values) =>
      withAccount(values, async (store, account) => {
        printList(
          values,
          await store.listApiKeys(account.id),
          (k) => ({ id: k.id, name: k.name, prefix: k.prefix, scopes: k.scopes, createdAt: iso(k.createdAt), revokedAt: iso(k.revokedAt) }),
          [['id', (k) => k.id], ['name', (k) => k.name], ['prefix', (k) => `${k.prefix}…`], ['scopes', (k) => k.scopes.join(',')], ['created', (k) => when(k.createdAt)], ['revoked', (k) => (k.revokedAt === null ? 'no' : when(k.revokedAt))]],
          `${account.email} has no API keys; create one with \`mailwright keys create --email ${account.email}\``,
        );
      }, { mustExist: true }),
  },
  {
    name: 'keys revoke',
    synopsis: 'KEY_ID',
    summary: 'revoke an API key by its id (see `mailwright keys list`)',
    positional: 'KEY_ID',
    flags: withCommon({}),
    run: async (values, positionals) => {
      const id = required(positionals[0], 'KEY_ID', 'mailwright keys revoke key_abc123');
      await withStore(values, async (store) => {
        if (!(await store.revokeApiKey(id, Date.now()))) throw new AdminError('key_not_found', `no live key has id ${id}; key ids look like key_… (see \`mailwright keys list --email E\`)`);
        out(`revoked key ${id}`);
      });
    },
  },
  {
    name: 'mailboxes list',
    synopsis: '[--email E] [--json]',
    summary: 'list the live mailboxes of every account, or of one',
    flags: withCommon({ email: { ...EMAIL, help: "only this account's mailboxes" }, json: JSON_FLAG }),
    run: (values) =>
      withStore(values, async (store) => {
        const now = Date.now();
        const email = str(values, 'email');
        const account = email === undefined ? undefined : await requireAccount(store, email);
        printList(
          values,
          await store.listLiveMailboxes({ accountId: account?.id, now }),
          (m) => ({ id: m.id, address: m.address, accountEmail: m.accountEmail, createdAt: iso(m.createdAt), expiresAt: iso(m.expiresAt), messages: m.messageCount }),
          [['address', (m) => m.address], ['id', (m) => m.id], ['account', (m) => m.accountEmail], ['expires', (m) => `${when(m.expiresAt)} (${fromNow(m.expiresAt, now)})`], ['messages', (m) => String(m.messageCount)]],
          account ? `${account.email} has no live mailboxes` : 'no live mailboxes',
        );
      }, { mustExist: true }),
  },
  {
    name: 'mailboxes create',
    synopsis: '[--name N] [--expiry 1h] [--domain D]',
    summary: 'create a mailbox on the running service; prints its address and id',
    about: 'Talks to the running service over HTTP, as the account of the API key.',
    flags: withServiceFlags({
      name: { type: 'string', arg: 'N', help: 'the local part, e.g. alice for alice@mailwright.test (default random)' },
      expiry: { type: 'string', arg: 'D', help: 'how long it lives, e.g. 30m, 1h or 24h (default 1h; at least 1m)' },
      domain: { type: 'string', arg: 'D', help: "one of the service's domains (default its first)" },
      json: { type: 'boolean', help: 'print the mailbox as JSON' },
    }),
    run: async (values) => {
      const expiryText = str(values, 'expiry') ?? '1h';
      let expiryTime: number;
      try {
        expiryTime = parseDuration(expiryText);
      } catch {
        throw new UsageError(`--expiry must be a duration such as 30m or 1h, got "${expiryText}"`);
      }
      if (expiryTime < 60_000) throw new UsageError(`--expiry must be at least 1m, got ${expiryText}`);
      const name = str(values, 'name');
      const domain = str(values, 'domain');
      await withService(values, async (client, url) => {
        const mailbox = await client.createMailbox({ expiryTime, ...(name !== undefined ? { name } : {}), ...(domain !== undefined ? { domain } : {}) });
        const page = `${url}/mailboxes/${encodeURIComponent(mailbox.id)}`;
        if (values.json) return out(JSON.stringify({ ...mailbox, webUI: page }, null, 2));
        const expires = Date.parse(mailbox.expiresAt);
        out([`address  ${mailbox.email}`, `id       ${mailbox.id}`, `expires  ${when(expires)} (${fromNow(expires, Date.now())})`, `web UI   ${page}`].join('\n'));
      });
    },
  },
  {
    name: 'messages list',
    synopsis: '[--mailbox M] [--limit N] [--json]',
    summary: "list the newest messages of the key's live mailboxes, or of one",
    about: 'Talks to the running service over HTTP, as the account of the API key. Newest first.',
    flags: withServiceFlags({
      mailbox: { type: 'string', arg: 'M', help: 'only this mailbox (its id or address)' },
      limit: { type: 'string', arg: 'N', numeric: 'positive', help: 'at most N messages (default 20, at most 100)' },
      json: JSON_FLAG,
    }),
    run: async (values) => {
      const limit = count('limit', str(values, 'limit') ?? '20');
      if (limit > 100) throw new UsageError(`--limit must be at most 100, got ${limit}`);
      const mailbox = str(values, 'mailbox');
      await withService(values, async (client) => {
        const messages = mailbox !== undefined ? (await client.getMailbox(mailbox, { limit })).messages : (await allMessages(client)).slice(-limit).reverse();
        printList(
          values,
          messages,
          (m) => ({ id: m.id, mailboxId: m.mailboxId, mailbox: m.mailbox, from: m.from, subject: m.subject, receivedAt: m.receivedAt }),
          [['time', (m) => when(Date.parse(m.receivedAt))], ['mailbox', (m) => m.mailbox], ['from', (m) => m.from?.address ?? '(no sender)'], ['subject', (m) => clip(m.subject, SUBJECT_WIDTH) || '(no subject)'], ['id', (m) => m.id]],
          mailbox !== undefined ? `no messages in ${mailbox} yet` : "no messages in this key's live mailboxes yet; create one with `mailwright mailboxes create` and send mail to it",
        );
      });
    },
  },
  {
    name: 'messages show',
    synopsis: 'ID [--mailbox M] [--json]',
    summary: 'show a message: its text, its links, and the verification link and code the fixture would find',
    about: 'Talks to the running service over HTTP, as the account of the API key. ID is from `mailwright messages list`.',
    positional: 'ID',
    flags: withServiceFlags({
      mailbox: { type: 'string', arg: 'M', help: "the message's mailbox (id or address); found by itself when left out" },
      json: { type: 'boolean', help: 'print the message and what was found as JSON' },
    }),
    run: async (values, positionals) => {
      const id = required(positionals[0], 'ID', 'mailwright messages show msg_abc123');
      await withService(values, async (client, url) => {
        const shown = await describeMessage(await findMessage(client, id, str(values, 'mailbox')), url);
        out(values.json ? JSON.stringify(shown.json, null, 2) : shown.text);
      });
    },
  },
  {
    name: 'mcp',
    synopsis: '[--http-port N] [--smtp-port N] [--domain D] [--data FILE]',
    summary: 'serve MCP on stdio: tools for agents to create inboxes, wait for mail, links and codes, and inject SMTP faults',
    about:
      'With MAILWRIGHT_URL and MAILWRIGHT_API_KEY in the environment it uses that service and reports its SMTP address (MAILWRIGHT_SMTP_URL, when set, instead). ' +
      'With neither, it starts its own service on 127.0.0.1 (the options below, as for `serve`) and reports its SMTP address. Stdout carries the MCP protocol only; logs go to stderr.',
    flags: withCommon(MCP_FLAGS),
    run: mcp,
  },
  {
    name: 'quota grant',
    synopsis: '--email E --calls N',
    summary: 'add a purchased top-up to this month',
    flags: withCommon({ email: EMAIL, calls: CALLS }),
    run: async (values) => {
      const calls = count('calls', required(str(values, 'calls'), '--calls', '--calls 5000'));
      const now = Date.now();
      await withAccount(values, async (store, account) => {
        await grantQuota(store, account, calls, now);
        out(`granted ${calls} calls to ${account.email} for ${new Date(now).toISOString().slice(0, 7)}`);
      });
    },
  },
  {
    name: 'quota code',
    synopsis: '--calls N',
    summary: 'mint a redeemable top-up code; the code is shown only once',
    flags: withCommon({ calls: CALLS }),
    run: async (values) => {
      const calls = count('calls', required(str(values, 'calls'), '--calls', '--calls 5000'));
      await withStore(values, async (store) => {
        const code = await mintRedeemCode(store, calls, Date.now());
        out(`minted a code worth ${calls} calls; redeem it with POST /api/config/quota/redeem. It is shown only now:`);
        out(code);
      });
    },
  },
];

/** ` did you mean X?` when `typed` is near one of `candidates`, else ''. */
function didYouMean(typed: string, candidates: Iterable<string>, show: (candidate: string) => string): string {
  const match = nearest(typed, candidates);
  return match === undefined ? '' : ` did you mean ${show(match)}?`;
}

/** The value that follows `--flag` in `args` (parseArgs does not say it). */
function valueAfter(args: readonly string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  return at === -1 ? undefined : args[at + 1];
}

/** parseArgs' errors as one line naming the flag and the command's --help, with the nearest flag for a misspelt one. */
function usageErrorOf(error: unknown, command: Command, args: readonly string[]): unknown {
  const e = error as { code?: string; message?: string };
  if (!e?.code?.startsWith('ERR_PARSE_ARGS')) return error;
  const { name } = command;
  const message = e.message ?? '';
  const help = `run \`mailwright ${name} --help\``;
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (unknown) {
    const typed = unknown[1]!.replace(/^-+/, '').split('=')[0]!;
    const suggestion = didYouMean(typed, Object.keys(command.flags), (flag) => `--${flag}`);
    return new UsageError(`unknown option ${unknown[1]} for \`mailwright ${name}\`;${suggestion ? `${suggestion}` : ''} ${help}`);
  }
  // `--calls -5`: parseArgs will not take a value that starts with a dash.
  const ambiguous = /^Option '(?:-\w, )?--([\w-]+)' argument is ambiguous/.exec(message);
  if (ambiguous) {
    const flag = ambiguous[1]!;
    const value = valueAfter(args, `--${flag}`) ?? '';
    const numeric = command.flags[flag]?.numeric;
    if (numeric) return new UsageError(`--${flag} must be ${numericRule(numeric)}, got ${value}`);
    return new UsageError(`--${flag} needs a value, and "${value}" reads as an option; to pass a value that starts with a dash, write --${flag}=${value}; ${help}`);
  }
  const stray = /^Unexpected argument '([^']*)'/.exec(message);
  if (stray) return new UsageError(`unexpected argument "${stray[1]}": \`mailwright ${name}\` takes no positional arguments; ${help}`);
  const missing = /^Option '(?:-\w, )?(--[\w-]+) <value>' argument missing/.exec(message);
  if (missing) return new UsageError(`${missing[1]} needs a value; ${help}`);
  const extra = /^Option '(?:-\w, )?(--[\w-]+)' does not take an argument/.exec(message);
  if (extra) return new UsageError(`${extra[1]} takes no value; ${help}`);
  return new UsageError(`${message.split('. ')[0]}; ${help}`);
}

async function runCommand(command: Command, args: string[]): Promise<void> {
  const end = args.indexOf('--');
  const options = end === -1 ? args : args.slice(0, end);
  if (options.includes('--help') || options.includes('-h')) return out(commandUsage(command));
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: parseOptions(command.flags), allowPositionals: command.positional !== undefined, strict: true }) as typeof parsed;
  } catch (error) {
    throw usageErrorOf(error, command, args);
  }
  if (parsed.positionals.length > 1) {
    throw new UsageError(`\`mailwright ${command.name}\` takes one ${command.positional}, got: ${parsed.positionals.join(' ')}; run \`mailwright ${command.name} --help\``);
  }
  return command.run(parsed.values, parsed.positionals);
}

export async function main(argv: string[]): Promise<void> {
  const [first, second] = argv;
  if (!first || first === '--help' || first === '-h') return out(mainUsage(COMMANDS));
  if (first === '--version' || first === '-v') return out(VERSION);
  if (first === 'help') return main([...argv.slice(1), '--help']);
  if (first.startsWith('-')) {
    throw new UsageError(`unknown option ${first};${didYouMean(first.replace(/^-+/, ''), ['help', 'version'], (o) => `--${o}`)} run \`mailwright --help\``);
  }
  const direct = COMMANDS.find((c) => c.name === first);
  if (direct) return runCommand(direct, argv.slice(1));
  const group = COMMANDS.filter((c) => c.name.startsWith(`${first} `));
  if (group.length === 0) throw new UsageError(`unknown command "mailwright ${first}";${suggestCommand(first, second)} run \`mailwright --help\``);
  if (second === '--help' || second === '-h') return out(groupUsage(first, group));
  const command = group.find((c) => c.name === `${first} ${second}`);
  if (!command) {
    if (second === undefined || second.startsWith('-')) {
      throw new UsageError(`"mailwright ${first}" needs a command: ${group.map((c) => c.name).join(', ')}; run \`mailwright ${first} --help\``);
    }
    const suggestion = didYouMean(second, group.map((c) => c.name.slice(first.length + 1)), (sub) => `\`mailwright ${first} ${sub}\``);
    throw new UsageError(`unknown command "mailwright ${first} ${second}";${suggestion || ` the ${first} commands are ${group.map((c) => c.name).join(', ')};`} run \`mailwright ${first} --help\``);
  }
  return runCommand(command, argv.slice(2));
}

/** ` did you mean \`mailwright keys create\`?` for a misspelt command (and its subcommand, when that fits), else ''. */
function suggestCommand(first: string, second: string | undefined): string {
  const names = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]!)), 'help'];
  const match = nearest(first, names);
  if (match === undefined) return '';
  const full = second !== undefined && COMMANDS.some((c) => c.name === `${match} ${second}`) ? `${match} ${second}` : match;
  return ` did you mean \`mailwright ${full}\`?`;
}

/** Admin errors that come from a wrong argument rather than the store's state. */
const ADMIN_USAGE_CODES: ReadonlyArray<AdminError['code']> = ['unknown_role', 'invalid_scope', 'invalid_value'];

/** Runs one `mailwright` command line; prints an error in one line and exits 2 (usage) or 1 (run). */
export async function run(argv: string[]): Promise<void> {
  await main(argv).catch((error: unknown) => {
    const code = (error as { code?: unknown })?.code;
    const usage = error instanceof UsageError || error instanceof ConfigError || code === 'MW_ERR_CONFIG' || (error instanceof AdminError && ADMIN_USAGE_CODES.includes(error.code));
    const explained = usage || error instanceof RunError || error instanceof AdminError || (typeof code === 'string' && code.startsWith('SQLITE_'));
    process.stderr.write(`mailwright: ${explained ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`);
    process.exit(usage ? 2 : 1);
  });
}
