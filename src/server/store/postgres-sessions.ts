// Owns the service settings and web sessions of the Postgres store: settings, signed-in
// sessions, one-time sign-in tokens, failed sign-in counts, and the start-up lock that instances starting together share.
import type { PgDb } from './postgres-db.js';
import { sessionFromRow, signInFailuresFromRow, str } from './rows.js';
import type { Store } from './store.js';

export type PgSessions = Pick<Store,
  'ensureSetting' | 'saveSession' | 'getSession' | 'deleteSession' | 'deleteAccountSessions' | 'createSignInToken' | 'consumeSignInToken'
  | 'countSignInFailure' | 'getSignInFailures' | 'clearSignInFailures' | 'withStartupLock'>;

export function pgSessions(db: PgDb): PgSessions {
  return {
    async ensureSetting(name, value) {
      await db.pool.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, value]);
      return str((await db.row('SELECT value FROM settings WHERE name = $1', [name]))!.value);
    },

    async saveSession(session) {
      await db.pool.query(
        `INSERT INTO web_sessions (id_hash, account_id, data, expires_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id_hash) DO UPDATE SET account_id = EXCLUDED.account_id, data = EXCLUDED.data, expires_at = EXCLUDED.expires_at`,
        [session.idHash, session.accountId, session.data, session.expiresAt],
      );
    },

    async getSession(idHash, now) {
      const row = await db.row('SELECT * FROM web_sessions WHERE id_hash = $1 AND expires_at > $2', [idHash, now]);
      return row ? sessionFromRow(row) : null;
    },

    async deleteSession(idHash) {
      await db.pool.query('DELETE FROM web_sessions WHERE id_hash = $1', [idHash]);
    },

    async deleteAccountSessions(accountId, exceptIdHash) {
      await db.pool.query('DELETE FROM web_sessions WHERE account_id = $1 AND id_hash <> $2', [accountId, exceptIdHash ?? '']);
    },

    async createSignInToken(input) {
      await db.pool.query('INSERT INTO sign_in_tokens (hash, account_id, expires_at) VALUES ($1, $2, $3)', [input.hash, input.accountId, input.expiresAt]);
    },

    async consumeSignInToken(hash, now) {
      const row = await db.row('UPDATE sign_in_tokens SET used_at = $1 WHERE hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING account_id', [now, hash]);
      return row ? str(row.account_id) : null;
    },

    async countSignInFailure(key, now, windowMs) {
      const row = await db.row(
        `INSERT INTO sign_in_failures AS f (key, count, window_ends_at) VALUES ($1, 1, $2)
         ON CONFLICT (key) DO UPDATE SET count = CASE WHEN f.window_ends_at > $3 THEN f.count + 1 ELSE 1 END,
           window_ends_at = CASE WHEN f.window_ends_at > $3 THEN f.window_ends_at ELSE EXCLUDED.window_ends_at END
         RETURNING count, window_ends_at`,
        [key, now + windowMs, now],
      );
      return signInFailuresFromRow(row!);
    },

    async getSignInFailures(key, now) {
      const row = await db.row('SELECT count, window_ends_at FROM sign_in_failures WHERE key = $1 AND window_ends_at > $2', [key, now]);
      return row ? signInFailuresFromRow(row) : null;
    },

    async clearSignInFailures(key) {
      await db.pool.query('DELETE FROM sign_in_failures WHERE key = $1', [key]);
    },

    withStartupLock(fn) {
      return db.locked('startup', fn);
    },
  };
}
