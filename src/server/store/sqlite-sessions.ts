// Owns the service settings and web sessions of the SQLite store: settings, signed-in
// sessions, one-time sign-in tokens and failed sign-in counts.
import { sessionFromRow, signInFailuresFromRow, str } from './rows.js';
import type { SqliteDb } from './sqlite-db.js';
import type { Store } from './store.js';

/** The methods of the Store this module implements for SQLite (its sessions). */
export type SqliteSessions = Pick<Store,
  'ensureSetting' | 'saveSession' | 'getSession' | 'deleteSession' | 'deleteAccountSessions' | 'createSignInToken' | 'consumeSignInToken'
  | 'countSignInFailure' | 'getSignInFailures' | 'clearSignInFailures'>;

/** The settings and web sessions part of the SQLite store on `db`. */
export function sqliteSessions(db: SqliteDb): SqliteSessions {
  return {
    async ensureSetting(name, value) {
      db.run('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', name, value);
      return db.acknowledged(str(db.get('SELECT value FROM settings WHERE name = ?', name)!.value));
    },

    async saveSession(session) {
      db.run(
        `INSERT INTO web_sessions (id_hash, account_id, data, expires_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (id_hash) DO UPDATE SET account_id = excluded.account_id, data = excluded.data, expires_at = excluded.expires_at`,
        session.idHash, session.accountId, session.data, session.expiresAt,
      );
    },

    async getSession(idHash, now) {
      const row = db.get('SELECT * FROM web_sessions WHERE id_hash = ? AND expires_at > ?', idHash, now);
      return row ? sessionFromRow(row) : null;
    },

    async deleteSession(idHash) {
      db.run('DELETE FROM web_sessions WHERE id_hash = ?', idHash);
    },

    async deleteAccountSessions(accountId, exceptIdHash) {
      db.run('DELETE FROM web_sessions WHERE account_id = ? AND id_hash <> ?', accountId, exceptIdHash ?? '');
    },

    async createSignInToken(input) {
      db.run('INSERT INTO sign_in_tokens (hash, account_id, expires_at) VALUES (?, ?, ?)', input.hash, input.accountId, input.expiresAt);
    },

    async consumeSignInToken(hash, now) {
      const row = db.get('UPDATE sign_in_tokens SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING account_id', now, hash, now);
      return row ? str(row.account_id) : null;
    },

    async countSignInFailure(key, now, windowMs) {
      const row = db.get(
        `INSERT INTO sign_in_failures (key, count, window_ends_at) VALUES (?, 1, ?)
         ON CONFLICT (key) DO UPDATE SET count = CASE WHEN window_ends_at > ? THEN count + 1 ELSE 1 END,
           window_ends_at = CASE WHEN window_ends_at > ? THEN window_ends_at ELSE excluded.window_ends_at END
         RETURNING count, window_ends_at`,
        key, now + windowMs, now, now,
      )!;
      return db.acknowledged(signInFailuresFromRow(row));
    },

    async getSignInFailures(key, now) {
      const row = db.get('SELECT count, window_ends_at FROM sign_in_failures WHERE key = ? AND window_ends_at > ?', key, now);
      return row ? signInFailuresFromRow(row) : null;
    },

    async clearSignInFailures(key) {
      db.run('DELETE FROM sign_in_failures WHERE key = ?', key);
    },
  };
}
