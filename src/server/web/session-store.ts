// Owns keeping web sessions in the service's store (so they survive a restart and are shared
// by a fleet): the adapter @fastify/session calls. Only signed-in sessions are kept, under
// the SHA-256 of their id, never the id itself.
import type { SessionStore } from '@fastify/session';
import type { Session } from 'fastify';
import { hashSecret } from '../auth/secrets.js';
import type { Clock } from '../context.js';
import type { Store } from '../store/store.js';

/** How long a signed-in session lasts without a new sign-in. */
export const SESSION_TTL_MS = 7 * 86_400_000;

export class StoreSessionStore implements SessionStore {
  constructor(private readonly store: Store, private readonly clock: Clock) {}

  set(sessionId: string, session: Session, callback: (err?: unknown) => void): void {
    const accountId = session.accountId;
    if (!accountId) return callback();
    const expires = session.cookie?.expires;
    const expiresAt = expires ? new Date(expires).getTime() : this.clock.now() + SESSION_TTL_MS;
    this.store.saveSession({ idHash: hashSecret(sessionId), accountId, data: JSON.stringify(session), expiresAt }).then(() => callback(), callback);
  }

  get(sessionId: string, callback: (err: unknown, result?: Session | null) => void): void {
    this.store.getSession(hashSecret(sessionId), this.clock.now()).then(
      (record) => callback(null, record ? (JSON.parse(record.data) as Session) : null),
      (error: unknown) => callback(error),
    );
  }

  destroy(sessionId: string, callback: (err?: unknown) => void): void {
    this.store.deleteSession(hashSecret(sessionId)).then(() => callback(), callback);
  }
}
