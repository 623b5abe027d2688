// Owns keeping web sessions in the service's store (so they survive a restart and are shared
// by a fleet): the adapter @fastify/session calls. Only signed-in sessions are kept, under
// the SHA-256 of their id, never the id itself.
import type { SessionStore } from '@fastify/session';
import type { FastifyBaseLogger, Session } from 'fastify';
import { hashSecret } from '../auth/secrets.js';
import type { Clock } from '../context.js';
import type { Store } from '../store/store.js';

/** How long a signed-in session lasts without a new sign-in. */
export const SESSION_TTL_MS = 7 * 86_400_000;

export class StoreSessionStore implements SessionStore {
  constructor(private readonly store: Store, private readonly clock: Clock, private readonly log: FastifyBaseLogger) {}

  set(sessionId: string, session: Session, callback: (err?: unknown) => void): void {
    const accountId = session.accountId;
    if (!accountId) return callback();
    const expires = session.cookie?.expires;
    const expiresAt = expires ? new Date(expires).getTime() : this.clock.now() + SESSION_TTL_MS;
    this.#settle(() => this.store.saveSession({ idHash: hashSecret(sessionId), accountId, data: JSON.stringify(session), expiresAt }), () => callback(), callback);
  }

  get(sessionId: string, callback: (err: unknown, result?: Session | null) => void): void {
    this.#settle(
      () => this.store.getSession(hashSecret(sessionId), this.clock.now()),
      (record) => callback(null, record ? (JSON.parse(record.data) as Session) : null),
      (error) => callback(error),
    );
  }

  destroy(sessionId: string, callback: (err?: unknown) => void): void {
    this.#settle(() => this.store.deleteSession(hashSecret(sessionId)), () => callback(), callback);
  }

  /**
   * Runs the store call and hands its outcome to @fastify/session's callback. A store call that
   * throws or rejects reaches the callback as an error (the request fails with it). What throws
   * from inside the callback (the rest of the request, run from there) is logged: it must not
   * become an unhandled rejection, which would end the process.
   */
  #settle<T>(work: () => Promise<T>, done: (value: T) => void, failed: (error: unknown) => void): void {
    let running: Promise<T>;
    try {
      running = work();
    } catch (error) {
      running = Promise.reject(error);
    }
    running.then(done, failed).catch((error: unknown) => this.log.error({ err: error }, 'a request failed after its session was read or saved'));
  }
}
