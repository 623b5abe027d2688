// Owns API authentication, scopes and quota: every route declaring `config.scope` needs an
// X-API-Key with that scope, and counts one call against the account's monthly allowance.
// `/mcp` authenticates and counts with the same two functions, once per tool call.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_KEY_HEADER } from '../../protocol/index.js';
import { hashSecret, sameDigest } from '../auth/secrets.js';
import { allowanceOf, periodOf, quotaState, rateLimitHeaders, readQuota, secondsToReset, type QuotaState } from '../auth/quota.js';
import type { RoleLimits, ServiceContext } from '../context.js';
import type { AccountRecord, ApiKeyRecord, Scope } from '../store/store.js';
import { ApiError } from './problem.js';

/** Who calls: the key's account, the key and the account's role limits. */
export interface RequestAuth {
  account: AccountRecord;
  key: ApiKeyRecord;
  limits: RoleLimits;
}

/** An API call's auth, with the account's quota after counting it. */
export interface CallAuth extends RequestAuth {
  quota: QuotaState;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a key needs for this route; routes without one are public. */
    scope?: Scope;
    /** Never refused for an exhausted quota (redeeming a top-up must work then). */
    quotaExempt?: boolean;
  }
  interface FastifyRequest {
    auth: CallAuth | null;
  }
}

/** The caller's auth; only valid on routes that declare a scope. */
export function authOf(request: FastifyRequest): CallAuth {
  if (!request.auth) throw new Error('route has no scope, so it has no auth');
  return request.auth;
}

const KEY_TOUCH_INTERVAL_MS = 60_000;

/** The first value of a request header. */
export function headerValue(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

/**
 * Marks the calls the service makes to itself for the tools of `/mcp`: a header with a secret
 * made at start that never leaves this process and its own loopback connections.
 */
export class InternalCalls {
  static readonly HEADER = 'x-mailwright-internal-call';
  readonly #token = randomBytes(32).toString('base64url');

  /** The header an internal call carries. */
  get headers(): Record<string, string> {
    return { [InternalCalls.HEADER]: this.#token };
  }

  marks(request: FastifyRequest): boolean {
    const given = headerValue(request.headers[InternalCalls.HEADER]);
    if (given === undefined) return false;
    const [a, b] = [Buffer.from(given), Buffer.from(this.#token)];
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

function limitsOf(ctx: ServiceContext, role: string): RoleLimits {
  return ctx.config.roles[role] ?? ctx.config.roles.civilian!;
}

/**
 * The account of an API key that has `scope`; an ApiError (401/403) naming the way out when
 * the key is missing, unknown, revoked or lacks the scope. `what` names the call for the 403.
 */
export async function authenticate(ctx: ServiceContext, given: string | undefined, scope: Scope, what: string): Promise<RequestAuth> {
  if (!given) throw new ApiError('missing_api_key', `send your API key in the ${'X-API-Key'} header; create one with \`mailwright keys create\``);
  const hash = hashSecret(given);
  const key = await ctx.store.findApiKeyByHash(hash);
  if (!key || !sameDigest(key.hash, hash)) throw new ApiError('invalid_api_key', 'the X-API-Key is unknown or revoked; create a new key with `mailwright keys create`');
  if (!key.scopes.includes(scope)) throw new ApiError('scope_denied', `this key has scopes [${key.scopes.join(', ')}] but ${what} needs "${scope}"; use a key with that scope`);
  const account = await ctx.store.getAccount(key.accountId);
  if (!account) throw new ApiError('invalid_api_key', 'the account of this X-API-Key no longer exists; create a new key');
  const now = ctx.clock.now();
  // "Last used" on the profile page: one write per key a minute at most.
  if (key.lastUsedAt === null || now - key.lastUsedAt >= KEY_TOUCH_INTERVAL_MS) await ctx.store.touchApiKey(key.id, now);
  return { account, key: { ...key }, limits: limitsOf(ctx, account.role) };
}

/**
 * Counts one call against the account's monthly allowance and returns the quota after it;
 * an ApiError `quota_exhausted` (429, Retry-After) when nothing was left, unless `exempt`.
 */
export async function countCall(ctx: ServiceContext, auth: RequestAuth, exempt = false): Promise<QuotaState> {
  const { account, limits } = auth;
  const now = ctx.clock.now();
  const period = periodOf(now);
  const topUps = await ctx.store.getTopUps(account.id, period);
  const allowance = allowanceOf(limits, topUps);
  const { used, allowed } = await ctx.store.consumeCall(account.id, period, allowance);
  const quota = quotaState(period, allowance, topUps, used, now);
  if (!allowed && !exempt) {
    const retryAfter = secondsToReset(quota, now);
    throw new ApiError(
      'quota_exhausted',
      `account ${account.email} used all ${allowance} API calls of ${period}; the quota resets in ${retryAfter} s, or raise it with a top-up (POST /api/config/quota/redeem)`,
      undefined,
      { 'retry-after': String(retryAfter), ...rateLimitHeaders(quota, now) },
    );
  }
  return quota;
}

/**
 * Installs the onRequest hook of every route with `config.scope`. A call the service makes to
 * itself for a tool of `/mcp` carries `internal` in its header and is not counted again: the
 * tool call was.
 */
export function installAuth(app: FastifyInstance, ctx: ServiceContext, internal: InternalCalls): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request, reply) => {
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    const auth = await authenticate(ctx, headerValue(request.headers[API_KEY_HEADER]), scope, `${request.method} ${request.routeOptions.url}`);
    let quota: QuotaState;
    if (internal.marks(request)) quota = await readQuota(ctx.store, auth.account, auth.limits, ctx.clock.now());
    else {
      quota = await countCall(ctx, auth, request.routeOptions.config.quotaExempt);
      reply.headers(rateLimitHeaders(quota, ctx.clock.now()));
    }
    request.auth = { ...auth, quota };
  });
}
