// Owns the fixture's options: their types and defaults (with @default docs), reading
// MAILWRIGHT_URL / MAILWRIGHT_API_KEY, and validating the result into ResolvedMailOptions.
import { FIXTURE_ERROR_CODES, MailwrightFixtureError } from './errors.js';

/** How the hub learns that mail arrived. */
export type DeliveryMode = 'auto' | 'webhook' | 'poll';

/** When received messages are attached to the test report. */
export type AttachPolicy = 'always' | 'on-failure' | 'never';

/** When a test's inboxes outlive it (stay live on the service until their own expiry). */
export type KeepPolicy = 'on-failure' | 'always' | 'never';

/**
 * Options of the mailwright fixtures, set with `test.use({ mailwright: { … } })` (a
 * worker-scoped option: changing it starts a new worker) or passed to
 * `defineMailFixtures(defaults)`.
 *
 * @example
 * ```ts
 * test.use({ mailwright: { delivery: 'poll', attach: 'always' } });
 * ```
 */
export interface MailwrightOptions {
  /**
   * Base URL of the mailwright service.
   * @default process.env.MAILWRIGHT_URL
   */
  baseURL?: string;
  /**
   * API key (`mw_…`) of the account the mailboxes are created in.
   * @default process.env.MAILWRIGHT_API_KEY
   */
  apiKey?: string;
  /**
   * Domain of new mailboxes; must be one the service serves.
   * @default the service's first domain
   */
  domain?: string;
  /**
   * Lifetime of each mailbox in ms (60 000 up to the account role's maximum): the most a
   * test's inbox can live. Inboxes end when the test that made them ends (see `keep`), so
   * this bounds how long a failed test's mail stays to look at, and what a crashed or
   * killed run leaves behind.
   * @default 600_000 (10 minutes: longer than any sensible test with its retries)
   */
  expiryTime?: number;
  /**
   * How arrivals reach the test: `webhook` (a receiver in the worker, registered as a
   * webhook; start-up fails if the service cannot reach it), `poll` (one long-poll loop per
   * worker), or `auto` (webhook when the service can reach the receiver, polling otherwise,
   * and polling as a safety net for any wait pending longer than `fallbackAfter`).
   * @default 'auto'
   */
  delivery?: DeliveryMode;
  /**
   * Interface the webhook receiver listens on. The service must be able to reach it.
   * @default '127.0.0.1'
   */
  receiverHost?: string;
  /**
   * The URL the service should call instead of the receiver's own address, when the
   * service reaches this machine under another name (a container calling
   * `http://host.docker.internal:{port}{path}`, a tunnel, a proxy). `{port}`, `{path}` and
   * `{host}` are replaced by the receiver's port, path and listening host.
   * @default the receiver's own `http://<receiverHost>:<port>/<path>`
   */
  receiverURL?: string;
  /**
   * Ms one long-poll request may be held by the service until mail arrives (1 000 to
   * 30 000). A request returns as soon as a message is there; this only bounds idle
   * requests, so it is not a polling interval. (Called `pollInterval`, in seconds, before 0.2.)
   * @default 25_000
   */
  longPollTimeout?: number;
  /**
   * In `auto` mode, ms a wait may stay pending with webhooks active before the poll loop
   * also covers its mailbox (a safety net when deliveries stop).
   * @default 2500
   */
  fallbackAfter?: number;
  /**
   * Default timeout of a wait in ms. When the test has a timeout, the default is also kept
   * inside the test's remaining time so the wait's own, more helpful error is the one seen.
   * @default 30_000
   */
  timeout?: number;
  /**
   * When messages received by a test are attached to its report (HTML as text/html, text
   * as text/plain, the source as a message/rfc822 `.eml`, and the mail as `inbox.open()`
   * shows it, as an image/png: no script runs and nothing is fetched, in a browser of the
   * test's engine started only when there is HTML to picture; skipped if none can start).
   * @default 'on-failure'
   */
  attach?: AttachPolicy;
  /**
   * Whether a test's inboxes stay live after it: `on-failure` keeps those of a test that
   * failed (its status is not the expected one) until their own expiry (`expiryTime`), so
   * its mail can be read in the web UI (a timed-out wait's error links to the mailbox
   * page); `always` keeps every inbox, also those the worker made outside a test; `never`
   * ends every inbox with its test. A kept inbox counts against the account's live-mailbox
   * limit until it expires.
   * @default 'on-failure'
   */
  keep?: KeepPolicy;
}

/** {@link MailwrightOptions} with defaults applied and validated. */
export interface ResolvedMailOptions {
  baseURL: string;
  apiKey: string;
  /** Where `apiKey` came from, for error messages. */
  apiKeySource: ApiKeySource;
  domain: string | undefined;
  expiryTime: number;
  delivery: DeliveryMode;
  receiverHost: string;
  receiverURL: string | undefined;
  longPollTimeout: number;
  fallbackAfter: number;
  timeout: number;
  attach: AttachPolicy;
  keep: KeepPolicy;
}

/** Default option values (besides those read from the environment). */
export const DEFAULT_OPTIONS = {
  expiryTime: 600_000,
  delivery: 'auto',
  receiverHost: '127.0.0.1',
  longPollTimeout: 25_000,
  fallbackAfter: 2_500,
  timeout: 30_000,
  attach: 'on-failure',
  keep: 'on-failure',
} as const satisfies Partial<ResolvedMailOptions>;

const KNOWN_KEYS = new Set<string>([
  'baseURL', 'apiKey', 'domain', 'expiryTime', 'delivery', 'receiverHost', 'receiverURL',
  'longPollTimeout', 'fallbackAfter', 'timeout', 'attach', 'keep',
]);

/** Options that existed before 0.2, with what to write instead. */
const RETIRED_KEYS: Record<string, string> = {
  pollInterval: 'it was renamed "longPollTimeout" and is in ms now: { longPollTimeout: 25_000 }',
  provider: 'it was removed (there is one provider); delete it',
};

function optionError(message: string): MailwrightFixtureError {
  return new MailwrightFixtureError(FIXTURE_ERROR_CODES.invalidOption, message);
}

function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw optionError(`mailwright option "${name}" is ${JSON.stringify(value)}; use one of ${allowed.map((a) => `'${a}'`).join(', ')}: test.use({ mailwright: { ${name}: '${fallback}' } })`);
}

function atLeast(min: number, name: string, value: number): number {
  if (value < min) throw optionError(`mailwright option "${name}" is ${value}; it must be at least ${min} (ms), e.g. test.use({ mailwright: { ${name}: ${DEFAULT_OPTIONS.longPollTimeout} } })`);
  return value;
}

function positiveNumber(name: string, value: unknown, fallback: number, max = Infinity): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > max) {
    throw optionError(`mailwright option "${name}" is ${JSON.stringify(value)}; it must be a number above 0${max === Infinity ? '' : ` and at most ${max}`}, e.g. test.use({ mailwright: { ${name}: ${fallback} } })`);
  }
  return value;
}

/**
 * Where the fixture's key came from: the `apiKey` option, the environment, or
 * mailwrightServer() (its default key or its own `apiKey` option).
 */
export type ApiKeySource = 'option' | 'environment' | 'server-default' | 'server-option';

/** Readable {@link ApiKeySource}, for messages. */
export function describeKeySource(source: ApiKeySource): string {
  switch (source) {
    case 'option': return 'the "apiKey" option';
    case 'environment': return 'the MAILWRIGHT_API_KEY environment variable';
    case 'server-default': return 'the default key of mailwrightServer()';
    case 'server-option': return 'the "apiKey" option of mailwrightServer()';
  }
}

/**
 * mailwrightServer() records in MAILWRIGHT_API_KEY_ORIGIN (an internal variable) how it chose
 * the key it publishes in MAILWRIGHT_API_KEY; a key set later by hand is the environment's.
 */
function envKeySource(env: Record<string, string | undefined>): ApiKeySource {
  if (env.MAILWRIGHT_API_KEY === env.MAILWRIGHT_API_KEY_ORIGIN_KEY) {
    if (env.MAILWRIGHT_API_KEY_ORIGIN === 'default') return 'server-default';
    if (env.MAILWRIGHT_API_KEY_ORIGIN === 'option') return 'server-option';
  }
  return 'environment';
}

/**
 * Merges the layers (environment < `defineMailFixtures` defaults < `test.use` value),
 * applies defaults and validates. Throws a `MW_ERR_FIXTURE_OPTION` error that names the
 * option, its environment variable and the fix.
 */
export function resolveMailOptions(
  layers: ReadonlyArray<MailwrightOptions | undefined>,
  env: Record<string, string | undefined> = process.env,
): ResolvedMailOptions {
  const merged: MailwrightOptions = {};
  for (const layer of layers) {
    if (!layer) continue;
    if (typeof layer !== 'object') throw optionError(`the mailwright option must be an object like { baseURL, apiKey }, got ${typeof layer}`);
    for (const [key, value] of Object.entries(layer)) {
      if (RETIRED_KEYS[key] !== undefined && value !== undefined) throw optionError(`mailwright option "${key}" is no longer supported: ${RETIRED_KEYS[key]}`);
      if (!KNOWN_KEYS.has(key)) {
        throw optionError(`unknown mailwright option "${key}"; the options are ${[...KNOWN_KEYS].join(', ')}`);
      }
      if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
    }
  }
  const baseURL = merged.baseURL ?? (env.MAILWRIGHT_URL || undefined);
  if (!baseURL) {
    throw optionError(
      'mailwright has no service URL: set the "baseURL" option (test.use({ mailwright: { baseURL: \'http://127.0.0.1:8025\' } })) ' +
        'or the MAILWRIGHT_URL environment variable, or start the service from playwright.config.ts with webServer: [mailwrightServer()], which sets both.',
    );
  }
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    throw optionError(`mailwright option "baseURL" (or MAILWRIGHT_URL) is "${baseURL}", which is not a URL; write e.g. http://127.0.0.1:8025`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw optionError(`mailwright option "baseURL" (or MAILWRIGHT_URL) is "${baseURL}"; it must be an http:// or https:// URL such as http://127.0.0.1:8025`);
  }
  const apiKey = merged.apiKey ?? (env.MAILWRIGHT_API_KEY || undefined);
  const apiKeySource: ApiKeySource = merged.apiKey !== undefined ? 'option' : envKeySource(env);
  if (!apiKey) {
    throw optionError(
      'mailwright has no API key: set the "apiKey" option (test.use({ mailwright: { apiKey: \'mw_…\' } })) or the MAILWRIGHT_API_KEY environment variable. ' +
        'Start the service with `npx mailwright serve --api-key mw_…` (or mailwrightServer() in playwright.config.ts) to get a known key, or create one with `npx mailwright keys create --email you@example.com`.',
    );
  }
  const receiverURL = merged.receiverURL;
  if (receiverURL !== undefined && typeof receiverURL !== 'string') throw optionError('mailwright option "receiverURL" must be a string such as http://host.docker.internal:{port}{path}');
  const receiverHost = merged.receiverHost ?? DEFAULT_OPTIONS.receiverHost;
  if (typeof receiverHost !== 'string' || receiverHost === '') throw optionError('mailwright option "receiverHost" must be a host name or IP address, e.g. 127.0.0.1 or 0.0.0.0');
  if (merged.domain !== undefined && (typeof merged.domain !== 'string' || merged.domain === '')) throw optionError('mailwright option "domain" must be a domain the service serves, e.g. mailwright.test');
  return {
    baseURL: baseURL.replace(/\/+$/, ''),
    apiKey,
    apiKeySource,
    domain: merged.domain,
    expiryTime: positiveNumber('expiryTime', merged.expiryTime, DEFAULT_OPTIONS.expiryTime),
    delivery: oneOf('delivery', merged.delivery, ['auto', 'webhook', 'poll'] as const, DEFAULT_OPTIONS.delivery),
    receiverHost,
    receiverURL,
    longPollTimeout: atLeast(1_000, 'longPollTimeout', positiveNumber('longPollTimeout', merged.longPollTimeout, DEFAULT_OPTIONS.longPollTimeout, 30_000)),
    fallbackAfter: positiveNumber('fallbackAfter', merged.fallbackAfter, DEFAULT_OPTIONS.fallbackAfter),
    timeout: positiveNumber('timeout', merged.timeout, DEFAULT_OPTIONS.timeout),
    attach: oneOf('attach', merged.attach, ['always', 'on-failure', 'never'] as const, DEFAULT_OPTIONS.attach),
    keep: oneOf('keep', merged.keep, ['on-failure', 'always', 'never'] as const, DEFAULT_OPTIONS.keep),
  };
}
