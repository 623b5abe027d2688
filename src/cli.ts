#!/usr/bin/env node
// Owns the `mailwright` command: `serve` and the store administration commands. Results go
// to stdout (a created secret alone on the last line), errors to stderr with exit code 1.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AdminError, createAccount, createKey, grantQuota, mintRedeemCode, parseScopes, requireAccount } from './server/auth/accounts.js';
import { ConfigError, DEFAULT_HTTP_PORT, DEFAULT_SMTP_PORT, parseDuration, resolveConfig, type ServerOptions } from './server/config.js';
import { startServer } from './server/start.js';
import { openStore } from './server/store/open.js';
import type { Store } from './server/store/store.js';
import { VERSION } from './server/version.js';

const USAGE = `mailwright ${VERSION} — disposable mailboxes for end-to-end tests

Usage:
  mailwright serve [options]                       run the HTTP API and SMTP server
  mailwright accounts create --email E [--role R] [--password P]
  mailwright keys create --email E [--scopes emails,config] [--name N]
  mailwright keys revoke KEY_ID
  mailwright quota grant --email E --calls N       add a purchased top-up to this month
  mailwright quota code --calls N                  mint a redeemable top-up code

Store (every command):
  --data FILE|:memory:     SQLite file (default ./.mailwright/mailwright.db)   MAILWRIGHT_DATA
  --database-url URL       postgres://… shared store                          MAILWRIGHT_DATABASE_URL

serve options (each has a MAILWRIGHT_* twin, e.g. MAILWRIGHT_HTTP_PORT):
  --host H                 interface (default 127.0.0.1)
  --http-port N            HTTP port (default 8025; 0 = any free port)
  --smtp-port N            SMTP port (default 2525; 0 = any free port)
  --domain D               mailbox domain, repeatable (default mailwright.test)
  --api-key KEY            ensure an admin account holding KEY exists
  --log-level L            fatal|error|warn|info|debug|trace|silent (default info)
  --quota ROLE=N           monthly call allowance of a role, repeatable (N or "unlimited")
  --max-message-size N     largest SMTP message in bytes (default 10485760)
  --sweep-interval D       how often expired mailboxes are deleted (default 30s)
  --webhook-timeout D      webhook request timeout (default 5s)
  --webhook-retry-schedule D,D,…  delays before each webhook retry (default 1s,2s,5s,10s,30s,1m,5m,15m,1h)
  --allow-private-webhooks allow webhooks to private addresses on a public host
`;

const STORE_OPTIONS = {
  data: { type: 'string' },
  'database-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

const SERVE_OPTIONS = {
  ...STORE_OPTIONS,
  host: { type: 'string' },
  'http-port': { type: 'string' },
  'smtp-port': { type: 'string' },
  domain: { type: 'string', multiple: true },
  'api-key': { type: 'string' },
  'log-level': { type: 'string' },
  quota: { type: 'string', multiple: true },
  'max-message-size': { type: 'string' },
  'sweep-interval': { type: 'string' },
  'webhook-timeout': { type: 'string' },
  'webhook-retry-schedule': { type: 'string' },
  'allow-private-webhooks': { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

class UsageError extends Error {}

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
  const allowPrivate = values['allow-private-webhooks'] === true || /^(1|true|yes)$/i.test(env.MAILWRIGHT_ALLOW_PRIVATE_WEBHOOKS ?? '');
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
    webhookRetrySchedule: schedule === undefined ? undefined : schedule.split(',').filter(Boolean).map(parseDuration),
    allowPrivateWebhooks: allowPrivate,
  };
}

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: SERVE_OPTIONS, strict: true });
  if (values.help) return void process.stdout.write(USAGE);
  const options = serveOptions(values, process.env);
  const server = await startServer(options).catch((error: unknown) => {
    throw portInUse(error, options) ?? error;
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: shutting down\n`);
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
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Printed last: whoever waits for this line may signal at once.
  let banner = `mailwright ${VERSION} listening: HTTP ${server.httpUrl} SMTP ${server.smtpUrl}\n`;
  if (server.apiKey && !values['api-key'] && !process.env.MAILWRIGHT_API_KEY) {
    banner += `Created the admin account; its API key is shown only now:\n${server.apiKey}\n`;
  }
  process.stdout.write(banner);
}

/** A one-line, actionable error for a port that another process holds, instead of a stack trace. */
function portInUse(error: unknown, options: { httpPort?: number | undefined; smtpPort?: number | undefined }): UsageError | undefined {
  const e = error as { code?: string; port?: number };
  if (e?.code !== 'EADDRINUSE') return undefined;
  const smtpPort = options.smtpPort ?? DEFAULT_SMTP_PORT;
  const smtp = e.port !== undefined && e.port === smtpPort && e.port !== (options.httpPort ?? DEFAULT_HTTP_PORT);
  const flag = smtp ? 'smtp-port' : 'http-port';
  const port = e.port ?? (smtp ? smtpPort : options.httpPort ?? DEFAULT_HTTP_PORT);
  return new UsageError(
    `${smtp ? 'SMTP' : 'HTTP'} port ${port} is already in use; pass --${flag} with another port, or --${flag} 0 to take a free one (or stop the process that holds it)`,
  );
}

async function withStore<T>(values: { data?: string; 'database-url'?: string }, run: (store: Store, roles: string[]) => Promise<T>): Promise<T> {
  const env = process.env;
  const config = resolveConfig({ data: values.data ?? env.MAILWRIGHT_DATA, databaseUrl: values['database-url'] ?? env.MAILWRIGHT_DATABASE_URL });
  const store = await openStore(config);
  try {
    return await run(store, Object.keys(config.roles));
  } finally {
    await store.close();
  }
}

function required(value: string | undefined, flag: string, example: string): string {
  if (!value) throw new UsageError(`--${flag} is required, e.g. ${example}`);
  return value;
}

async function admin(group: string, action: string | undefined, args: string[]): Promise<void> {
  const now = Date.now();
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const command = `${group} ${action ?? ''}`.trim();
  switch (command) {
    case 'accounts create': {
      const { values } = parseArgs({ args, options: { ...STORE_OPTIONS, email: { type: 'string' }, role: { type: 'string' }, password: { type: 'string' } } });
      const email = required(values.email, 'email', '--email qa@example.com');
      await withStore(values, async (store, roles) => {
        const account = await createAccount(store, roles, { email, role: values.role, password: values.password, now });
        out(`created account ${account.email} (${account.id}), role ${account.role}`);
      });
      return;
    }
    case 'keys create': {
      const { values } = parseArgs({ args, options: { ...STORE_OPTIONS, email: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' } } });
      const email = required(values.email, 'email', '--email qa@example.com');
      await withStore(values, async (store) => {
        const account = await requireAccount(store, email);
        const { key, record } = await createKey(store, account, { scopes: parseScopes(values.scopes), name: values.name, now });
        out(`created key ${record.id} (${record.name}) for ${account.email} with scopes ${record.scopes.join(',')}; it is shown only now:`);
        out(key);
      });
      return;
    }
    case 'keys revoke': {
      const { values, positionals } = parseArgs({ args, options: STORE_OPTIONS, allowPositionals: true });
      const id = required(positionals[0], 'KEY_ID (positional)', 'mailwright keys revoke key_abc123');
      await withStore(values, async (store) => {
        if (!(await store.revokeApiKey(id, now))) throw new AdminError('key_not_found', `no live key has id ${id}; key ids look like key_… (see \`mailwright keys create\` output)`);
        out(`revoked key ${id}`);
      });
      return;
    }
    case 'quota grant': {
      const { values } = parseArgs({ args, options: { ...STORE_OPTIONS, email: { type: 'string' }, calls: { type: 'string' } } });
      const email = required(values.email, 'email', '--email qa@example.com');
      const calls = integer('calls', required(values.calls, 'calls', '--calls 5000'))!;
      await withStore(values, async (store) => {
        const account = await requireAccount(store, email);
        await grantQuota(store, account, calls, now);
        out(`granted ${calls} calls to ${account.email} for ${new Date(now).toISOString().slice(0, 7)}`);
      });
      return;
    }
    case 'quota code': {
      const { values } = parseArgs({ args, options: { ...STORE_OPTIONS, calls: { type: 'string' } } });
      const calls = integer('calls', required(values.calls, 'calls', '--calls 5000'))!;
      await withStore(values, async (store) => {
        const code = await mintRedeemCode(store, calls, now);
        out(`minted a code worth ${calls} calls; redeem it with POST /api/config/quota/redeem. It is shown only now:`);
        out(code);
      });
      return;
    }
    default:
      throw new UsageError(`unknown command "mailwright ${command}"; run \`mailwright --help\``);
  }
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') return void process.stdout.write(USAGE);
  if (command === '--version' || command === '-v') return void process.stdout.write(`${VERSION}\n`);
  if (command === 'serve') return serve(rest);
  const [action, ...args] = rest;
  return admin(command, action, args);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const known = error instanceof UsageError || error instanceof AdminError || error instanceof ConfigError || (error as { code?: string })?.code?.startsWith?.('ERR_PARSE_ARGS') || (error as { code?: string })?.code === 'MW_ERR_CONFIG';
  process.stderr.write(`mailwright: ${known ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
