// Owns the accounts of the Postgres store: accounts, their API keys and their quota of calls
// (each count a single atomic statement, so instances counting at once never pass the allowance).
import { newId } from '../ids.js';
import { isUniqueViolation, type PgDb } from './postgres-db.js';
import { accountFromRow, apiKeyFromRow, num, str } from './rows.js';
import { StoreConflictError, type AccountRecord, type ApiKeyRecord, type Store } from './store.js';

export type PgAccounts = Pick<Store,
  | 'createAccount' | 'getAccount' | 'getAccountByEmail' | 'createApiKey' | 'findApiKeyByHash' | 'listApiKeys' | 'revokeApiKey' | 'touchApiKey'
  | 'setPassword' | 'setAccountRole' | 'listAccounts'
  | 'consumeCall' | 'getUsage' | 'addTopUp' | 'getTopUps' | 'createRedeemCode' | 'redeemCode'>;

export function pgAccounts(db: PgDb): PgAccounts {
  const usage = async (accountId: string, period: string) =>
    num((await db.row('SELECT used FROM quota_usage WHERE account_id = $1 AND period = $2', [accountId, period]))?.used ?? 0);
  return {
    async createAccount(input) {
      const account: AccountRecord = { id: newId('acc'), email: input.email.toLowerCase(), role: input.role, isAdmin: input.isAdmin, passwordHash: input.passwordHash, createdAt: input.now };
      try {
        await db.pool.query(
          'INSERT INTO accounts (id, email, role, is_admin, password_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
          [account.id, account.email, account.role, account.isAdmin, account.passwordHash, account.createdAt],
        );
      } catch (error) {
        if (isUniqueViolation(error)) throw new StoreConflictError('account', `an account with email ${account.email} already exists`);
        throw error;
      }
      return account;
    },

    async getAccount(id) {
      const row = await db.row('SELECT * FROM accounts WHERE id = $1', [id]);
      return row ? accountFromRow(row) : null;
    },

    async getAccountByEmail(email) {
      const row = await db.row('SELECT * FROM accounts WHERE email = $1', [email.toLowerCase()]);
      return row ? accountFromRow(row) : null;
    },

    async createApiKey(input) {
      const id = newId('key');
      await db.pool.query(
        'INSERT INTO api_keys (id, account_id, name, prefix, hash, scopes, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [id, input.accountId, input.name, input.prefix, input.hash, input.scopes.join(','), input.now],
      );
      const key: ApiKeyRecord = { id, accountId: input.accountId, name: input.name, prefix: input.prefix, scopes: input.scopes, createdAt: input.now, revokedAt: null, lastUsedAt: null };
      return key;
    },

    async findApiKeyByHash(hash) {
      const row = await db.row('SELECT * FROM api_keys WHERE hash = $1 AND revoked_at IS NULL', [hash]);
      return row ? { ...apiKeyFromRow(row), hash: str(row.hash) } : null;
    },

    async listApiKeys(accountId) {
      return (await db.rows('SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at, id', [accountId])).map(apiKeyFromRow);
    },

    async revokeApiKey(id, now) {
      return (await db.count('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now, id])) > 0;
    },

    async touchApiKey(id, now) {
      await db.pool.query('UPDATE api_keys SET last_used_at = $1 WHERE id = $2', [now, id]);
    },

    async setPassword(accountId, passwordHash) {
      await db.pool.query(
        'WITH links AS (DELETE FROM sign_in_tokens WHERE account_id = $2) UPDATE accounts SET password_hash = $1 WHERE id = $2',
        [passwordHash, accountId],
      );
    },

    async setAccountRole(accountId, role) {
      return (await db.count('UPDATE accounts SET role = $1 WHERE id = $2', [role, accountId])) > 0;
    },

    async listAccounts(now) {
      const rows = await db.rows(
        'SELECT a.*, (SELECT COUNT(*) FROM mailboxes m WHERE m.account_id = a.id AND m.expires_at > $1) AS live_mailboxes FROM accounts a ORDER BY a.created_at, a.email',
        [now],
      );
      return rows.map((row) => ({ ...accountFromRow(row), liveMailboxes: num(row.live_mailboxes) }));
    },

    async consumeCall(accountId, period, allowance) {
      if (allowance !== null && allowance <= 0) return { used: await usage(accountId, period), allowed: false };
      // One statement: counts the call only while below the allowance, whoever else counts at the same time.
      const row = await db.row(
        `INSERT INTO quota_usage (account_id, period, used) VALUES ($1, $2, 1)
         ON CONFLICT (account_id, period) DO UPDATE SET used = quota_usage.used + 1
         WHERE $3::bigint IS NULL OR quota_usage.used < $3::bigint
         RETURNING used`,
        [accountId, period, allowance],
      );
      if (row) return { used: num(row.used), allowed: true };
      return { used: await usage(accountId, period), allowed: false };
    },

    getUsage: usage,

    async addTopUp(input) {
      await db.pool.query('INSERT INTO top_ups (account_id, period, calls, source, created_at) VALUES ($1, $2, $3, $4, $5)', [input.accountId, input.period, input.calls, input.source, input.now]);
    },

    async getTopUps(accountId, period) {
      return num((await db.row('SELECT COALESCE(SUM(calls), 0) AS total FROM top_ups WHERE account_id = $1 AND period = $2', [accountId, period]))?.total ?? 0);
    },

    async createRedeemCode(input) {
      await db.pool.query('INSERT INTO redeem_codes (hash, calls, created_at) VALUES ($1, $2, $3)', [input.hash, input.calls, input.now]);
    },

    async redeemCode(input) {
      // One statement: the conditional UPDATE is the one-use guarantee (of two instances
      // redeeming at once, one gets the row), and the top-up is added with it.
      const row = await db.row(
        `WITH used AS (
           UPDATE redeem_codes SET redeemed_by = $1, redeemed_at = $2 WHERE hash = $3 AND redeemed_at IS NULL RETURNING calls
         ), added AS (
           INSERT INTO top_ups (account_id, period, calls, source, created_at) SELECT $1, $4, calls, 'redeem', $2 FROM used
         )
         SELECT calls FROM used`,
        [input.accountId, input.now, input.hash, input.period],
      );
      return row ? num(row.calls) : null;
    },
  };
}
