// Owns starting and stopping the whole service in-process: logger, store (the admin account and
// key made once; other instances' commits watched), HTTP API, SMTP, webhook dispatcher and
// sweeper. With `--catch-all`, resolves the account that owns the mailboxes it creates (a
// ConfigError when there is none). A failure half way undoes what started and rethrows the first error.
import { join } from 'node:path';
import pino, { type DestinationStream, type Logger } from 'pino';
import { ConfigError, resolveConfig, type ServerOptions } from './config.js';
import { systemClock, type Clock, type ResolvedConfig, type ServiceContext } from './context.js';
import { ServiceBus } from './events.js';
import { buildApi } from './api/app.js';
import { ADMIN_EMAIL, bootstrapAdmin, createSignInToken, ensureAdminKey, signInLink } from './auth/accounts.js';
import { WebhookDispatcher } from './delivery/dispatcher.js';
import { startSmtp, type CatchAllOwner } from './smtp/smtp.js';
import { Sweeper } from './sweeper/sweeper.js';
import { openStore } from './store/open.js';
import type { Store } from './store/store.js';

/** A running service. `close()` is idempotent; `await using` works too. */
export interface StartedServer extends AsyncDisposable {
  /** Base URL of the HTTP API, e.g. `http://127.0.0.1:8025`. */
  httpUrl: string;
  /** `smtp://host:port` of the SMTP listener. */
  smtpUrl: string;
  httpPort: number;
  smtpPort: number;
  host: string;
  /**
   * The configured `apiKey`, or the admin key created on first start (printed once), or
   * null when the store already had accounts and no key was configured.
   */
  apiKey: string | null;
  /**
   * While the admin account has no password: a one-time link (15 minutes) into the web UI
   * that signs the admin in and asks for one. Null once a password is set.
   */
  signInUrl: string | null;
  /**
   * With `catchAll`: the domains where mail to any address is kept, and the email of the
   * account that owns the mailboxes it creates. Null when only created mailboxes accept mail.
   */
  catchAll: { domains: string[]; owner: string } | null;
  /** Stops accepting, finishes in-flight SMTP transactions and HTTP requests (bounded), flushes the store. */
  close(): Promise<void>;
}

export interface StartServerInternals {
  /** Substitute clock (tests). */
  clock?: Clock;
  /** Substitute logger. */
  logger?: Logger;
  /** Where the default logger writes its JSON lines instead of stdout (the CLI's human format). */
  logDestination?: DestinationStream;
}

/** The store flag a suggested command repeats ('' for the default store). */
function storeArgs(config: ResolvedConfig): string {
  if (config.databaseUrl) return ' --database-url URL';
  if (config.data === join('.mailwright', 'mailwright.db')) return '';
  return ` --data ${/^[\w@%+=:,./-]+$/.test(config.data) ? config.data : JSON.stringify(config.data)}`;
}

/** The account that owns catch-all mailboxes: `--catch-all-owner`, else the admin account; a ConfigError when it does not exist. */
async function catchAllOwnerOf(store: Store, config: ResolvedConfig): Promise<CatchAllOwner> {
  const email = config.catchAllOwner ?? ADMIN_EMAIL;
  const account = await store.getAccountByEmail(email);
  if (account) return { accountId: account.id, email: account.email };
  const wayOut = !config.databaseUrl && config.data === ':memory:'
    ? `a store in memory starts with the admin account alone: leave --catch-all-owner out to use ${ADMIN_EMAIL}, or start with a --data file where the account exists`
    : `create it first (mailwright accounts create --email ${email}${storeArgs(config)}), or leave --catch-all-owner out to use the admin account ${ADMIN_EMAIL}`;
  throw new ConfigError(`--catch-all-owner ${email}: no account has this email, so it cannot own the mailboxes --catch-all creates; ${wayOut}`);
}

function urlHost(host: string): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return shown.includes(':') ? `[${shown}]` : shown;
}

/**
 * Starts the disposable-mail service in this process.
 *
 * @example
 * const server = await startServer({ httpPort: 0, smtpPort: 0, data: ':memory:', apiKey: 'mw_test' });
 * // … server.httpUrl, server.smtpPort …
 * await server.close();
 */
export async function startServer(options: ServerOptions = {}, internals: StartServerInternals = {}): Promise<StartedServer> {
  const config = resolveConfig(options);
  const log = internals.logger ?? pino({ level: config.logLevel, base: { service: 'mailwright' } }, internals.logDestination);
  const clock = internals.clock ?? systemClock;
  const undo: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const step of undo.reverse()) {
      try {
        await step();
      } catch (error) {
        log.error({ err: error }, 'shutdown step failed');
      }
    }
  };
  try {
    const store = await openStore(config);
    undo.push(() => store.close());
    const ctx: ServiceContext = { config, store, bus: new ServiceBus(), log, clock };

    // Instances starting together on one shared store make the admin and its key once.
    const apiKey = await store.withStartupLock(async () => {
      if (config.apiKey) {
        await ensureAdminKey(store, config.apiKey, clock.now());
        return config.apiKey;
      }
      return bootstrapAdmin(store, clock.now());
    });
    const catchAllOwner = config.catchAll ? await catchAllOwnerOf(store, config) : null;
    // On a shared store, mail committed through another instance wakes this one's waiters too.
    const stopWatching = store.watchCommits?.({
      onMessage: (message, owesDeliveries) => ctx.bus.emit('message.stored', message, [], owesDeliveries),
      onResync: () => ctx.bus.emit('resync'),
    });
    if (stopWatching) undo.push(stopWatching);

    const dispatcher = new WebhookDispatcher(ctx).start();
    undo.push(() => dispatcher.close());
    const sweeper = new Sweeper(ctx).start();
    undo.push(() => sweeper.close());

    const api = await buildApi(ctx);
    await api.listen({ port: config.httpPort, host: config.host });
    undo.push(() => api.close());
    // Runs before api.close(): held long-polls answer at once instead of holding the shutdown.
    undo.push(async () => void ctx.bus.emit('shutdown'));
    const httpPort = api.server.address() && typeof api.server.address() === 'object' ? (api.server.address() as { port: number }).port : config.httpPort;

    const smtp = await startSmtp(ctx, catchAllOwner);
    undo.push(() => smtp.close());
    ctx.smtpPort = smtp.port;

    const host = urlHost(config.host);
    const httpUrl = `http://${host}:${httpPort}`;
    const admin = await store.getAccountByEmail(ADMIN_EMAIL);
    const signInUrl = admin && !admin.passwordHash ? signInLink(httpUrl, await createSignInToken(store, admin, clock.now())) : null;
    let closing: Promise<void> | null = null;
    const close = () => (closing ??= closeAll());
    log.info({ http: `http://${host}:${httpPort}`, smtp: `smtp://${host}:${smtp.port}`, store: config.databaseUrl ? 'postgres' : config.data }, 'mailwright listening');
    if (catchAllOwner) log.info({ domains: config.domains, owner: catchAllOwner.email }, 'catch-all on: mail to any address at a served domain creates its mailbox');
    return {
      httpUrl,
      signInUrl,
      smtpUrl: `smtp://${host}:${smtp.port}`,
      httpPort,
      smtpPort: smtp.port,
      host: config.host,
      apiKey,
      catchAll: catchAllOwner ? { domains: [...config.domains], owner: catchAllOwner.email } : null,
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
