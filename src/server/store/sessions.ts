// Owns the store's settings and web sessions, for both backends: settings, signed-in sessions,
// one-time sign-in links and the failed sign-in counts.
import { sessionFromRow, signInFailuresFromRow, str } from './rows.js';
import { acknowledged, type Sql } from './sql.js';
import type { Store } from './store.js';

/** The settings and web sessions part of the store on `sql`. */
export function sessions(sql: Sql) {
  return {
    async ensureSetting(name, value) {
      await sql.run('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', name, value);
      return acknowledged(sql, str((await sql.get('SELECT value FROM settings WHERE name = ?', name))!.value));
    },

    async saveSession(session) {
      await sql.run(
        `INSERT INTO web_sessions (id_hash, account_id, data, expires_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (id_hash) DO UPDATE SET account_id = excluded.account_id, data = excluded.data, expires_at = excluded.expires_at`,
        session.idHash, session.accountId, session.data, session.expiresAt,
      );
    },

    async getSession(idHash, now) {
      const row = await sql.get('SELECT * FROM web_sessions WHERE id_hash = ? AND expires_at > ?', idHash, now);
      return row ? sessionFromRow(row) : null;
    },

    async deleteSession(idHash) {
      await sql.run('DELETE FROM web_sessions WHERE id_hash = ?', idHash);
    },

    async deleteAccountSessions(accountId, exceptIdHash) {
      await sql.run('DELETE FROM web_sessions WHERE account_id = ? AND id_hash <> ?', accountId, exceptIdHash ?? '');
    },

    async createSignInToken(input) {
      await sql.run('INSERT INTO sign_in_tokens (hash, account_id, expires_at) VALUES (?, ?, ?)', input.hash, input.accountId, input.expiresAt);
    },

    async consumeSignInToken(hash, now) {
      const row = await sql.get('UPDATE sign_in_tokens SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING account_id', now, hash, now);
      return row ? str(row.account_id) : null;
    },

    async countSignInFailure(key, now, windowMs) {
      const row = await sql.get(
        `INSERT INTO sign_in_failures (key, count, window_ends_at) VALUES (?, 1, ?)
         ON CONFLICT (key) DO UPDATE SET count = CASE WHEN sign_in_failures.window_ends_at > ? THEN sign_in_failures.count + 1 ELSE 1 END,
           window_ends_at = CASE WHEN sign_in_failures.window_ends_at > ? THEN sign_in_failures.window_ends_at ELSE excluded.window_ends_at END
         RETURNING count, window_ends_at`,
        key, now + windowMs, now, now,
      );
      return acknowledged(sql, signInFailuresFromRow(row!));
    },

    async getSignInFailures(key, now) {
      const row = await sql.get('SELECT count, window_ends_at FROM sign_in_failures WHERE key = ? AND window_ends_at > ?', key, now);
      return row ? signInFailuresFromRow(row) : null;
    },

    async clearSignInFailures(key) {
      await sql.run('DELETE FROM sign_in_failures WHERE key = ?', key);
    },
  } satisfies Partial<Store>;
}
