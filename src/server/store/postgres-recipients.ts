// Owns the Postgres store's SMTP recipient look-up and its cache per instance, kept while the
// instance listens to its fleet (watch()): a live mailbox found once is answered from memory,
// with its account's routing, until a trigger (migrations 3 and 4) announces a change that could
// make it wrong, whoever made it. Addresses not found are not cached (a mailbox created anywhere
// is found at once); an entry is read again when its mailbox, or a bound mailbox of its account,
// expires; while the listening connection is down the cache is empty and off.
import { ACTIVE_FAULTS, FAULT_VALUES, faultOrder } from './faults.js';
import type { PgDb } from './postgres-db.js';
import { recipientFromRow } from './rows.js';
import type { RecipientMailbox, StoreBackend } from './store.js';

/**
 * The SMTP recipient look-up (`$1` the lower-case address, `$2` now): the mailbox with its
 * account's routing, as recipientFromRow reads it.
 */
const RECIPIENT_LOOKUP = `SELECT m.*, CASE WHEN m.webhook_id IS NULL THEN json_build_array(
    (SELECT COALESCE(json_agg(json_build_array(id, catch_all) ORDER BY created_at, id), '[]') FROM webhooks WHERE account_id = m.account_id),
    b.bound)::text END AS routing_json,
    (SELECT COALESCE(json_agg(json_build_array(${FAULT_VALUES}) ORDER BY ${faultOrder('ord')}), '[]') ${ACTIVE_FAULTS})::text AS faults_json
  FROM mailboxes m LEFT JOIN LATERAL (
    SELECT json_build_array(COALESCE(json_agg(DISTINCT webhook_id), '[]'), MIN(expires_at)) AS bound FROM mailboxes
    WHERE account_id = m.account_id AND webhook_id IS NOT NULL AND expires_at > $2 AND m.webhook_id IS NULL
      AND EXISTS (SELECT 1 FROM webhooks WHERE account_id = m.account_id)
  ) b ON TRUE
  WHERE m.address = $1`;

/** Most addresses a cache keeps; beyond it, it starts over. */
const CACHED_MAX = 10_000;

export type PgRecipients = Pick<StoreBackend, 'findMailboxByAddress'> & {
  /** Caches look-ups while listening to the fleet's routing changes; returns a function that stops. */
  watch(): () => Promise<void>;
};

/** Until when a cached look-up holds by itself: its mailbox's expiry, or sooner its account's routing's next change. */
const validUntil = (m: RecipientMailbox) => Math.min(m.expiresAt, m.routing?.changesAt ?? Infinity);

export function pgRecipients(db: PgDb): PgRecipients {
  const cached = new Map<string, RecipientMailbox>();
  let armed = false;
  /** Counts forgettings: a look-up that started before one may hold what it forgot, so it is not kept. */
  let epoch = 0;
  const forget = (which?: (m: RecipientMailbox, address: string) => boolean) => {
    epoch++;
    if (!which) return cached.clear();
    for (const [address, m] of cached) if (which(m, address)) cached.delete(address);
  };
  const subscriber = {
    onNotification(kind: 'messages' | 'routing', payload: string) {
      if (kind !== 'routing') return;
      const subject = payload.slice(2);
      if (payload.startsWith('m ')) forget((_m, address) => address === subject);
      else forget((m) => m.accountId === subject);
    },
    onUp() {
      forget();
      armed = true;
    },
    onDown() {
      armed = false;
      forget();
    },
  };
  return {
    async findMailboxByAddress(address, now) {
      const key = address.toLowerCase();
      const hit = armed ? cached.get(key) : undefined;
      if (hit && now < validUntil(hit)) return hit;
      const started = epoch;
      const row = await db.row(RECIPIENT_LOOKUP, [key, now]);
      const found = row ? recipientFromRow(row) : null;
      if (found && armed && started === epoch && now < validUntil(found)) {
        if (cached.size >= CACHED_MAX) cached.clear();
        cached.set(key, found);
      }
      return found;
    },

    watch() {
      const unsubscribe = db.subscribe(subscriber);
      return async () => {
        armed = false;
        forget();
        await unsubscribe();
      };
    },
  };
}
