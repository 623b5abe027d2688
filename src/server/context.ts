// Owns the shape of the resolved service configuration (config.ts resolves it), the roles with
// their default limits, the default webhook retry schedule, and the context every subsystem
// receives (with the SMTP port once it listens).
import type { Logger } from 'pino';
import type { ServiceBus } from './events.js';
import type { Store } from './store/store.js';

import type { Clock } from '../protocol/clock.js';

export { systemClock, type Clock } from '../protocol/clock.js';

/** Limits a role grants. `null` = unlimited. */
export interface RoleLimits {
  monthlyCalls: number | null;
  maxMailboxes: number | null;
  maxExpiryTime: number;
}

export const ROLE_NAMES = ['civilian', 'knight', 'duke', 'emperor'] as const;
type RoleName = (typeof ROLE_NAMES)[number];

export const DEFAULT_ROLES: Record<RoleName, RoleLimits> = {
  civilian: { monthlyCalls: 10_000, maxMailboxes: 100, maxExpiryTime: 259_200_000 },
  knight: { monthlyCalls: 100_000, maxMailboxes: 1_000, maxExpiryTime: 7 * 86_400_000 },
  duke: { monthlyCalls: 1_000_000, maxMailboxes: 10_000, maxExpiryTime: 30 * 86_400_000 },
  emperor: { monthlyCalls: null, maxMailboxes: null, maxExpiryTime: 365 * 86_400_000 },
};

/** Default webhook retry delays (ms) after the first attempt: exponential, capped at an hour. */
export const DEFAULT_RETRY_SCHEDULE = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 300_000, 900_000, 3_600_000];

export interface ResolvedConfig {
  host: string;
  httpPort: number;
  smtpPort: number;
  /** SQLite file or ':memory:'. */
  data: string;
  databaseUrl: string | null;
  domains: string[];
  apiKey: string | null;
  logLevel: string;
  roles: Record<string, RoleLimits>;
  /** Maximum SMTP message size in bytes (SIZE, 552 beyond). */
  maxMessageSize: number;
  sweepIntervalMs: number;
  webhookTimeoutMs: number;
  webhookRetrySchedule: number[];
  /** Allow webhook targets on private/loopback addresses even when listening publicly. */
  allowPrivateWebhooks: boolean;
  /** The web UI offers "Create account" (civilian accounts). */
  openSignup: boolean;
  /** Pause before the SMTP greeting, ms (0: greet at once). */
  greetingDelayMs: number;
  /** The reverse proxies believed for the client address and protocol: none (false), any (true), or these addresses, CIDRs and range names. */
  trustProxy: boolean | string[];
  /** Most SMTP connections served at once. */
  smtpMaxClients: number;
  /** Mail to any address at a served domain creates its mailbox (local development). */
  catchAll: boolean;
  /** The email of the account that owns catch-all mailboxes; null: the admin account. */
  catchAllOwner: string | null;
  /** The catch-all may run on a public host. */
  allowCatchAllPublic: boolean;
}

export interface ServiceContext {
  config: ResolvedConfig;
  store: Store;
  bus: ServiceBus;
  log: Logger;
  clock: Clock;
  /** The port SMTP listens on, once it does (the configured one may be 0: any free port). */
  smtpPort?: number;
}
