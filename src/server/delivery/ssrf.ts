// Owns the SSRF guard for webhook targets: which URLs a webhook may point at (checked when
// it is created and again before every attempt) and a DNS lookup that refuses private
// addresses at connect time, so a public instance cannot be turned against its own network
// by a name that resolves (or later re-resolves) to a private address. Addresses are judged
// by ipaddr.js: only unicast is allowed, after IPv6 forms that carry an IPv4 address
// (mapped, translated, 6to4, Teredo, NAT64, IPv4-compatible) are unwrapped to it.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { ResolvedConfig } from '../context.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

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

/** Cloud metadata services, refused under their own name (both are also non-unicast ranges). */
const METADATA_ADDRESSES = ['169.254.169.254', 'fd00:ec2::254'].map((a) => ipaddr.parse(a).toNormalizedString());
const METADATA_RULE = 'cloud metadata address (169.254.169.254, fd00:ec2::254)';

/** Human words for ipaddr.js range names; any range not named here but `unicast` is refused too. */
const RANGE_LABELS: Readonly<Record<string, string>> = {
  unspecified: 'unspecified address (0.0.0.0/8, ::)',
  loopback: 'loopback address (127.0.0.0/8, ::1)',
  private: 'private network (RFC 1918: 10/8, 172.16/12, 192.168/16)',
  carrierGradeNat: 'carrier-grade NAT range (100.64.0.0/10)',
  linkLocal: 'link-local address (169.254.0.0/16, fe80::/10)',
  uniqueLocal: 'unique-local IPv6 address (fc00::/7)',
  deprecatedSiteLocal: 'site-local IPv6 address (fec0::/10)',
  multicast: 'multicast address (224.0.0.0/4, ff00::/8)',
  broadcast: 'broadcast address (255.255.255.255)',
  reserved: 'reserved or documentation range',
  benchmarking: 'benchmarking range (RFC 5180)',
  discard: 'discard-only IPv6 prefix (100::/64)',
  amt: 'AMT relay range (RFC 7450)',
  as112: 'AS112 DNS sink range',
  as112v6: 'AS112 DNS sink range',
  deprecatedOrchid: 'ORCHID identifier range (not routable)',
  orchid2: 'ORCHID identifier range (not routable)',
  droneRemoteIdProtocolEntityTags: 'drone remote ID tag range (RFC 9374)',
  segmentRouting: 'segment-routing SID range (RFC 9602)',
};

/** `rule` after "a" or "an", as it reads ("an IPv4-mapped address", "a private network"). */
function withArticle(rule: string): string {
  return `${/^[aeiou]/i.test(rule) ? 'an' : 'a'} ${rule}`;
}

function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/** Host names that always mean this machine or the cloud metadata service. */
const BLOCKED_NAMES: ReadonlyArray<{ test: (host: string) => boolean; label: string }> = [
  { test: isLocalhostName, label: 'localhost' },
  { test: (h) => h === 'metadata.google.internal' || h === 'metadata', label: 'cloud metadata host' },
];

/** `[::1]` → `::1`, lower-case, without a trailing dot. */
function bareHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

/**
 * `host` as an IP address: `undefined` when it is not a literal address (a name), `null` when
 * node takes it for one but ipaddr.js cannot parse it (refused rather than let through). A
 * zone id (fe80::1%eth0) does not change the range, so it is dropped first.
 */
function parseLiteral(host: string): IPv4 | IPv6 | null | undefined {
  const ip = bareHost(host).split('%')[0]!;
  if (isIP(ip) === 0) return undefined;
  try {
    return ipaddr.parse(ip);
  } catch {
    return null;
  }
}

function ipv4(hi: number, lo: number): IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

/**
 * The IPv4 addresses an IPv6 address carries, each with words for the form that carries it
 * ("6to4 address embedding"); empty when it carries none. A carried address is always IPv4,
 * so one step unwraps completely.
 */
function carriedIPv4(address: IPv6): Array<{ form: string; address: IPv4 }> {
  const p = address.parts as [number, number, number, number, number, number, number, number];
  const last32 = ipv4(p[6], p[7]);
  switch (address.range() as string) {
    case 'ipv4Mapped': return [{ form: 'IPv4-mapped address embedding', address: last32 }]; // ::ffff:0:0/96
    case 'rfc6145': return [{ form: 'IPv4-translated address embedding', address: last32 }]; // ::ffff:0:0:0/96
    case 'rfc6052': return [{ form: 'NAT64 address embedding', address: last32 }]; // 64:ff9b::/96, 64:ff9b:1::/48
    case '6to4': return [{ form: '6to4 address embedding', address: ipv4(p[1], p[2]) }]; // 2002:AABB:CCDD::/48
    case 'teredo': // 2001:0:server:server:flags:port:~client:~client
      return [
        { form: 'Teredo address whose server is', address: ipv4(p[2], p[3]) },
        { form: 'Teredo address whose client is', address: ipv4(p[6] ^ 0xffff, p[7] ^ 0xffff) },
      ];
    case 'unicast': // ::a.b.c.d (IPv4-compatible, deprecated); :: and ::1 are ranges of their own
      return p.slice(0, 6).every((g) => g === 0) ? [{ form: 'IPv4-compatible address embedding', address: last32 }] : [];
    default: return [];
  }
}

/** The rule that makes `address` a non-public target, or null when it is public unicast. */
function addressRule(address: IPv4 | IPv6): string | null {
  if (METADATA_ADDRESSES.includes(address.toNormalizedString())) return METADATA_RULE;
  if (address.kind() === 'ipv6') {
    const embedded = carriedIPv4(address as IPv6);
    for (const { form, address: inner } of embedded) {
      const rule = addressRule(inner);
      if (rule) return `${form} ${inner.toString()}, ${withArticle(rule)}`;
    }
    if (embedded.length > 0) return null;
  }
  const range: string = address.range();
  return range === 'unicast' ? null : RANGE_LABELS[range] ?? `non-unicast address (ipaddr.js range "${range}")`;
}

/**
 * The rule that makes `host` (a literal IPv4 or IPv6 address, bracketed or not) a non-public
 * target, or null when it is public or not an address at all.
 */
function privateAddressRule(host: string): string | null {
  const address = parseLiteral(host);
  if (address === undefined) return null;
  if (address === null) return 'IP address the guard cannot parse';
  return addressRule(address);
}

/**
 * True when `host` (as the server is told to listen on) is a loopback address or
 * `localhost`: 127.0.0.0/8, ::1 (also as ::ffff:127.x.x.x), localhost or *.localhost. Such a
 * server is reachable only from this machine, so webhooks to private and loopback targets
 * are allowed.
 */
export function isLoopbackHost(host: string): boolean {
  if (isLocalhostName(bareHost(host))) return true;
  const address = parseLiteral(host);
  if (!address) return false;
  const unmapped = address.kind() === 'ipv6' && (address as IPv6).isIPv4MappedAddress() ? (address as IPv6).toIPv4Address() : address;
  return unmapped.range() === 'loopback';
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
 * Only http and https URLs are accepted; without `allowPrivate`, a literal address is
 * refused unless ipaddr.js ranks it unicast (an IPv6 form carrying an IPv4 address is judged
 * by that address), and so are `localhost` and the metadata host names. Host names are not
 * resolved here: delivery resolves them through {@link guardedLookup}, which refuses the
 * same addresses.
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
    `webhook URL ${url} targets ${host}, ${withArticle(rule)}; private and loopback targets are refused while the server listens on a public host — ${WAY_OUT}`,
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
    super(`${hostname} resolves to ${address}, ${withArticle(rule)}; private and loopback targets are refused while the server listens on a public host — ${WAY_OUT}`);
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
