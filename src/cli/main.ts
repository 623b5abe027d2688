// Owns the `mailwright` command: `serve` and the store administration commands. Results go
// to stdout (a created secret alone on the last line; lists as a table, or JSON with --json),
// errors to stderr in one line. Exit codes: 0 ok, 1 failure while running, 2 usage error.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { banner } from './banner.js';
import { prettyDestination } from './pretty-log.js';
import { fromNow, iso, table, when, type Column } from './table.js';
import { HELP_FLAG, STORE_FLAGS, commandUsage, groupUsage, mainUsage, parseOptions, type CommandSpec, type Flag, type Flags } from './usage.js';
import { ADMIN_EMAIL, AdminError, createAccount, createKey, createSignInToken, grantQuota, mintRedeemCode, parseScopes, requireAccount, signInLink } from '../server/auth/accounts.js';
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
  'http-port': { type: 'string', arg: 'N', help: 'HTTP port (default 8025; 0 = any free port)' },
  'smtp-port': { type: 'string', arg: 'N', help: 'SMTP port (default 2525; 0 = any free port)' },
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
  'exit-with-parent': { type: 'string', arg: 'PID', help: 'stop (as on SIGTERM) once process PID is gone, e.g. a killed test runner' },
};

const EMAIL: Flag = { type: 'string', arg: 'E', help: "the account's email (required)" };
const CALLS: Flag = { type: 'string', arg: 'N', help: 'number of API calls (required)' };
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
    }),
  );
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

/** Opens the store the flags (or MAILWRIGHT_DATA / MAILWRIGHT_DATABASE_URL) name; `mustExist` for commands that only read. */
async function withStore<T>(values: Values, run: (store: Store, roles: string[]) => Promise<T>, opts: { mustExist?: boolean } = {}): Promise<T> {
  const env = process.env;
  const config = resolveConfig({ data: str(values, 'data') ?? env.MAILWRIGHT_DATA, databaseUrl: str(values, 'database-url') ?? env.MAILWRIGHT_DATABASE_URL });
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
    flags: withCommon({
      email: EMAIL,
      url: { type: 'string', arg: 'URL', help: `the service's address (default http://127.0.0.1:${DEFAULT_HTTP_PORT})` },
    }),
    run: (values) =>
      withAccount(values, async (store, account) => {
        const token = await createSignInToken(store, account, Date.now());
        const base = (str(values, 'url') ?? `http://127.0.0.1:${DEFAULT_HTTP_PORT}`).replace(/\/+$/, '');
        out(`one-time sign-in link for ${account.email} (works once, for 15 minutes):`);
        out(signInLink(base, token));
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
    name: 'quota grant',
    synopsis: '--email E --calls N',
    summary: 'add a purchased top-up to this month',
    flags: withCommon({ email: EMAIL, calls: CALLS }),
    run: async (values) => {
      const calls = integer('calls', required(str(values, 'calls'), '--calls', '--calls 5000'))!;
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
      const calls = integer('calls', required(str(values, 'calls'), '--calls', '--calls 5000'))!;
      await withStore(values, async (store) => {
        const code = await mintRedeemCode(store, calls, Date.now());
        out(`minted a code worth ${calls} calls; redeem it with POST /api/config/quota/redeem. It is shown only now:`);
        out(code);
      });
    },
  },
];

/** parseArgs' errors as one line naming the flag and the command's --help. */
function usageErrorOf(error: unknown, name: string): unknown {
  const e = error as { code?: string; message?: string };
  if (!e?.code?.startsWith('ERR_PARSE_ARGS')) return error;
  const message = e.message ?? '';
  const help = `run \`mailwright ${name} --help\``;
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (unknown) return new UsageError(`unknown option ${unknown[1]} for \`mailwright ${name}\`; ${help}`);
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
    throw usageErrorOf(error, command.name);
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
  if (first.startsWith('-')) throw new UsageError(`unknown option ${first}; run \`mailwright --help\``);
  const direct = COMMANDS.find((c) => c.name === first);
  if (direct) return runCommand(direct, argv.slice(1));
  const group = COMMANDS.filter((c) => c.name.startsWith(`${first} `));
  if (group.length === 0) throw new UsageError(`unknown command "mailwright ${first}"; run \`mailwright --help\``);
  if (second === '--help' || second === '-h') return out(groupUsage(first, group));
  const command = group.find((c) => c.name === `${first} ${second}`);
  if (!command) {
    const what = second === undefined ? `"mailwright ${first}" needs a command` : `unknown command "mailwright ${first} ${second}"`;
    throw new UsageError(`${what}: ${group.map((c) => c.name).join(', ')}; run \`mailwright ${first} --help\``);
  }
  return runCommand(command, argv.slice(2));
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
