// Owns the store's settings and web sessions, for both backends: settings, signed-in sessions,
// one-time sign-in links and the failed sign-in counts.
import { sessionFromRow, signInFailuresFromRow, str } from './rows.js';
import { acknowledged, type Sql } from './sql.js';
import type { Millis, SessionRecord, SignInFailures } from './store.js';

/** The settings and web sessions part of the store on `sql`. */
export function sessions(sql: Sql) {
  return {
    /** The value stored under `name`, or `value` stored now when there was none (atomic: concurrent callers agree). */
    async ensureSetting(name: string, value: string) {
      await sql.run('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', name, value);
      return acknowledged(sql, str((await sql.get('SELECT value FROM settings WHERE name = ?', name))!.value));
    },
    async saveSession(session: SessionRecord) {
      await sql.run(
        `INSERT INTO web_sessions (id_hash, account_id, data, expires_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (id_hash) DO UPDATE SET account_id = excluded.account_id, data = excluded.data, expires_at = excluded.expires_at`,
        session.idHash, session.accountId, session.data, session.expiresAt,
      );
    },
    /** A session that has not expired at `now`. */
    async getSession(idHash: string, now: Millis): Promise<SessionRecord | null> {
      const row = await sql.get('SELECT * FROM web_sessions WHERE id_hash = ? AND expires_at > ?', idHash, now);
      return row ? sessionFromRow(row) : null;
    },
    async deleteSession(idHash: string) {
      await sql.run('DELETE FROM web_sessions WHERE id_hash = ?', idHash);
    },
    /** Ends every session of the account but `exceptIdHash` (a password change). */
    async deleteAccountSessions(accountId: string, exceptIdHash?: string) {
      await sql.run('DELETE FROM web_sessions WHERE account_id = ? AND id_hash <> ?', accountId, exceptIdHash ?? '');
    },
    /** Stores a one-time sign-in token (by its hash) for the account. */
    async createSignInToken(input: { hash: string; accountId: string; expiresAt: Millis }) {
      await sql.run('INSERT INTO sign_in_tokens (hash, account_id, expires_at) VALUES (?, ?, ?)', input.hash, input.accountId, input.expiresAt);
    },
    /** Uses a sign-in token: its account id when it was unused and not expired at `now`, else null. A token works once. */
    async consumeSignInToken(hash: string, now: Millis) {
      const row = await sql.get('UPDATE sign_in_tokens SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING account_id', now, hash, now);
      return row ? str(row.account_id) : null;
    },
    /**
     * Counts one failed sign-in under `key` (a hash naming who failed from where), in the window
     * open at `now` or a new one of `windowMs`; atomic across instances. The count with this one.
     */
    async countSignInFailure(key: string, now: Millis, windowMs: Millis): Promise<SignInFailures> {
      const row = await sql.get(
        `INSERT INTO sign_in_failures (key, count, window_ends_at) VALUES (?, 1, ?)
         ON CONFLICT (key) DO UPDATE SET count = CASE WHEN sign_in_failures.window_ends_at > ? THEN sign_in_failures.count + 1 ELSE 1 END,
           window_ends_at = CASE WHEN sign_in_failures.window_ends_at > ? THEN sign_in_failures.window_ends_at ELSE excluded.window_ends_at END
         RETURNING count, window_ends_at`,
        key, now + windowMs, now, now,
      );
      return acknowledged(sql, signInFailuresFromRow(row!));
    },
    /** The failures counted under `key` in a window still open at `now`, or null. */
    async getSignInFailures(key: string, now: Millis): Promise<SignInFailures | null> {
      const row = await sql.get('SELECT count, window_ends_at FROM sign_in_failures WHERE key = ? AND window_ends_at > ?', key, now);
      return row ? signInFailuresFromRow(row) : null;
    },
    /** Forgets the failures counted under `key` (a sign-in that succeeded). */
    async clearSignInFailures(key: string) {
      await sql.run('DELETE FROM sign_in_failures WHERE key = ?', key);
    },
  };
}

export type Sessions = ReturnType<typeof sessions>;
