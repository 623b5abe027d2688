// Owns the Postgres backend of the Store, for a fleet of instances on one database:
// migrations and first-start work under advisory locks, poll positions that commit in order,
// commits announced to the other instances with LISTEN/NOTIFY, webhook deliveries leased
// with FOR UPDATE SKIP LOCKED, and quota, redeem codes and mailbox limits as single atomic
// statements or row locks — PostgreSQL is the coordinator, nothing is home-made.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { newId } from '../ids.js';
import { withBody } from '../mime/parse.js';
import { COUNT_AFTER, MailboxCounts } from './mailbox-counts.js';
import { POSTGRES_MIGRATIONS } from './migrations/postgres.js';
import {
  accountFromRow, apiKeyFromRow, attemptFromRow, bytes, deliveryFromRow, mailboxFromRow, messageFromRow, RAW_COLUMNS, num, optNum, RECIPIENT_LOOKUP, recipientFromRow, refusalFromRow,
  sessionFromRow, str, SUMMARY_COLUMNS, webhookFromRow, type Row,
} from './rows.js';
import {
  MailboxLimitError,
  StoreConflictError,
  type AccountRecord,
  type ApiKeyRecord,
  type AttemptRecord,
  type CommitWatcher,
  type CopyPlan,
  type DeliveryRecord,
  type InsertedCopy,
  type OnCommitted,
  type MailboxRecord,
  type Millis,
  type NewMessage,
  type RefusalRecord,
  type Scope,
  type SessionRecord,
  type Store,
  type StoredMessage,
  SWEEP_MAILBOXES_MAX,
  type WebhookRecord,
} from './store.js';

/** Most refusals kept (the sweeper trims the oldest beyond it). */
const REFUSALS_KEPT = 10_000;
/** The channel commits are announced on. */
const CHANNEL = 'mailwright_messages';
/** Reconnect delays of the listening connection, ms. */
const LISTEN_BACKOFF = [100, 250, 500, 1_000, 2_000, 5_000];

/**
 * Advisory lock keys, per schema (two fleets in one database do not share them):
 * `hashtext(current_schema() || ':' || name)`.
 */
const lockKey = (name: string) => `hashtext(current_schema() || ':${name}')`;

type Queryable = pg.Pool | pg.PoolClient;

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505';
}

/** The connection string with its password hidden, for messages. */
function masked(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/** Opens a Postgres store at `url` and applies its migrations (once per database, whoever starts first). */
export async function openPostgresStore(url: string): Promise<Store> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const store = new PostgresStore(pool, url);
  try {
    await store.migrate();
  } catch (error) {
    await pool.end().catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    throw Object.assign(new Error(`--database-url ${masked(url)}: cannot open the Postgres store (${reason}); check that the server runs and the URL names a database you may create tables in`, { cause: error }), {
      code: 'MW_ERR_CONFIG',
    });
  }
  return store;
}

class PostgresStore implements Store {
  readonly capabilities = { sharedByInstances: true } as const;
  /** Tells this instance's own commit announcements from the others'. */
  readonly #instance = randomUUID();
  readonly #counts = new MailboxCounts();
  readonly #stopWatching = new Set<() => Promise<void>>();
  #closed = false;

  constructor(private readonly pool: pg.Pool, private readonly url: string) {}

  async #rows(sql: string, params: unknown[] = [], on: Queryable = this.pool): Promise<Row[]> {
    return (await on.query(sql, params)).rows as Row[];
  }
  async #row(sql: string, params: unknown[] = [], on: Queryable = this.pool): Promise<Row | undefined> {
    return (await this.#rows(sql, params, on))[0];
  }
  async #count(sql: string, params: unknown[] = [], on: Queryable = this.pool): Promise<number> {
    return (await on.query(sql, params)).rowCount ?? 0;
  }

  /** Runs `fn` in one transaction on one connection. */
  async #tx<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /** Runs `fn` holding the session-level advisory lock `name` on a connection of its own. */
  async #locked<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query(`SELECT pg_advisory_lock(${lockKey(name)})`);
      try {
        return await fn();
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${lockKey(name)})`);
      }
    } finally {
      client.release();
    }
  }

  /** Applies the numbered migrations not applied yet, under a lock: instances starting together migrate once. */
  async migrate(): Promise<void> {
    await this.#locked('migrate', async () => {
      await this.pool.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
      const applied = new Set((await this.#rows('SELECT version FROM schema_migrations')).map((r) => num(r.version)));
      for (const migration of POSTGRES_MIGRATIONS) {
        if (applied.has(migration.version)) continue;
        await this.#tx(async (client) => {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [migration.version, Date.now()]);
        });
      }
    });
  }

  withStartupLock<T>(fn: () => Promise<T>): Promise<T> {
    return this.#locked('startup', fn);
  }

  // ---- accounts and keys

  async createAccount(input: { email: string; role: string; isAdmin: boolean; passwordHash: string | null; now: Millis }): Promise<AccountRecord> {
    const account: AccountRecord = { id: newId('acc'), email: input.email.toLowerCase(), role: input.role, isAdmin: input.isAdmin, passwordHash: input.passwordHash, createdAt: input.now };
    try {
      await this.pool.query(
        'INSERT INTO accounts (id, email, role, is_admin, password_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [account.id, account.email, account.role, account.isAdmin, account.passwordHash, account.createdAt],
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw new StoreConflictError('account', `an account with email ${account.email} already exists`);
      throw error;
    }
    return account;
  }

  async getAccount(id: string) {
    const row = await this.#row('SELECT * FROM accounts WHERE id = $1', [id]);
    return row ? accountFromRow(row) : null;
  }

  async getAccountByEmail(email: string) {
    const row = await this.#row('SELECT * FROM accounts WHERE email = $1', [email.toLowerCase()]);
    return row ? accountFromRow(row) : null;
  }

  async createApiKey(input: { accountId: string; name: string; prefix: string; hash: string; scopes: Scope[]; now: Millis }): Promise<ApiKeyRecord> {
    const id = newId('key');
    await this.pool.query(
      'INSERT INTO api_keys (id, account_id, name, prefix, hash, scopes, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [id, input.accountId, input.name, input.prefix, input.hash, input.scopes.join(','), input.now],
    );
    return { id, accountId: input.accountId, name: input.name, prefix: input.prefix, scopes: input.scopes, createdAt: input.now, revokedAt: null, lastUsedAt: null };
  }

  async findApiKeyByHash(hash: string) {
    const row = await this.#row('SELECT * FROM api_keys WHERE hash = $1 AND revoked_at IS NULL', [hash]);
    return row ? { ...apiKeyFromRow(row), hash: str(row.hash) } : null;
  }

  async listApiKeys(accountId: string) {
    return (await this.#rows('SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at, id', [accountId])).map(apiKeyFromRow);
  }

  async revokeApiKey(id: string, now: Millis) {
    return (await this.#count('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now, id])) > 0;
  }

  async touchApiKey(id: string, now: Millis) {
    await this.pool.query('UPDATE api_keys SET last_used_at = $1 WHERE id = $2', [now, id]);
  }

  async setPassword(accountId: string, passwordHash: string) {
    await this.pool.query('UPDATE accounts SET password_hash = $1 WHERE id = $2', [passwordHash, accountId]);
  }

  async setAccountRole(accountId: string, role: string) {
    return (await this.#count('UPDATE accounts SET role = $1 WHERE id = $2', [role, accountId])) > 0;
  }

  // ---- service settings and web sessions

  async ensureSetting(name: string, value: string) {
    await this.pool.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, value]);
    return str((await this.#row('SELECT value FROM settings WHERE name = $1', [name]))!.value);
  }

  async saveSession(session: SessionRecord) {
    await this.pool.query(
      `INSERT INTO web_sessions (id_hash, account_id, data, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (id_hash) DO UPDATE SET account_id = EXCLUDED.account_id, data = EXCLUDED.data, expires_at = EXCLUDED.expires_at`,
      [session.idHash, session.accountId, session.data, session.expiresAt],
    );
  }

  async getSession(idHash: string, now: Millis) {
    const row = await this.#row('SELECT * FROM web_sessions WHERE id_hash = $1 AND expires_at > $2', [idHash, now]);
    return row ? sessionFromRow(row) : null;
  }

  async deleteSession(idHash: string) {
    await this.pool.query('DELETE FROM web_sessions WHERE id_hash = $1', [idHash]);
  }

  async deleteAccountSessions(accountId: string, exceptIdHash?: string) {
    await this.pool.query('DELETE FROM web_sessions WHERE account_id = $1 AND id_hash <> $2', [accountId, exceptIdHash ?? '']);
  }

  async createSignInToken(input: { hash: string; accountId: string; expiresAt: Millis }) {
    await this.pool.query('INSERT INTO sign_in_tokens (hash, account_id, expires_at) VALUES ($1, $2, $3)', [input.hash, input.accountId, input.expiresAt]);
  }

  async consumeSignInToken(hash: string, now: Millis) {
    const row = await this.#row('UPDATE sign_in_tokens SET used_at = $1 WHERE hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING account_id', [now, hash]);
    return row ? str(row.account_id) : null;
  }

  // ---- quota

  async consumeCall(accountId: string, period: string, allowance: number | null) {
    if (allowance !== null && allowance <= 0) return { used: await this.getUsage(accountId, period), allowed: false };
    // One statement: counts the call only while below the allowance, whoever else counts at the same time.
    const row = await this.#row(
      `INSERT INTO quota_usage (account_id, period, used) VALUES ($1, $2, 1)
       ON CONFLICT (account_id, period) DO UPDATE SET used = quota_usage.used + 1
       WHERE $3::bigint IS NULL OR quota_usage.used < $3::bigint
       RETURNING used`,
      [accountId, period, allowance],
    );
    if (row) return { used: num(row.used), allowed: true };
    return { used: await this.getUsage(accountId, period), allowed: false };
  }

  async getUsage(accountId: string, period: string) {
    return num((await this.#row('SELECT used FROM quota_usage WHERE account_id = $1 AND period = $2', [accountId, period]))?.used ?? 0);
  }

  async addTopUp(input: { accountId: string; period: string; calls: number; source: string; now: Millis }) {
    await this.pool.query('INSERT INTO top_ups (account_id, period, calls, source, created_at) VALUES ($1, $2, $3, $4, $5)', [input.accountId, input.period, input.calls, input.source, input.now]);
  }

  async getTopUps(accountId: string, period: string) {
    return num((await this.#row('SELECT COALESCE(SUM(calls), 0) AS total FROM top_ups WHERE account_id = $1 AND period = $2', [accountId, period]))?.total ?? 0);
  }

  async createRedeemCode(input: { hash: string; calls: number; now: Millis }) {
    await this.pool.query('INSERT INTO redeem_codes (hash, calls, created_at) VALUES ($1, $2, $3)', [input.hash, input.calls, input.now]);
  }

  async redeemCode(input: { hash: string; accountId: string; period: string; now: Millis }) {
    return this.#tx(async (client) => {
      // The conditional UPDATE is the one-use guarantee: of two instances redeeming at once, one gets the row.
      const row = await this.#row(
        'UPDATE redeem_codes SET redeemed_by = $1, redeemed_at = $2 WHERE hash = $3 AND redeemed_at IS NULL RETURNING calls',
        [input.accountId, input.now, input.hash], client,
      );
      if (!row) return null;
      const calls = num(row.calls);
      await client.query('INSERT INTO top_ups (account_id, period, calls, source, created_at) VALUES ($1, $2, $3, $4, $5)', [input.accountId, input.period, calls, 'redeem', input.now]);
      return calls;
    });
  }

  // ---- mailboxes

  async createMailbox(input: Omit<MailboxRecord, 'id'> & { id?: string }, now: Millis, maxLive?: number | null): Promise<MailboxRecord> {
    const mailbox: MailboxRecord = { ...input, id: input.id ?? newId('mbx'), address: input.address.toLowerCase() };
    try {
      return await this.#tx(async (client) => {
        if (maxLive !== undefined && maxLive !== null) {
          // The account row lock serialises this account's creations across instances.
          await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [mailbox.accountId]);
          const live = num((await this.#row('SELECT COUNT(*) AS n FROM mailboxes WHERE account_id = $1 AND expires_at > $2', [mailbox.accountId, now], client))?.n);
          if (live >= maxLive) throw new MailboxLimitError(live, maxLive);
        }
        const existing = await this.#row('SELECT id, expires_at FROM mailboxes WHERE address = $1 FOR UPDATE', [mailbox.address], client);
        if (existing) {
          if (num(existing.expires_at) > now) throw new StoreConflictError('mailbox', `the address ${mailbox.address} is taken by a live mailbox`);
          await this.#deleteMailboxes([str(existing.id)], client);
        }
        await client.query(
          'INSERT INTO mailboxes (id, account_id, address, webhook_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
          [mailbox.id, mailbox.accountId, mailbox.address, mailbox.webhookId, mailbox.createdAt, mailbox.expiresAt],
        );
        return mailbox;
      });
    } catch (error) {
      // Two instances creating the same new address at once: the unique constraint decides.
      if (isUniqueViolation(error)) throw new StoreConflictError('mailbox', `the address ${mailbox.address} is taken by a live mailbox`);
      throw error;
    }
  }

  async getMailbox(accountId: string, idOrAddress: string, now: Millis) {
    const row = await this.#row(
      'SELECT * FROM mailboxes WHERE account_id = $1 AND (id = $2 OR address = $3) AND expires_at > $4',
      [accountId, idOrAddress, idOrAddress.toLowerCase(), now],
    );
    return row ? mailboxFromRow(row) : null;
  }

  async countLiveMailboxes(accountId: string, now: Millis) {
    return num((await this.#row('SELECT COUNT(*) AS n FROM mailboxes WHERE account_id = $1 AND expires_at > $2', [accountId, now]))?.n);
  }

  // ---- listings

  async listAccounts(now: Millis) {
    const rows = await this.#rows(
      'SELECT a.*, (SELECT COUNT(*) FROM mailboxes m WHERE m.account_id = a.id AND m.expires_at > $1) AS live_mailboxes FROM accounts a ORDER BY a.created_at, a.email',
      [now],
    );
    return rows.map((row) => ({ ...accountFromRow(row), liveMailboxes: num(row.live_mailboxes) }));
  }

  async listLiveMailboxes(input: { accountId?: string; now: Millis }) {
    const rows = await this.#rows(
      `SELECT m.*, a.email AS account_email, (SELECT COUNT(*) FROM messages g WHERE g.mailbox_id = m.id) AS message_count
       FROM mailboxes m JOIN accounts a ON a.id = m.account_id
       WHERE m.expires_at > $1 AND ($2::text IS NULL OR m.account_id = $2) ORDER BY m.created_at, m.address`,
      [input.now, input.accountId ?? null],
    );
    return rows.map((row) => ({ ...mailboxFromRow(row), accountEmail: str(row.account_email), messageCount: num(row.message_count) }));
  }

  // ---- messages

  async insertMessage(copies: readonly CopyPlan[], message: NewMessage, now: Millis, onCommitted?: OnCommitted): Promise<InsertedCopy[]> {
    const fromJson = message.from ? JSON.stringify(message.from) : null;
    const toJson = JSON.stringify(message.to);
    const ccJson = JSON.stringify(message.cc);
    // A PostgreSQL commit is durable when it returns: committed and durable are one moment.
    const committed = await this.#tx(async (client) => {
      // Positions are taken under a transaction-scoped lock, held until commit: a message's seq
      // is visible only after every smaller one, so a poll cursor never passes over a message
      // that commits later with a smaller position.
      await client.query(`SELECT pg_advisory_xact_lock(${lockKey('messages')})`);
      const inserted: InsertedCopy[] = [];
      const seen = new Set<string>();
      for (const copy of copies) {
        if (seen.has(copy.mailboxId)) continue;
        seen.add(copy.mailboxId);
        const box = await this.#row('SELECT * FROM mailboxes WHERE id = $1 AND expires_at > $2', [copy.mailboxId, now], client);
        if (!box) continue;
        const mailbox = mailboxFromRow(box);
        const id = newId('msg');
        const seq = num((await this.#row("SELECT nextval('message_seq') AS seq", [], client))!.seq);
        await client.query(
          `INSERT INTO messages (seq, id, account_id, mailbox_id, mailbox, from_json, to_json, cc_json, subject, received_at, size, raw)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
          [seq, id, mailbox.accountId, mailbox.id, mailbox.address, fromJson, toJson, ccJson, message.subject, now, message.raw.length, message.raw],
        );
        const stored: StoredMessage = {
          id, seq, accountId: mailbox.accountId, mailboxId: mailbox.id, mailbox: mailbox.address,
          from: message.from, to: message.to, cc: message.cc, subject: message.subject, receivedAt: now, size: message.raw.length,
        };
        const deliveries: DeliveryRecord[] = [];
        for (const webhookId of new Set(copy.webhookIds)) {
          const delivery: DeliveryRecord = {
            id: newId('evt'), webhookId, accountId: mailbox.accountId, event: 'message.received', messageId: id, mailboxId: mailbox.id,
            status: 'pending', attempts: 0, nextAttemptAt: now, createdAt: now,
          };
          // A webhook deleted since the plan was made gets no delivery.
          const added = await this.#count(
            `INSERT INTO deliveries (id, webhook_id, account_id, event, message_id, mailbox_id, status, attempts, next_attempt_at, created_at)
             SELECT $1, id, account_id, 'message.received', $2, $3, 'pending', 0, $4, $4 FROM webhooks WHERE id = $5 AND account_id = $6`,
            [delivery.id, id, mailbox.id, now, webhookId, mailbox.accountId], client,
          );
          if (added > 0) deliveries.push(delivery);
        }
        // Delivered to the listening instances when (and only if) the transaction commits.
        await client.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify({ instance: this.#instance, id })]);
        inserted.push({ message: stored, deliveries });
      }
      return inserted;
    });
    onCommitted?.(committed);
    return committed;
  }

  async listMessages(input: { accountId: string; mailboxIds?: string[]; afterSeq: number; limit: number; includeBody: boolean; now: Millis }) {
    const columns = (input.includeBody ? RAW_COLUMNS : SUMMARY_COLUMNS).split(', ').map((c) => `m.${c}`).join(', ');
    const rows = await this.#rows(
      `SELECT ${columns} FROM messages m JOIN mailboxes b ON b.id = m.mailbox_id
       WHERE m.account_id = $1 AND m.seq > $2 AND b.expires_at > $3 AND ($4::text[] IS NULL OR m.mailbox_id = ANY($4::text[]))
       ORDER BY m.seq LIMIT $5`,
      [input.accountId, input.afterSeq, input.now, input.mailboxIds ?? null, input.limit],
    );
    return input.includeBody ? Promise.all(rows.map((row) => withBody(messageFromRow(row), bytes(row.raw)))) : rows.map(messageFromRow);
  }

  async maxSeq() {
    // The highest committed position (the sequence may have handed out larger ones to transactions still open).
    return num((await this.#row('SELECT COALESCE(MAX(seq), 0) AS seq FROM messages'))?.seq ?? 0);
  }

  async listMailboxMessages(mailboxId: string, input: { beforeSeq?: number; limit: number }) {
    const rows = await this.#rows(
      `SELECT ${SUMMARY_COLUMNS} FROM messages WHERE mailbox_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3`,
      [mailboxId, input.beforeSeq ?? Number.MAX_SAFE_INTEGER, input.limit],
    );
    return rows.map(messageFromRow);
  }

  async countMailboxMessages(mailboxId: string) {
    return this.#counts.count(mailboxId, (after) => this.#row(COUNT_AFTER.postgres, [mailboxId, after]));
  }

  async getMessage(accountId: string, mailboxId: string, messageId: string) {
    const row = await this.#row(`SELECT ${RAW_COLUMNS} FROM messages WHERE id = $1 AND mailbox_id = $2 AND account_id = $3`, [messageId, mailboxId, accountId]);
    return row ? withBody(messageFromRow(row), bytes(row.raw)) : null;
  }

  async getRawMessage(accountId: string, mailboxId: string, messageId: string) {
    const row = await this.#row('SELECT raw FROM messages WHERE id = $1 AND mailbox_id = $2 AND account_id = $3', [messageId, mailboxId, accountId]);
    return row ? bytes(row.raw) : null;
  }

  // ---- webhooks and deliveries

  async createWebhook(input: { accountId: string; url: string; secret: string; catchAll: boolean; now: Millis }): Promise<WebhookRecord> {
    const webhook: WebhookRecord = { id: newId('wh'), accountId: input.accountId, url: input.url, catchAll: input.catchAll, secret: input.secret, createdAt: input.now, refusingSince: null };
    await this.pool.query(
      'INSERT INTO webhooks (id, account_id, url, catch_all, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [webhook.id, webhook.accountId, webhook.url, webhook.catchAll, webhook.secret, webhook.createdAt],
    );
    return webhook;
  }

  async listWebhooks(accountId: string) {
    return (await this.#rows('SELECT * FROM webhooks WHERE account_id = $1 ORDER BY created_at, id', [accountId])).map(webhookFromRow);
  }

  async getWebhook(accountId: string, id: string) {
    const row = await this.#row('SELECT * FROM webhooks WHERE id = $1 AND account_id = $2', [id, accountId]);
    return row ? webhookFromRow(row) : null;
  }

  async getWebhookById(id: string) {
    const row = await this.#row('SELECT * FROM webhooks WHERE id = $1', [id]);
    return row ? webhookFromRow(row) : null;
  }

  async listBoundWebhookIds(accountId: string, now: Millis) {
    const rows = await this.#rows('SELECT DISTINCT webhook_id FROM mailboxes WHERE account_id = $1 AND webhook_id IS NOT NULL AND expires_at > $2', [accountId, now]);
    return rows.map((r) => str(r.webhook_id));
  }

  async setWebhookRefusingSince(id: string, since: Millis | null) {
    await this.pool.query('UPDATE webhooks SET refusing_since = $1 WHERE id = $2', [since, id]);
  }

  async deleteWebhook(accountId: string, id: string) {
    return (await this.#count('DELETE FROM webhooks WHERE id = $1 AND account_id = $2', [id, accountId])) > 0;
  }

  async createDelivery(input: Omit<DeliveryRecord, 'id' | 'status' | 'attempts' | 'createdAt'> & { now: Millis }): Promise<DeliveryRecord> {
    const { now, ...rest } = input;
    const delivery: DeliveryRecord = { ...rest, id: newId('evt'), status: 'pending', attempts: 0, createdAt: now };
    await this.pool.query(
      `INSERT INTO deliveries (id, webhook_id, account_id, event, message_id, mailbox_id, status, attempts, next_attempt_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, $8)`,
      [delivery.id, delivery.webhookId, delivery.accountId, delivery.event, delivery.messageId, delivery.mailboxId, delivery.nextAttemptAt, now],
    );
    return delivery;
  }

  async claimDueDeliveries(now: Millis, leaseMs: number, limit: number) {
    // SKIP LOCKED: instances claiming at the same time take different deliveries; the lease
    // (nextAttemptAt moved ahead) keeps a claimed one from the others until it runs out.
    const rows = await this.#rows(
      `WITH due AS (
         SELECT id, next_attempt_at AS due_at FROM deliveries WHERE status = 'pending' AND next_attempt_at <= $1
         ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED
       )
       UPDATE deliveries d SET next_attempt_at = $1::bigint + $2::bigint FROM due WHERE d.id = due.id
       RETURNING d.*, due.due_at`,
      [now, leaseMs, limit],
    );
    // As in SQLite, each comes back with the time it was due, earliest first.
    return rows.map((r) => ({ ...deliveryFromRow(r), nextAttemptAt: optNum(r.due_at) })).sort((a, b) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0));
  }

  async nextDeliveryDue() {
    return optNum((await this.#row("SELECT MIN(next_attempt_at) AS due FROM deliveries WHERE status = 'pending'"))?.due);
  }

  async recordAttempt(deliveryId: string, attempt: AttemptRecord, next: { status: DeliveryRecord['status']; nextAttemptAt: Millis | null }) {
    await this.#tx(async (client) => {
      const exists = await this.#count('UPDATE deliveries SET status = $1, attempts = $2, next_attempt_at = $3 WHERE id = $4', [next.status, attempt.attempt, next.nextAttemptAt, deliveryId], client);
      if (!exists) return; // deleted meanwhile (webhook removed or mailbox swept)
      await this.#insertAttempt(client, deliveryId, attempt);
    });
  }

  async #insertAttempt(client: pg.PoolClient, deliveryId: string, a: AttemptRecord): Promise<void> {
    await client.query(
      `INSERT INTO delivery_attempts (delivery_id, attempt, at, duration_ms, status_code, error, ok) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (delivery_id, attempt) DO UPDATE SET at = EXCLUDED.at, duration_ms = EXCLUDED.duration_ms, status_code = EXCLUDED.status_code, error = EXCLUDED.error, ok = EXCLUDED.ok`,
      [deliveryId, a.attempt, a.at, a.durationMs, a.statusCode, a.error, a.ok],
    );
  }

  async listAttempts(deliveryId: string) {
    return (await this.#rows('SELECT * FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt', [deliveryId])).map(attemptFromRow);
  }

  async failPendingDeliveries(webhookId: string, entry: Omit<AttemptRecord, 'attempt'>) {
    return this.#tx(async (client) => {
      const failed = await this.#rows(
        "UPDATE deliveries SET status = 'failed', attempts = attempts + 1, next_attempt_at = NULL WHERE webhook_id = $1 AND status = 'pending' RETURNING id, attempts",
        [webhookId], client,
      );
      for (const row of failed) await this.#insertAttempt(client, str(row.id), { ...entry, attempt: num(row.attempts) });
      return failed.length;
    });
  }

  async listDeliveries(webhookId: string, limit: number) {
    const deliveries = (await this.#rows('SELECT * FROM deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, ord DESC LIMIT $2', [webhookId, limit])).map(deliveryFromRow);
    return Promise.all(deliveries.map(async (d) => ({ ...d, attemptLog: await this.listAttempts(d.id) })));
  }

  // ---- refusals

  async findMailboxByAddress(address: string) {
    const row = await this.#row(RECIPIENT_LOOKUP, [address.toLowerCase()]);
    return row ? recipientFromRow(row) : null;
  }

  async recordRefusal(r: RefusalRecord) {
    await this.pool.query('INSERT INTO refusals (at, address, reason, reply, mail_from, account_id) VALUES ($1, $2, $3, $4, $5, $6)', [r.at, r.address, r.reason, r.reply, r.mailFrom, r.accountId]);
  }

  async listRefusals(input: { accountId: string | null; since: Millis; limit: number }) {
    const rows = await this.#rows(
      'SELECT * FROM refusals WHERE ($1::text IS NULL OR account_id = $1) AND at >= $2 ORDER BY seq LIMIT $3',
      [input.accountId, input.since, input.limit],
    );
    return rows.map(refusalFromRow);
  }

  // ---- expiry

  async #deleteMailboxes(ids: string[], client: pg.PoolClient): Promise<{ messages: number; deliveries: number }> {
    if (ids.length === 0) return { messages: 0, deliveries: 0 };
    const deliveries = await this.#count('DELETE FROM deliveries WHERE mailbox_id = ANY($1::text[])', [ids], client);
    const messages = await this.#count('DELETE FROM messages WHERE mailbox_id = ANY($1::text[])', [ids], client);
    await client.query('DELETE FROM mailboxes WHERE id = ANY($1::text[])', [ids]);
    return { messages, deliveries };
  }

  async expireMailbox(accountId: string, idOrAddress: string, now: Millis) {
    const row = await this.#row(
      'UPDATE mailboxes SET expires_at = $1 WHERE account_id = $2 AND (id = $3 OR address = $4) AND expires_at > $1 RETURNING *',
      [now, accountId, idOrAddress, idOrAddress.toLowerCase()],
    );
    return row ? mailboxFromRow(row) : null;
  }

  async sweepExpired(now: Millis, limit = Number.MAX_SAFE_INTEGER) {
    return this.#tx(async (client) => {
      // Every instance may sweep; one at a time does the work, the others find it done.
      const got = await this.#row(`SELECT pg_try_advisory_xact_lock(${lockKey('sweep')}) AS got`, [], client);
      if (!got?.got) return { mailboxes: 0, messages: 0, deliveries: 0, more: false };
      const most = Math.min(limit, SWEEP_MAILBOXES_MAX);
      const ids = (await this.#rows('SELECT id FROM mailboxes WHERE expires_at <= $1 ORDER BY expires_at, id LIMIT $2 FOR UPDATE', [now, most + 1], client)).map((r) => str(r.id));
      let budget = limit;
      let mailboxes = 0;
      let messages = 0;
      let deliveries = 0;
      let more = false;
      for (const id of ids) {
        if (budget <= 0 || mailboxes === most) {
          more = true;
          break;
        }
        // A mailbox goes once it is empty (deleting it first would cascade to every message at once).
        const d = await this.#count('DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE mailbox_id = $1 LIMIT $2)', [id, budget], client);
        budget -= d;
        const m = await this.#count('DELETE FROM messages WHERE seq IN (SELECT seq FROM messages WHERE mailbox_id = $1 LIMIT $2)', [id, Math.max(budget, 0)], client);
        budget -= m;
        deliveries += d;
        messages += m;
        if (budget <= 0 && (await this.#row('SELECT (EXISTS (SELECT 1 FROM messages WHERE mailbox_id = $1) OR EXISTS (SELECT 1 FROM deliveries WHERE mailbox_id = $1)) AS left', [id], client))?.left) {
          more = true;
          break;
        }
        await client.query('DELETE FROM mailboxes WHERE id = $1', [id]);
        mailboxes++;
      }
      await client.query('DELETE FROM refusals WHERE at < $1 OR seq <= (SELECT MAX(seq) FROM refusals) - $2', [now - 86_400_000, REFUSALS_KEPT]);
      await client.query('DELETE FROM web_sessions WHERE expires_at <= $1', [now]);
      await client.query('DELETE FROM sign_in_tokens WHERE expires_at <= $1', [now]);
      return { mailboxes, messages, deliveries, more };
    });
  }

  // ---- several instances

  watchCommits(watcher: CommitWatcher): () => Promise<void> {
    let stopped = false;
    let client: pg.Client | undefined;
    let failures = 0;
    let retry: NodeJS.Timeout | undefined;
    const connect = async (): Promise<void> => {
      if (stopped) return;
      const next = new pg.Client({ connectionString: this.url });
      next.on('error', () => reconnect(next));
      next.on('end', () => reconnect(next));
      next.on('notification', (note) => {
        if (note.channel !== CHANNEL || !note.payload) return;
        const { instance, id } = JSON.parse(note.payload) as { instance: string; id: string };
        if (instance === this.#instance) return; // this instance emitted it already
        this.#rows(`SELECT ${SUMMARY_COLUMNS} FROM messages WHERE id = $1`, [id]).then(
          (rows) => rows.forEach((row) => watcher.onMessage(messageFromRow(row))),
          () => watcher.onResync(),
        );
      });
      try {
        await next.connect();
        // Named, so an operator (or a test) can tell this fleet's listeners apart in pg_stat_activity.
        await next.query("SELECT set_config('application_name', 'mailwright-listen ' || current_schema(), false)");
        await next.query(`LISTEN ${CHANNEL}`);
      } catch {
        reconnect(next);
        return;
      }
      if (stopped) {
        await next.end().catch(() => {});
        return;
      }
      client = next;
      // Anything committed while not listening is found by re-checking the store.
      if (failures > 0) watcher.onResync();
      failures = 0;
    };
    const reconnect = (which: pg.Client) => {
      if (stopped || (client !== which && client !== undefined) || retry) return;
      client = undefined;
      which.end().catch(() => {});
      const delay = LISTEN_BACKOFF[Math.min(failures, LISTEN_BACKOFF.length - 1)]!;
      failures++;
      retry = setTimeout(() => {
        retry = undefined;
        void connect();
      }, delay);
      retry.unref();
    };
    void connect();
    const stop = async () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      this.#stopWatching.delete(stop);
      await client?.end().catch(() => {});
    };
    this.#stopWatching.add(stop);
    return stop;
  }

  async close() {
    if (this.#closed) return;
    this.#closed = true;
    for (const stop of [...this.#stopWatching]) await stop();
    await this.pool.end();
  }
}
