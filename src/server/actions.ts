// Owns what an account does that both the HTTP API and the web UI offer: create a mailbox,
// register a webhook, redeem a top-up code. One implementation, one set of rules; failures
// are ApiErrors with the API's codes, which the web UI shows as the form's error.
import { MIN_EXPIRY_TIME, generateWebhookSecret } from '../protocol/index.js';
import { ApiError } from './api/problem.js';
import { periodOf } from './auth/quota.js';
import { hashSecret, normalizeRedeemCode } from './auth/secrets.js';
import type { RoleLimits, ServiceContext } from './context.js';
import { assertWebhookUrlAllowed, privateWebhooksAllowed, WebhookUrlError } from './delivery/ssrf.js';
import { randomToken } from './ids.js';
import { MailboxLimitError, StoreConflictError, type AccountRecord, type MailboxRecord, type WebhookRecord } from './store/store.js';

/** Random local parts tried before giving up (each collision is ~1 in 36^12). */
const RANDOM_NAME_TRIES = 5;

const LOCAL_PART = /^[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?$/;

export interface NewMailboxInput {
  /** Custom local part; random when absent. */
  name?: string;
  domain?: string;
  expiryTime: number;
  webhookId?: string;
}

/** Creates a mailbox for the account within its role's limits. */
export async function createMailboxFor(ctx: ServiceContext, account: AccountRecord, limits: RoleLimits, input: NewMailboxInput): Promise<MailboxRecord> {
  const { store, clock, config } = ctx;
  const now = clock.now();
  const domain = (input.domain ?? config.domains[0]!).toLowerCase();
  if (!config.domains.includes(domain)) {
    throw new ApiError('unknown_domain', `domain "${domain}" is not served here; use one of ${config.domains.join(', ')}`, 'domain');
  }
  let name: string | undefined;
  if (input.name !== undefined) {
    name = input.name.toLowerCase();
    if (!LOCAL_PART.test(name) || name.includes('..')) {
      throw new ApiError('invalid_request', `name "${input.name}" is not a usable local part: use 1-64 of a-z 0-9 . _ - (no "+", which is for tags), starting and ending with a letter or digit`, 'name');
    }
  }
  if (!Number.isInteger(input.expiryTime) || input.expiryTime < MIN_EXPIRY_TIME || input.expiryTime > limits.maxExpiryTime) {
    throw new ApiError('invalid_request', `expiryTime ${input.expiryTime} ms is outside ${MIN_EXPIRY_TIME}-${limits.maxExpiryTime} ms allowed for role ${account.role}; pick a value in that range (e.g. 3600000)`, 'expiryTime');
  }
  if (input.webhookId !== undefined && !(await store.getWebhook(account.id, input.webhookId))) {
    throw new ApiError('invalid_request', `webhookId "${input.webhookId}" is not a webhook of this account; create one with POST /api/config/webhooks`, 'webhookId');
  }
  const create = (local: string) =>
    store.createMailbox({ accountId: account.id, address: `${local}@${domain}`, webhookId: input.webhookId ?? null, createdAt: now, expiresAt: now + input.expiryTime }, now, limits.maxMailboxes);
  let tried = name;
  try {
    if (name) return await create(name);
    for (let tries = 0; ; tries++) {
      tried = randomToken(12);
      try {
        return await create(tried);
      } catch (error) {
        if (!(error instanceof StoreConflictError) || tries === RANDOM_NAME_TRIES - 1) throw error;
      }
    }
  } catch (error) {
    if (error instanceof MailboxLimitError) {
      throw new ApiError(
        'mailbox_limit',
        `account ${account.email} has ${error.live} live mailboxes and role ${account.role} allows ${error.limit} at once; ` +
          'end the ones you are done with (POST /api/emails/{id}/expire), create them with a shorter expiryTime, or move the account to a role with a higher limit',
      );
    }
    if (!(error instanceof StoreConflictError)) throw error;
    if (name) throw new ApiError('address_taken', `${name}@${domain} is already a live mailbox; choose another name or leave name out for a random one`, 'name');
    throw new ApiError('address_taken', `${RANDOM_NAME_TRIES} random addresses in a row at ${domain} were taken (the last ${tried}@${domain}); send the request again`);
  }
}

/** Registers a webhook after the URL passes the SSRF rules; the record carries its secret. */
export async function createWebhookFor(ctx: ServiceContext, account: AccountRecord, input: { url: string; catchAll?: boolean }): Promise<WebhookRecord> {
  try {
    assertWebhookUrlAllowed(input.url, { allowPrivate: privateWebhooksAllowed(ctx.config) });
  } catch (error) {
    if (error instanceof WebhookUrlError) throw new ApiError('invalid_request', error.message, 'url');
    throw error;
  }
  return ctx.store.createWebhook({ accountId: account.id, url: input.url, catchAll: input.catchAll ?? true, secret: generateWebhookSecret(), now: ctx.clock.now() });
}

/** Redeems a top-up code for the account; returns the calls it added. */
export async function redeemFor(ctx: ServiceContext, account: AccountRecord, code: string): Promise<number> {
  const now = ctx.clock.now();
  const calls = await ctx.store.redeemCode({ hash: hashSecret(normalizeRedeemCode(code)), accountId: account.id, period: periodOf(now), now });
  if (calls === null) throw new ApiError('redeem_code_invalid', 'this code is unknown or was already redeemed; check it, or ask your admin for a new one (`mailwright quota code`)', 'code');
  return calls;
}
