// Owns API authentication, scopes and quota: every route declaring `config.scope` needs an
// X-API-Key with that scope, and counts one call against the account's monthly allowance.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_KEY_HEADER } from '../../protocol/index.js';
import { hashSecret, sameDigest } from '../auth/secrets.js';
import { allowanceOf, periodOf, quotaState, rateLimitHeaders, secondsToReset, type QuotaState } from '../auth/quota.js';
import type { RoleLimits, ServiceContext } from '../context.js';
import type { AccountRecord, ApiKeyRecord, Scope } from '../store/store.js';
import { ApiError } from './problem.js';

interface RequestAuth {
  account: AccountRecord;
  key: ApiKeyRecord;
  limits: RoleLimits;
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
    auth: RequestAuth | null;
  }
}

/** The caller's auth; only valid on routes that declare a scope. */
export function authOf(request: FastifyRequest): RequestAuth {
  if (!request.auth) throw new Error('route has no scope, so it has no auth');
  return request.auth;
}

const KEY_TOUCH_INTERVAL_MS = 60_000;

function limitsOf(ctx: ServiceContext, role: string): RoleLimits {
  return ctx.config.roles[role] ?? ctx.config.roles.civilian!;
}

export function installAuth(app: FastifyInstance, ctx: ServiceContext): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request, reply) => {
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    const header = request.headers[API_KEY_HEADER];
    const given = Array.isArray(header) ? header[0] : header;
    if (!given) throw new ApiError('missing_api_key', `send your API key in the ${'X-API-Key'} header; create one with \`mailwright keys create\``);
    const hash = hashSecret(given);
    const key = await ctx.store.findApiKeyByHash(hash);
    if (!key || !sameDigest(key.hash, hash)) throw new ApiError('invalid_api_key', 'the X-API-Key is unknown or revoked; create a new key with `mailwright keys create`');
    if (!key.scopes.includes(scope)) {
      throw new ApiError('scope_denied', `this key has scopes [${key.scopes.join(', ')}] but ${request.method} ${request.routeOptions.url} needs "${scope}"; use a key with that scope`);
    }
    const account = await ctx.store.getAccount(key.accountId);
    if (!account) throw new ApiError('invalid_api_key', 'the account of this X-API-Key no longer exists; create a new key');
    const limits = limitsOf(ctx, account.role);
    const now = ctx.clock.now();
    const period = periodOf(now);
    const topUps = await ctx.store.getTopUps(account.id, period);
    const allowance = allowanceOf(limits, topUps);
    const { used, allowed } = await ctx.store.consumeCall(account.id, period, allowance);
    const quota = quotaState(period, allowance, topUps, used, now);
    reply.headers(rateLimitHeaders(quota, now));
    if (!allowed && !request.routeOptions.config.quotaExempt) {
      const retryAfter = secondsToReset(quota, now);
      throw new ApiError(
        'quota_exhausted',
        `account ${account.email} used all ${allowance} API calls of ${period}; the quota resets in ${retryAfter} s, or raise it with a top-up (POST /api/config/quota/redeem)`,
        undefined,
        { 'retry-after': String(retryAfter) },
      );
    }
    // "Last used" on the profile page: one write per key a minute at most.
    if (key.lastUsedAt === null || now - key.lastUsedAt >= KEY_TOUCH_INTERVAL_MS) await ctx.store.touchApiKey(key.id, now);
    request.auth = { account, key: { ...key }, limits, quota };
  });
}
