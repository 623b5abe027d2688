// Owns quota arithmetic: the calendar month (UTC) a call falls in, the month's allowance
// (role + top-ups) and the IETF RateLimit headers that report it.
import type { RoleLimits } from '../context.js';
import type { AccountRecord, Store } from '../store/store.js';

/** The name of our one policy in RateLimit headers. */
const POLICY_NAME = 'monthly';
/** What `q`/`r` report for roles with no limit (the header has no way to say "unlimited"). */
const UNLIMITED_HEADER_VALUE = 2_147_483_647;

/** `YYYY-MM` of the UTC calendar month containing `now`. */
export function periodOf(now: number): string {
  return new Date(now).toISOString().slice(0, 7);
}

/** Start and end (exclusive) of the month containing `now`, in ms. */
function periodBounds(now: number): { start: number; end: number } {
  const d = new Date(now);
  return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

export interface QuotaState {
  period: string;
  /** null = unlimited. */
  allowance: number | null;
  topUps: number;
  used: number;
  resetsAt: number;
  windowSeconds: number;
}

/** The month's allowance: the role's calls plus this month's top-ups (null when the role is unlimited). */
export function allowanceOf(limits: RoleLimits, topUps: number): number | null {
  return limits.monthlyCalls === null ? null : limits.monthlyCalls + topUps;
}

export async function readQuota(store: Store, account: AccountRecord, limits: RoleLimits, now: number): Promise<QuotaState> {
  const period = periodOf(now);
  const [topUps, used] = await Promise.all([store.getTopUps(account.id, period), store.getUsage(account.id, period)]);
  return quotaState(period, allowanceOf(limits, topUps), topUps, used, now);
}

export function quotaState(period: string, allowance: number | null, topUps: number, used: number, now: number): QuotaState {
  const { start, end } = periodBounds(now);
  return { period, allowance, topUps, used, resetsAt: end, windowSeconds: Math.round((end - start) / 1000) };
}

/** Seconds until the month resets (at least 1). */
export function secondsToReset(state: QuotaState, now: number): number {
  return Math.max(1, Math.ceil((state.resetsAt - now) / 1000));
}

/** `RateLimit-Policy` and `RateLimit` header values (draft-ietf-httpapi-ratelimit-headers). */
export function rateLimitHeaders(state: QuotaState, now: number): Record<string, string> {
  const q = state.allowance ?? UNLIMITED_HEADER_VALUE;
  const r = state.allowance === null ? UNLIMITED_HEADER_VALUE : Math.max(0, state.allowance - state.used);
  return {
    'ratelimit-policy': `"${POLICY_NAME}";q=${q};w=${state.windowSeconds}`,
    ratelimit: `"${POLICY_NAME}";r=${r};t=${secondsToReset(state, now)}`,
  };
}
