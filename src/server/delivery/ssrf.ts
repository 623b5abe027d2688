// Owns the SSRF guard for webhook targets: which URLs a webhook may point at (checked when
// it is created and again before every attempt) and a DNS lookup that refuses private
// addresses at connect time, so a public instance cannot be turned against its own network
// by a name that resolves (or later re-resolves) to a private address.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { ResolvedConfig } from '../context.js';

/** Why a webhook URL was refused. */
type WebhookUrlErrorCode = 'MW_ERR_WEBHOOK_URL_INVALID' | 'MW_ERR_WEBHOOK_URL_PRIVATE';

const WAY_OUT = 'start the server on a loopback host or pass --allow-private-webhooks';

/**
 * A webhook URL that may not be used. `code` is stable (match on it, not on the message);
 * `rule` names the range or rule that refused it. The HTTP API answers it as 400
 * `invalid_request` with `field: 'url'` and the message as `detail`.
 */
export class WebhookUrlError extends Error {
  override readonly name = 'WebhookUrlError';
  constructor(
    readonly code: WebhookUrlErrorCode,
    readonly url: string,
    readonly rule: string,
    message: string,
  ) {
    super(message);
  }
}

interface Range {
  /** Human name of the rule, used in error messages. */
  label: string;
  list: BlockList;
}

function range(label: string, ...cidrs: string[]): Range {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [net, bits] = cidr.split('/') as [string, string];
    list.addSubnet(net, Number(bits), isIP(net) === 6 ? 'ipv6' : 'ipv4');
  }
  return { label, list };
}

// Order matters only for the label reported: the most specific rule comes first.
const BLOCKED: readonly Range[] = [
  range('cloud metadata address (169.254.169.254)', '169.254.169.254/32', 'fd00:ec2::254/128'),
  range('unspecified address (0.0.0.0/8, ::)', '0.0.0.0/8', '::/128'),
  range('loopback (127.0.0.0/8, ::1)', '127.0.0.0/8', '::1/128'),
  range('private network (RFC 1918: 10/8, 172.16/12, 192.168/16)', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'),
  range('carrier-grade NAT (100.64.0.0/10)', '100.64.0.0/10'),
  range('link-local (169.254.0.0/16, fe80::/10)', '169.254.0.0/16', 'fe80::/10'),
  range('unique-local IPv6 (fc00::/7)', 'fc00::/7'),
  range('site-local IPv6 (fec0::/10)', 'fec0::/10'),
  range(
    'reserved or documentation range',
    '192.0.0.0/24', '192.0.2.0/24', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '240.0.0.0/4', '2001:db8::/32',
  ),
  range('multicast or broadcast', '224.0.0.0/4', '255.255.255.255/32', 'ff00::/8'),
];

/** Host names that always mean this machine or the cloud metadata service. */
const BLOCKED_NAMES: ReadonlyArray<{ test: (host: string) => boolean; label: string }> = [
  { test: (h) => h === 'localhost' || h.endsWith('.localhost'), label: 'localhost' },
  { test: (h) => h === 'metadata.google.internal' || h === 'metadata', label: 'cloud metadata host' },
];

/** `[::1]` → `::1`, lower-case, without a trailing dot. */
function bareHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

/** The IPv4 address embedded in an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedIPv4(address: string): string | null {
  const expanded = expandIPv6(address);
  if (!expanded) return null;
  const isMapped = expanded.slice(0, 5).every((g) => g === 0) && expanded[5] === 0xffff;
  const isNat64 = expanded[0] === 0x64 && expanded[1] === 0xff9b && expanded.slice(2, 6).every((g) => g === 0);
  if (!isMapped && !isNat64) return null;
  const hi = expanded[6]!;
  const lo = expanded[7]!;
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/** Eight 16-bit groups of an IPv6 address, or null when it is not one. */
function expandIPv6(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address.split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -dotted[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const fill = tail === undefined ? [] : new Array<number>(8 - front.length - back.length).fill(0);
  const groups = [...front, ...fill, ...back];
  return groups.length === 8 ? groups : null;
}

/**
 * The rule that makes `address` (a literal IPv4 or IPv6 address) a non-public target, or
 * null when it is public. IPv4-mapped and NAT64 IPv6 addresses are judged by their IPv4 part.
 */
function privateAddressRule(address: string): string | null {
  const ip = bareHost(address).split('%')[0]!; // a zone id (fe80::1%eth0) does not change the range
  const family = isIP(ip);
  if (family === 0) return null;
  if (family === 6) {
    const v4 = embeddedIPv4(ip);
    if (v4) return privateAddressRule(v4);
  }
  const type = family === 6 ? 'ipv6' : 'ipv4';
  for (const { label, list } of BLOCKED) if (list.check(ip, type)) return label;
  return null;
}

/**
 * True when `host` (as the server is told to listen on) is a loopback address or
 * `localhost`: 127.0.0.0/8, ::1 or localhost. Such a server is reachable only from this
 * machine, so webhooks to private and loopback targets are allowed.
 */
export function isLoopbackHost(host: string): boolean {
  const h = bareHost(host);
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  const family = isIP(h);
  if (family === 4) return h.startsWith('127.');
  if (family === 6) {
    const v4 = embeddedIPv4(h);
    if (v4) return v4.startsWith('127.');
    const groups = expandIPv6(h);
    return groups !== null && groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1;
  }
  return false;
}

/** Whether this configuration allows webhook targets on private and loopback addresses. */
export function privateWebhooksAllowed(config: Pick<ResolvedConfig, 'allowPrivateWebhooks' | 'host'>): boolean {
  return config.allowPrivateWebhooks || isLoopbackHost(config.host);
}

interface WebhookUrlPolicy {
  /** Allow private, loopback and link-local targets (see {@link privateWebhooksAllowed}). */
  allowPrivate: boolean;
}

/** Longest DNS name and label (RFC 1035). */
const MAX_HOST_NAME = 253;
const MAX_HOST_LABEL = 63;

/** Why `host` cannot be a DNS name (too long, a label too long or empty), or null. IP literals pass. */
function hostNameError(host: string): string | null {
  if (host.includes(':') || /^[\d.]+$/.test(host)) return null;
  if (host.length > MAX_HOST_NAME) return `is ${host.length} characters long; a DNS name has at most ${MAX_HOST_NAME}`;
  const labels = host.split('.');
  const long = labels.find((label) => label.length > MAX_HOST_LABEL);
  if (long) return `has a ${long.length}-character label ("${long.slice(0, 20)}…"); a DNS label has at most ${MAX_HOST_LABEL}`;
  if (labels.some((label) => label === '')) return `"${host}" has an empty label`;
  return null;
}

/**
 * Checks a webhook URL and returns the reason it is refused, or null when it may be used.
 * Only http and https URLs are accepted; without `allowPrivate`, literal private, loopback,
 * link-local, unique-local, CGNAT, unspecified and metadata addresses and `localhost` are
 * refused. Host names are not resolved here: delivery resolves them through
 * {@link guardedLookup}, which refuses the same ranges.
 */
export function checkWebhookUrl(url: string, policy: WebhookUrlPolicy): WebhookUrlError | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return new WebhookUrlError('MW_ERR_WEBHOOK_URL_INVALID', url, 'absolute URL', `webhook URL ${JSON.stringify(url)} is not an absolute URL; give one such as https://example.com/hooks/mail`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return new WebhookUrlError(
      'MW_ERR_WEBHOOK_URL_INVALID', url, 'http or https',
      `webhook URL ${url} uses ${parsed.protocol.slice(0, -1)}; only http and https URLs can receive webhooks`,
    );
  }
  const nameError = hostNameError(bareHost(parsed.hostname));
  if (nameError) return new WebhookUrlError('MW_ERR_WEBHOOK_URL_INVALID', url, 'DNS name limits', `webhook URL host ${nameError}; use a real host name`);
  if (policy.allowPrivate) return null;
  const host = bareHost(parsed.hostname);
  const rule = privateAddressRule(host) ?? BLOCKED_NAMES.find((n) => n.test(host))?.label ?? null;
  if (rule === null) return null;
  return new WebhookUrlError(
    'MW_ERR_WEBHOOK_URL_PRIVATE', url, rule,
    `webhook URL ${url} targets ${host}, a ${rule}; private and loopback targets are refused while the server listens on a public host — ${WAY_OUT}`,
  );
}

/**
 * Throws a {@link WebhookUrlError} when `url` may not be used as a webhook target (see
 * {@link checkWebhookUrl}). Call it when a webhook is created:
 * `assertWebhookUrlAllowed(body.url, { allowPrivate: privateWebhooksAllowed(ctx.config) })`.
 */
export function assertWebhookUrlAllowed(url: string, policy: WebhookUrlPolicy): void {
  const error = checkWebhookUrl(url, policy);
  if (error) throw error;
}

/** The error a guarded lookup fails with; the connection fails with it, and so does the webhook POST. */
export class PrivateAddressError extends Error {
  override readonly name = 'PrivateAddressError';
  readonly code = 'MW_ERR_WEBHOOK_PRIVATE_ADDRESS';
  constructor(readonly hostname: string, readonly address: string, readonly rule: string) {
    super(`${hostname} resolves to ${address}, a ${rule}; private and loopback targets are refused while the server listens on a public host — ${WAY_OUT}`);
  }
}

/**
 * A `lookup` for the webhook Agent's connections (undici hands it to `net.connect` / `tls.connect`) that resolves
 * like `dns.lookup` and fails with {@link PrivateAddressError} when any resolved address is
 * private, so a name cannot be re-pointed at a private address after the URL was checked
 * (DNS rebinding).
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  const refuse = (addresses: LookupAddress[]) => {
    for (const { address } of addresses) {
      const rule = privateAddressRule(address);
      if (rule) return new PrivateAddressError(hostname, address, rule);
    }
    return null;
  };
  if ((options as LookupAllOptions).all) {
    dnsLookup(hostname, { ...(options as LookupAllOptions), all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const refused = refuse(addresses);
      // With `all: true` Node's connect expects the array in the second argument.
      if (refused) return callback(refused, '', 0);
      (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    });
    return;
  }
  dnsLookup(hostname, { ...(options as LookupOptions), all: false }, (err, address, family) => {
    if (err) return callback(err, '', 0);
    const refused = refuse([{ address, family }]);
    if (refused) return callback(refused, '', 0);
    callback(null, address, family);
  });
};
