// Owns turning user options (startServer arguments, CLI flags, MAILWRIGHT_* variables)
// into a validated ResolvedConfig.
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { isLoopbackHost } from './delivery/ssrf.js';

/** The HTTP port when none is given. */
export const DEFAULT_HTTP_PORT = 8025;
/** The SMTP port when none is given. */
export const DEFAULT_SMTP_PORT = 2525;
import { DEFAULT_RETRY_SCHEDULE, DEFAULT_ROLES, type ResolvedConfig, type RoleLimits } from './context.js';

/** Options of {@link startServer}; every one is optional. CLI flags and `MAILWRIGHT_*` variables map onto these. */
export interface ServerOptions {
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string;
  /** HTTP port; 0 = any free port. @default 8025 */
  httpPort?: number;
  /** SMTP port; 0 = any free port. @default 2525 */
  smtpPort?: number;
  /** SQLite file, or ':memory:'. @default './.mailwright/mailwright.db' */
  data?: string;
  /** postgres://… to share one store across instances (scale-out). */
  databaseUrl?: string;
  /** Domains mailboxes can be created in. @default ['mailwright.test'] */
  domains?: string[];
  /** Ensures an admin account holding this key exists. */
  apiKey?: string;
  /** pino level: fatal, error, warn, info, debug, trace or silent. @default 'info' */
  logLevel?: string;
  /** Monthly call allowance per role (null = unlimited), merged over the defaults. */
  quota?: Record<string, number | null>;
  /** Full role limits, merged over the defaults. */
  roles?: Record<string, Partial<RoleLimits>>;
  /** Largest SMTP message accepted, bytes. @default 10485760 */
  maxMessageSize?: number;
  /** How often expired mailboxes are deleted, ms. @default 30000 */
  sweepIntervalMs?: number;
  /** Webhook request timeout, ms. @default 5000 */
  webhookTimeoutMs?: number;
  /** Delays (ms) before each retry of a failed webhook delivery. @default 1s,2s,5s,10s,30s,1m,5m,15m,1h */
  webhookRetrySchedule?: number[];
  /** Let webhooks target private/loopback addresses although the server listens publicly. @default false */
  allowPrivateWebhooks?: boolean;
  /**
   * Pause before the SMTP greeting on each connection, ms. An internet MX waits to catch
   * "early talkers"; a test catcher has no reason to. @default 0
   */
  greetingDelayMs?: number;
  /** Let people create `civilian` accounts from the sign-in page ("Create account"). @default false */
  openSignup?: boolean;
  /**
   * Which reverse proxies to believe (fastify's `trustProxy`): `true` for any, or their
   * addresses and CIDRs (`'10.0.0.1'`, `'10.0.0.0/8, ::1'`, also `loopback`, `linklocal`,
   * `uniquelocal`). Only then do the client address and protocol come from
   * `X-Forwarded-For` / `X-Forwarded-Proto`; otherwise those headers are ignored. @default false
   */
  trustProxy?: boolean | string | string[];
  /** Most SMTP connections served at once; one more is answered `421` and closed. @default 100 */
  smtpMaxClients?: number;
  /**
   * Catch-all for local development: mail to any address at a served domain creates its mailbox
   * on the first delivery (default expiry), owned by {@link catchAllOwner}. Off by default (a
   * test service accepts created mailboxes only); refused on a public host unless
   * {@link allowCatchAllPublic}. @default false
   */
  catchAll?: boolean;
  /** The account that owns mailboxes the catch-all creates. @default the admin account `--api-key` ensures */
  catchAllOwner?: string;
  /** Allow the catch-all although the server listens on a public host. @default false */
  allowCatchAllPublic?: boolean;
}

/** A bad option value, named with the option, the rule and the fix. */
export class ConfigError extends Error {
  readonly code = 'MW_ERR_CONFIG';
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function port(name: string, value: number | undefined, fallback: number): number {
  const p = value ?? fallback;
  if (!Number.isInteger(p) || p < 0 || p > 65535) throw new ConfigError(`${name} must be a port number 0-65535 (0 = any free port), got ${value}`);
  return p;
}

function wholePositive(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n <= 0) throw new ConfigError(`${name} must be a whole number of 1 or more, got ${value}`);
  return n;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name} must be a positive number, got ${value}`);
  return n;
}

/** proxy-addr's names for whole ranges, accepted in `trustProxy` beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function trustProxy(value: boolean | string | string[] | undefined): boolean | string[] {
  if (value === undefined || value === false) return false;
  if (value === true) return true;
  const entries = (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  if (entries.length === 1 && /^(true|false)$/i.test(entries[0]!)) return entries[0]!.toLowerCase() === 'true';
  if (entries.length === 0) return false;
  for (const entry of entries) {
    if (!PROXY_RANGE_NAMES.includes(entry) && !ipaddr.isValid(entry) && !ipaddr.isValidCIDR(entry)) {
      throw new ConfigError(`--trust-proxy "${entry}" is not an address, a CIDR or one of ${PROXY_RANGE_NAMES.join(', ')}; write e.g. --trust-proxy 10.0.0.0/8,::1 or --trust-proxy true`);
    }
  }
  return entries;
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isFinite(n) || n < 0) throw new ConfigError(`${name} must be 0 or more, got ${value}`);
  return n;
}

/** Parses "500ms", "2s", "5m", "1h" or a bare number of ms. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new ConfigError(`"${text}" is not a duration; write e.g. 500ms, 2s, 5m or 1h`);
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] ?? 'ms']!;
  return Math.round(Number(match[1]) * factor);
}

/**
 * The catch-all settings, checked: an owner only with the catch-all, and the catch-all only on a
 * loopback host unless allowed (on a public one anyone who reaches the SMTP port could fill the store).
 */
function catchAllOf(options: ServerOptions, host: string, domains: string[]): Pick<ResolvedConfig, 'catchAll' | 'catchAllOwner' | 'allowCatchAllPublic'> {
  const catchAll = options.catchAll ?? false;
  const allowCatchAllPublic = options.allowCatchAllPublic ?? false;
  const owner = options.catchAllOwner?.trim().toLowerCase() || null;
  if (owner !== null) {
    if (!catchAll) throw new ConfigError(`--catch-all-owner ${owner} has no effect without --catch-all; add --catch-all, or leave --catch-all-owner out`);
    if (!/^[^@\s]+@[^@\s]+$/.test(owner)) throw new ConfigError(`--catch-all-owner "${owner}" is not an email address; name the account that should own catch-all mailboxes, e.g. --catch-all-owner dev@example.test`);
  }
  if (catchAll && !allowCatchAllPublic && !isLoopbackHost(host)) {
    throw new ConfigError(
      `--catch-all on host ${host} is refused: the catch-all keeps mail to any address @${domains.join(', @')}, so on a public host anyone who reaches the SMTP port could fill the store. ` +
        'Listen on a loopback host (--host 127.0.0.1), or pass --allow-catch-all-public if only you can reach this network',
    );
  }
  return { catchAll, catchAllOwner: owner, allowCatchAllPublic };
}

export function resolveConfig(options: ServerOptions = {}): ResolvedConfig {
  const roles: Record<string, RoleLimits> = {};
  for (const [name, limits] of Object.entries(DEFAULT_ROLES)) roles[name] = { ...limits };
  for (const [name, limits] of Object.entries(options.roles ?? {})) {
    roles[name] = { ...(roles[name] ?? DEFAULT_ROLES.civilian), ...limits };
  }
  for (const [name, calls] of Object.entries(options.quota ?? {})) {
    if (!roles[name]) throw new ConfigError(`--quota names role "${name}", which is unknown; roles are ${Object.keys(roles).join(', ')}`);
    if (calls !== null && (!Number.isInteger(calls) || calls < 0)) throw new ConfigError(`--quota ${name}=${calls}: the allowance must be a whole number of calls or "unlimited"`);
    roles[name].monthlyCalls = calls;
  }
  const domains = (options.domains?.length ? options.domains : ['mailwright.test']).map((d) => d.toLowerCase());
  for (const domain of domains) {
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(domain)) throw new ConfigError(`--domain "${domain}" is not a domain name; write e.g. mailwright.test`);
  }
  const schedule = options.webhookRetrySchedule ?? DEFAULT_RETRY_SCHEDULE;
  if (schedule.some((d) => !Number.isFinite(d) || d < 0)) throw new ConfigError('webhook retry schedule entries must be non-negative durations');
  const host = options.host ?? '127.0.0.1';
  const catchAll = catchAllOf(options, host, domains);
  return {
    host,
    httpPort: port('--http-port', options.httpPort, DEFAULT_HTTP_PORT),
    smtpPort: port('--smtp-port', options.smtpPort, DEFAULT_SMTP_PORT),
    data: options.data ?? join('.mailwright', 'mailwright.db'),
    databaseUrl: options.databaseUrl ?? null,
    domains: [...new Set(domains)],
    apiKey: options.apiKey ?? null,
    logLevel: options.logLevel ?? 'info',
    roles,
    maxMessageSize: positive('maxMessageSize', options.maxMessageSize, 10 * 1024 * 1024),
    sweepIntervalMs: positive('sweepIntervalMs', options.sweepIntervalMs, 30_000),
    webhookTimeoutMs: positive('webhookTimeoutMs', options.webhookTimeoutMs, 5_000),
    webhookRetrySchedule: [...schedule],
    allowPrivateWebhooks: options.allowPrivateWebhooks ?? false,
    openSignup: options.openSignup ?? false,
    greetingDelayMs: nonNegative('greetingDelayMs', options.greetingDelayMs, 0),
    trustProxy: trustProxy(options.trustProxy),
    smtpMaxClients: wholePositive('--smtp-max-clients', options.smtpMaxClients, 100),
    ...catchAll,
  };
}
