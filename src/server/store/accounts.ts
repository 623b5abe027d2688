// Owns the store's accounts, for both backends: accounts, their API keys and their quota of
// calls. Each count is one atomic statement, and a redeem code's use a conditional update, so
// instances counting at once never pass an allowance or use a code twice.
import { newId } from '../ids.js';
import { accountFromRow, apiKeyFromRow, num, str } from './rows.js';
import { acknowledged, tx, type Sql } from './sql.js';
import { StoreConflictError, type AccountRecord, type ApiKeyRecord, type Millis, type Scope } from './store.js';

const ADD_TOP_UP = 'INSERT INTO top_ups (account_id, period, calls, source, created_at) VALUES (?, ?, ?, ?, ?)';

/** The accounts part of the store on `sql`. */
export function accounts(sql: Sql) {
  const usage = async (accountId: string, period: string) => num((await sql.get('SELECT used FROM quota_usage WHERE account_id = ? AND period = ?', accountId, period))?.used ?? 0);
  return {
    async createAccount(input: { email: string; role: string; isAdmin: boolean; passwordHash: string | null; now: Millis }) {
      const account: AccountRecord = { id: newId('acc'), email: input.email.toLowerCase(), role: input.role, isAdmin: input.isAdmin, passwordHash: input.passwordHash, createdAt: input.now };
      try {
        await sql.run(
          'INSERT INTO accounts (id, email, role, is_admin, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)',
          account.id, account.email, account.role, account.isAdmin, account.passwordHash, account.createdAt,
        );
      } catch (error) {
        if (sql.isUniqueViolation(error)) throw new StoreConflictError('account', `an account with email ${account.email} already exists`);
        throw error;
      }
      return acknowledged(sql, account);
    },
    async getAccount(id: string) {
      const row = await sql.get('SELECT * FROM accounts WHERE id = ?', id);
      return row ? accountFromRow(row) : null;
    },
    async getAccountByEmail(email: string) {
      const row = await sql.get('SELECT * FROM accounts WHERE email = ?', email.toLowerCase());
      return row ? accountFromRow(row) : null;
    },
    async createApiKey(input: { accountId: string; name: string; prefix: string; hash: string; scopes: Scope[]; now: Millis }) {
      const key: ApiKeyRecord = { id: newId('key'), accountId: input.accountId, name: input.name, prefix: input.prefix, scopes: input.scopes, createdAt: input.now, revokedAt: null, lastUsedAt: null };
      await sql.run(
        'INSERT INTO api_keys (id, account_id, name, prefix, hash, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        key.id, key.accountId, key.name, key.prefix, input.hash, key.scopes.join(','), key.createdAt,
      );
      return acknowledged(sql, key);
    },
    /** A live (not revoked) key by the hash of its secret, with the stored hash. */
    async findApiKeyByHash(hash: string) {
      const row = await sql.get('SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL', hash);
      return row ? { ...apiKeyFromRow(row), hash: str(row.hash) } : null;
    },
    async listApiKeys(accountId: string) {
      return (await sql.all('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id', accountId)).map(apiKeyFromRow);
    },
    /** Revokes a key; false when there was no live key with that id. */
    async revokeApiKey(id: string, now: Millis) {
      return acknowledged(sql, (await sql.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', now, id)) > 0);
    },
    /** Records that the key authenticated a call at `now`. */
    async touchApiKey(id: string, now: Millis) {
      await sql.run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', now, id);
    },
    /** Sets the account's password; its unused sign-in links die with the old one. */
    async setPassword(accountId: string, passwordHash: string) {
      await sql.transaction(function* () {
        yield* tx.run('UPDATE accounts SET password_hash = ? WHERE id = ?', passwordHash, accountId);
        yield* tx.run('DELETE FROM sign_in_tokens WHERE account_id = ?', accountId);
      });
      await sql.durable();
    },
    /** Changes an account's role; false when there is no such account. */
    async setAccountRole(accountId: string, role: string) {
      return acknowledged(sql, (await sql.run('UPDATE accounts SET role = ? WHERE id = ?', role, accountId)) > 0);
    },
    /** Every account, oldest first, with its number of live mailboxes (the CLI's listing). */
    async listAccounts(now: Millis) {
      const rows = await sql.all(
        'SELECT a.*, (SELECT COUNT(*) FROM mailboxes m WHERE m.account_id = a.id AND m.expires_at > ?) AS live_mailboxes FROM accounts a ORDER BY a.created_at, a.email',
        now,
      );
      return rows.map((row) => ({ ...accountFromRow(row), liveMailboxes: num(row.live_mailboxes) }));
    },
    /** Counts one call in `period` if the account is below `allowance` (null = unlimited): the count after it, and whether it was allowed. */
    async consumeCall(accountId: string, period: string, allowance: number | null) {
      if (allowance !== null && allowance <= 0) return { used: await usage(accountId, period), allowed: false };
      // One statement: counts the call only while below the allowance, whoever else counts at the same time.
      const row = await sql.get(
        `INSERT INTO quota_usage (account_id, period, used) VALUES (?, ?, 1)
         ON CONFLICT (account_id, period) DO UPDATE SET used = quota_usage.used + 1
         WHERE CAST(? AS BIGINT) IS NULL OR quota_usage.used < CAST(? AS BIGINT)
         RETURNING used`,
        accountId, period, allowance, allowance,
      );
      if (row) return { used: num(row.used), allowed: true };
      return { used: await usage(accountId, period), allowed: false };
    },
    getUsage: usage,

    async addTopUp(input: { accountId: string; period: string; calls: number; source: string; now: Millis }) {
      await sql.run(ADD_TOP_UP, input.accountId, input.period, input.calls, input.source, input.now);
      await sql.durable();
    },
    async getTopUps(accountId: string, period: string) {
      return num((await sql.get('SELECT COALESCE(SUM(calls), 0) AS total FROM top_ups WHERE account_id = ? AND period = ?', accountId, period))?.total ?? 0);
    },
    async createRedeemCode(input: { hash: string; calls: number; now: Millis }) {
      await sql.run('INSERT INTO redeem_codes (hash, calls, created_at) VALUES (?, ?, ?)', input.hash, input.calls, input.now);
      await sql.durable();
    },
    /** Marks a code used by the account and adds its calls as a top-up; null when unknown or used. */
    async redeemCode(input: { hash: string; accountId: string; period: string; now: Millis }) {
      // The conditional update is the one-use guarantee: of two instances redeeming at once, one gets the row.
      return acknowledged(sql, await sql.transaction(function* () {
        const used = yield* tx.get('UPDATE redeem_codes SET redeemed_by = ?, redeemed_at = ? WHERE hash = ? AND redeemed_at IS NULL RETURNING calls', input.accountId, input.now, input.hash);
        if (!used) return null;
        yield* tx.run(ADD_TOP_UP, input.accountId, input.period, num(used.calls), 'redeem', input.now);
        return num(used.calls);
      }));
    },
  };
}

export type Accounts = ReturnType<typeof accounts>;
