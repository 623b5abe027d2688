// Owns reading the account's quota from response headers: the IETF httpapi
// ratelimit draft as the server sends it (`RateLimit-Policy: "monthly";q=N;w=S` and
// `RateLimit: "monthly";r=N;t=S`), its older dictionary form
// (`RateLimit: limit=N, remaining=N, reset=S`) and the legacy `RateLimit-Limit/-Remaining/
// -Reset` trio (with or without an `X-` prefix). Parsing is lenient: what cannot be read is null.

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

interface Item {
  name: string | undefined;
  params: Map<string, string>;
}

const DEFAULT_POLICY = 'default';
/** Values above this are read as a Unix time rather than a number of seconds. */
const EPOCH_THRESHOLD = 1_000_000_000;

function header(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value)) return value.join(', ');
  return value;
}

function unquote(value: string): string {
  const v = value.trim();
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1).replace(/\\(.)/g, '$1') : v;
}

/** Splits on `sep` outside double quotes. */
function splitOutsideQuotes(value: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (ch === '\\' && quoted && i + 1 < value.length) {
      current += ch + value[++i]!;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === sep && !quoted) {
      parts.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

/**
 * Parses a structured-field list such as `"monthly";q=100;w=2592000, "burst";q=10;w=1`.
 * An item whose first member contains `=` has no name (the draft-07 dictionary style).
 */
function parseList(value: string): Item[] {
  return splitOutsideQuotes(value, ',').map((member) => {
    const pieces = splitOutsideQuotes(member, ';');
    const params = new Map<string, string>();
    let name: string | undefined;
    pieces.forEach((piece, index) => {
      const eq = piece.indexOf('=');
      if (eq === -1) {
        if (index === 0) name = unquote(piece);
        else params.set(piece.toLowerCase(), '?1');
        return;
      }
      params.set(piece.slice(0, eq).trim().toLowerCase(), unquote(piece.slice(eq + 1)));
    });
    return { name, params };
  });
}

function toNumber(value: string | undefined): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (!/^-?\d+(\.\d+)?$/.test(trimmed)) return null;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : null;
}

/** Seconds to reset, accepting a Unix time (as some legacy headers send) as well as a delta. */
function toResetSeconds(value: string | undefined, nowMs: number): number | null {
  const n = toNumber(value);
  if (n === null) return null;
  if (n > EPOCH_THRESHOLD) return Math.max(0, Math.ceil(n - nowMs / 1000));
  return Math.max(0, n);
}

/** Names of the headers that report a quota (any one of them is enough). */
const QUOTA_HEADERS = ['ratelimit-policy', 'ratelimit', 'ratelimit-limit', 'x-ratelimit-limit', 'ratelimit-remaining', 'x-ratelimit-remaining', 'ratelimit-reset', 'x-ratelimit-reset'];

/** Whether a response reports a quota at all (what {@link parseQuotaHeaders} reads, without reading it). */
export function hasQuotaHeaders(headers: ResponseHeaders): boolean {
  return QUOTA_HEADERS.some((name) => headers[name] !== undefined);
}

/**
 * Reads the quota from response headers, or `undefined` when the response carries
 * no quota headers at all.
 *
 * @param headers - Response headers with lower-case names.
 * @param nowMs - Current time, used only for legacy reset values given as a Unix time.
 * @example
 * ```ts
 * parseQuotaHeaders({
 *   'ratelimit-policy': '"monthly";q=10000;w=2592000',
 *   ratelimit: '"monthly";r=9876;t=86400',
 * });
 * // → { policy: 'monthly', limit: 10000, remaining: 9876, resetSeconds: 86400 }
 * ```
 */
export function parseQuotaHeaders(headers: ResponseHeaders, nowMs = Date.now()): QuotaSnapshot | undefined {
  if (!hasQuotaHeaders(headers)) return undefined;
  const policyHeader = header(headers, 'ratelimit-policy');
  const stateHeader = header(headers, 'ratelimit');
  const legacyLimit = header(headers, 'ratelimit-limit') ?? header(headers, 'x-ratelimit-limit');
  const legacyRemaining = header(headers, 'ratelimit-remaining') ?? header(headers, 'x-ratelimit-remaining');
  const legacyReset = header(headers, 'ratelimit-reset') ?? header(headers, 'x-ratelimit-reset');

  const policies = policyHeader === undefined ? [] : parseList(policyHeader);
  const states = stateHeader === undefined ? [] : parseList(stateHeader);

  // The state item names the policy it reports on; prefer a policy of the same name.
  const state = states[0];
  const policy = (state?.name !== undefined && policies.find((p) => p.name === state.name)) || policies[0];

  // Draft-07 and earlier: `RateLimit: limit=N, remaining=N, reset=N` (one dictionary, split into items here).
  const dictionary = new Map<string, string>();
  for (const item of states) {
    if (item.name === undefined) for (const [k, v] of item.params) if (!dictionary.has(k)) dictionary.set(k, v);
  }
  // Draft-07 policy: `RateLimit-Policy: 100;w=60` (the limit is the bare item).
  const bareLimit = policy?.name !== undefined && policy.params.size > 0 ? toNumber(policy.name) : null;

  const limit =
    toNumber(policy?.params.get('q')) ??
    toNumber(dictionary.get('limit')) ??
    bareLimit ??
    toNumber(legacyLimit);
  const remaining =
    toNumber(state?.params.get('r')) ?? toNumber(dictionary.get('remaining')) ?? toNumber(legacyRemaining);
  const resetSeconds =
    toResetSeconds(state?.params.get('t'), nowMs) ??
    toResetSeconds(dictionary.get('reset'), nowMs) ??
    toResetSeconds(legacyReset, nowMs);

  const named = [state?.name, policy?.name].find((n) => n !== undefined && n !== '' && toNumber(n) === null);
  return { policy: named ?? DEFAULT_POLICY, limit, remaining, resetSeconds };
}
