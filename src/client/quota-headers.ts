// Owns reading the account's quota from response headers, in the form the service sends
// (src/server/auth/quota.ts, the IETF httpapi ratelimit draft):
// `RateLimit-Policy: "monthly";q=N;w=S` and `RateLimit: "monthly";r=N;t=S`.
// Parsing is lenient: what cannot be read is null.

/** The account's quota as one response's headers reported it. */
export interface QuotaSnapshot {
  /** Name of the policy, e.g. `'monthly'` (`'default'` when the server named none). */
  policy: string;
  /** Calls allowed in the window; `null` when unlimited or not reported. */
  limit: number | null;
  /** Calls left in the window; `null` when unlimited or not reported. */
  remaining: number | null;
  /** Seconds until the window resets, counted from when the response arrived; `null` when not reported. */
  resetSeconds: number | null;
}

/** Response headers as undici / node:http give them (names lower-case). */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** One list member: `"name";key=value;…`. */
interface Item {
  name: string;
  params: Map<string, string>;
}

const DEFAULT_POLICY = 'default';

function header(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The members of a structured-field list such as `"burst";q=10;w=1, "monthly";q=500;w=2592000`. */
function parseList(value: string | undefined): Item[] {
  if (value === undefined) return [];
  return value.split(',').map((member) => {
    const [name = '', ...params] = member.split(';').map((piece) => piece.trim());
    return {
      name: name.replace(/^"(.*)"$/, '$1'),
      params: new Map(params.map((param) => {
        const eq = param.indexOf('=');
        return eq < 0 ? [param.toLowerCase(), ''] : [param.slice(0, eq).trim().toLowerCase(), param.slice(eq + 1).trim()];
      })),
    };
  });
}

/** A whole number of at least 0, or null. */
function toCount(value: string | undefined): number | null {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : null;
}

/** Whether a response reports a quota at all (what {@link parseQuotaHeaders} reads, without reading it). */
export function hasQuotaHeaders(headers: ResponseHeaders): boolean {
  return headers['ratelimit-policy'] !== undefined || headers.ratelimit !== undefined;
}

/**
 * Reads the quota from response headers, or `undefined` when the response carries
 * no quota headers at all.
 *
 * @param headers - Response headers with lower-case names.
 * @example
 * ```ts
 * parseQuotaHeaders({
 *   'ratelimit-policy': '"monthly";q=10000;w=2592000',
 *   ratelimit: '"monthly";r=9876;t=86400',
 * });
 * // → { policy: 'monthly', limit: 10000, remaining: 9876, resetSeconds: 86400 }
 * ```
 */
export function parseQuotaHeaders(headers: ResponseHeaders): QuotaSnapshot | undefined {
  if (!hasQuotaHeaders(headers)) return undefined;
  const policies = parseList(header(headers, 'ratelimit-policy'));
  const state = parseList(header(headers, 'ratelimit'))[0];
  // The state names the policy it reports on; prefer a policy of the same name.
  const policy = policies.find((p) => p.name === state?.name) ?? policies[0];
  return {
    policy: state?.name || policy?.name || DEFAULT_POLICY,
    limit: toCount(policy?.params.get('q')),
    remaining: toCount(state?.params.get('r')),
    resetSeconds: toCount(state?.params.get('t')),
  };
}
