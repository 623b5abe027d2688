// Owns the accounts of the SQLite store: accounts, their API keys and their quota of calls.
import { newId } from '../ids.js';
import { accountFromRow, apiKeyFromRow, num, str } from './rows.js';
import { isUniqueViolation, type SqliteDb } from './sqlite-db.js';
import { StoreConflictError, type AccountRecord, type ApiKeyRecord, type Store } from './store.js';

/** The methods of the Store this module implements for SQLite (its accounts). */
export type SqliteAccounts = Pick<Store,
  | 'createAccount' | 'getAccount' | 'getAccountByEmail' | 'createApiKey' | 'findApiKeyByHash' | 'listApiKeys' | 'revokeApiKey' | 'touchApiKey'
  | 'setPassword' | 'setAccountRole' | 'listAccounts'
  | 'consumeCall' | 'getUsage' | 'addTopUp' | 'getTopUps' | 'createRedeemCode' | 'redeemCode'>;

/** The accounts, keys and quota part of the SQLite store on `db`. */
export function sqliteAccounts(db: SqliteDb): SqliteAccounts {
  const usage = (accountId: string, period: string) => num(db.get('SELECT used FROM quota_usage WHERE account_id = ? AND period = ?', accountId, period)?.used ?? 0);
  return {
    async createAccount(input) {
      const account: AccountRecord = { id: newId('acc'), email: input.email.toLowerCase(), role: input.role, isAdmin: input.isAdmin, passwordHash: input.passwordHash, createdAt: input.now };
      try {
        db.run(
          'INSERT INTO accounts (id, email, role, is_admin, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)',
          account.id, account.email, account.role, account.isAdmin ? 1 : 0, account.passwordHash, account.createdAt,
        );
      } catch (error) {
        if (isUniqueViolation(error)) throw new StoreConflictError('account', `an account with email ${account.email} already exists`);
        throw error;
      }
      return db.acknowledged(account);
    },

    async getAccount(id) {
      const row = db.get('SELECT * FROM accounts WHERE id = ?', id);
      return row ? accountFromRow(row) : null;
    },

    async getAccountByEmail(email) {
      const row = db.get('SELECT * FROM accounts WHERE email = ?', email.toLowerCase());
      return row ? accountFromRow(row) : null;
    },

    async createApiKey(input) {
      const id = newId('key');
      db.run(
        'INSERT INTO api_keys (id, account_id, name, prefix, hash, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        id, input.accountId, input.name, input.prefix, input.hash, input.scopes.join(','), input.now,
      );
      return db.acknowledged<ApiKeyRecord>({ id, accountId: input.accountId, name: input.name, prefix: input.prefix, scopes: input.scopes, createdAt: input.now, revokedAt: null, lastUsedAt: null });
    },

    async findApiKeyByHash(hash) {
      const row = db.get('SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL', hash);
      return row ? { ...apiKeyFromRow(row), hash: str(row.hash) } : null;
    },

    async listApiKeys(accountId) {
      return db.all('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at', accountId).map(apiKeyFromRow);
    },

    async revokeApiKey(id, now) {
      return db.acknowledged(db.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', now, id).changes > 0);
    },

    async touchApiKey(id, now) {
      db.run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', now, id);
    },

    async setPassword(accountId, passwordHash) {
      db.transaction(() => {
        db.run('UPDATE accounts SET password_hash = ? WHERE id = ?', passwordHash, accountId);
        db.run('DELETE FROM sign_in_tokens WHERE account_id = ?', accountId);
      });
      await db.durable();
    },

    async setAccountRole(accountId, role) {
      return db.acknowledged(db.run('UPDATE accounts SET role = ? WHERE id = ?', role, accountId).changes > 0);
    },

    async listAccounts(now) {
      const rows = db.all(
        'SELECT a.*, (SELECT COUNT(*) FROM mailboxes m WHERE m.account_id = a.id AND m.expires_at > ?) AS live_mailboxes FROM accounts a ORDER BY a.created_at, a.email',
        now,
      );
      return rows.map((row) => ({ ...accountFromRow(row), liveMailboxes: num(row.live_mailboxes) }));
    },

    // ---- quota

    async consumeCall(accountId, period, allowance) {
      return db.transaction(() => {
        const used = usage(accountId, period);
        if (allowance !== null && used >= allowance) return { used, allowed: false };
        db.run(
          'INSERT INTO quota_usage (account_id, period, used) VALUES (?, ?, 1) ON CONFLICT (account_id, period) DO UPDATE SET used = used + 1',
          accountId, period,
        );
        return { used: used + 1, allowed: true };
      });
    },

    async getUsage(accountId, period) {
      return usage(accountId, period);
    },

    async addTopUp(input) {
      db.run('INSERT INTO top_ups (account_id, period, calls, source, created_at) VALUES (?, ?, ?, ?, ?)', input.accountId, input.period, input.calls, input.source, input.now);
      await db.durable();
    },

    async getTopUps(accountId, period) {
      return num(db.get('SELECT COALESCE(SUM(calls), 0) AS total FROM top_ups WHERE account_id = ? AND period = ?', accountId, period)?.total ?? 0);
    },

    async createRedeemCode(input) {
      db.run('INSERT INTO redeem_codes (hash, calls, created_at) VALUES (?, ?, ?)', input.hash, input.calls, input.now);
      await db.durable();
    },

    async redeemCode(input) {
      return db.acknowledged(db.transaction(() => {
        const row = db.get('SELECT calls FROM redeem_codes WHERE hash = ? AND redeemed_at IS NULL', input.hash);
        if (!row) return null;
        const calls = num(row.calls);
        db.run('UPDATE redeem_codes SET redeemed_by = ?, redeemed_at = ? WHERE hash = ?', input.accountId, input.now, input.hash);
        db.run('INSERT INTO top_ups (account_id, period, calls, source, created_at) VALUES (?, ?, ?, ?, ?)', input.accountId, input.period, calls, 'redeem', input.now);
        return calls;
      }));
    },
  };
}
