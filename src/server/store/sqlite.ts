// Owns the embedded SQLite backend of the Store (better-sqlite3 in WAL mode). Writes that are
// acknowledged to someone (a message's SMTP `250`, a created mailbox, key or webhook) resolve
// only once the log is synced (wal-sync.ts: off the event loop, one sync for every commit made
// meanwhile). Mail arriving together on several sessions is committed by the ingest writer's
// thread (sqlite-ingest.ts) in shared transactions; a lone message is committed here.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { newId } from '../ids.js';
import { SQLITE_MIGRATIONS } from './migrations/sqlite.js';
import { COUNT_AFTER, MailboxCounts } from './mailbox-counts.js';
import { IngestWriter } from './sqlite-ingest.js';
import { configureConnection, LAST_SEQ, messageWriter, seqOfMessageId, type InsertJob, type InsertResult } from './sqlite-messages.js';
import { WalSync } from './wal-sync.js';
import {
  accountFromRow, apiKeyFromRow, attemptFromRow, bytes, deliveryFromRow, mailboxFromRow, messageFromRow, messageWithBodyFromRow, RAW_COLUMNS, num, optNum, RECIPIENT_LOOKUP, recipientFromRow, refusalFromRow,
  sessionFromRow, str, SUMMARY_COLUMNS, webhookFromRow, type Row,
} from './rows.js';
import {
  MailboxLimitError,
  StoreConflictError,
  type AccountRecord,
  type ApiKeyRecord,
  type AttemptRecord,
  type CopyPlan,
  type DeliveryRecord,
  type InsertedCopy,
  type OnCommitted,
  type MailboxRecord,
  type Millis,
  type NewMessage,
  type RecipientMailbox,
  type RefusalRecord,
  type Scope,
  type SessionRecord,
  type Store,
  type StoredMessage,
  SWEEP_MAILBOXES_MAX,
  type WebhookRecord,
} from './store.js';

const RECIPIENT_LOOKUP_SQLITE = RECIPIENT_LOOKUP.replace('$1', '?');

/**
 * Page cache of the connection, KiB. better-sqlite3 builds SQLite with a 16 MB default, which
 * a busy store fills and keeps for good (RSS); the pages reads and lone messages touch (each
 * mailbox's index leaf, the newest rows) fit in a few MB, and the rest is in the OS's cache.
 * Reads at 100 k stored as fast at 2 MB as at 4 MB here (RSS at 20 k: 117 MB at 16 MB, 108 at 4).
 */
const CACHE_KIB = 2_048;

/** Page cache of the ingest writer's connection, KiB: it touches the newest pages of each index only. */
const INGEST_CACHE_KIB = 512;

/**
 * When arriving mail goes to the ingest writer's thread: for `togetherForMs` after a message
 * arrived while another was under way (several sessions sending), while the event loop is
 * saturated. Its utilization is read every `sampleMs`; the loop counts as busy from above
 * `busyAbove` until it falls below `idleBelow`. Then the writer's thread takes the commits and
 * the event loop goes on speaking SMTP. Otherwise a message is committed on the event loop's
 * own thread: a lone message, one session sending one message after another, or mail at a pace
 * the loop keeps up with, is answered sooner without the hand-over between threads (~0.3 ms
 * here), and the store's other writes (an API call's quota count) never wait for the writer's.
 */
export interface IngestRouting {
  togetherForMs: number;
  sampleMs: number;
  busyAbove: number;
  idleBelow: number;
}

/** Offloading pays when the loop is the bottleneck: several smtp-source sessions keep it ~85 % busy here, ~75 % with the writer taking the commits. */
export const INGEST_ROUTING: IngestRouting = { togetherForMs: 100, sampleMs: 50, busyAbove: 0.8, idleBelow: 0.5 };

/** Most refusals kept (the sweeper trims the oldest beyond it). */
const REFUSALS_KEPT = 10_000;

/** Most recipients the SMTP lookup keeps found (see SqliteStore#recipients); beyond it, it starts over. */
const RECIPIENTS_KEPT = 1_000;


function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** Opens (creating when needed) a SQLite store at `file` (or ':memory:') and migrates it. */
export function openSqliteStore(file: string, routing: IngestRouting = INGEST_ROUTING): SqliteStore {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  configureConnection(db, CACHE_KIB);
  const store = new SqliteStore(db, file === ':memory:' ? null : file, routing);
  store.migrate();
  store.startIngest();
  return store;
}

/**
 * better-sqlite3 12 wraps databases and statements in node::ObjectWrap; from Node 24.19 on,
 * such a wrapper that is garbage-collected outside a JS context aborts the process
 * ("Assertion failed: (env) != nullptr"). Version 13 fixes it but needs Node >= 22. Until
 * then no wrapper may ever be collected: each store prepares a statement once per SQL text
 * and caches it, and a closed store's database and statements are kept here for the life
 * of the process (a few hundred bytes each once closed).
 */
const RETAINED: unknown[] = [];

/** The SQLite store (see {@link openSqliteStore}). */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  #closed = false;
  readonly #statements = new Map<string, Database.Statement>();

  private readonly wal: WalSync | null;
  /** Writes arriving messages on this thread's connection. */
  #write: ((jobs: readonly InsertJob[]) => InsertResult[]) | null = null;
  /** For a file: the thread that commits messages while others are under way. */
  #writer: IngestWriter | null = null;
  /** Messages committed on this thread whose sync has not ended. */
  #ownInFlight = 0;
  /** Messages committed on this thread (a test and benchmark figure; the writer counts its own). */
  ownCommits = 0;
  /** When a message last arrived while another was under way (performance.now()). */
  #togetherAt = -Infinity;

  /**
   * Recipients the SMTP lookup found, by address, since mailboxes and webhooks last changed.
   * Every message looks its recipient up: read from the file it costs a page-cache reload
   * whenever the ingest writer committed (~9 % of the event loop at 5 sessions here). A new
   * mailbox is put in at once, so the first message to it finds it here too. Temporary
   * triggers on this connection drop an address whose mailbox row changes, and empty it when
   * a webhook is added or deleted (see #watchRecipients);
   * the ingest writer's connection only adds messages and deliveries, and no other process
   * changes mailboxes or webhooks (one process owns a SQLite store). The insert reads the
   * mailbox again in any case, so a copy never goes to a mailbox that is gone.
   */
  readonly #recipients = new Map<string, RecipientMailbox>();
  readonly #counts = new MailboxCounts();

  /** The event loop's utilization when last read, and whether it counts as busy. */
  #loop = { at: -Infinity, elu: performance.eventLoopUtilization(), busy: false };

  /**
   * @param file the database file, or null for an in-memory database
   * @param routing when arriving mail goes to the writer's thread (see {@link IngestRouting})
   */
  constructor(private readonly db: Database.Database, private readonly file: string | null, private readonly routing: IngestRouting) {
    this.wal = file === null ? null : new WalSync(`${file}-wal`);
  }

  /** The thread that commits mail arriving together (a file store only). */
  get ingestWriter(): IngestWriter | null {
    return this.#writer;
  }

  /** Gets ready to store arriving mail (after the migrations: the writer's connection finds the schema in place). */
  startIngest(): void {
    this.#watchRecipients();
    this.#write = messageWriter(this.db, (sql) => this.#prepare(sql));
    if (this.file !== null) this.#writer = new IngestWriter({ file: this.file, cacheKib: INGEST_CACHE_KIB });
  }

  /** Resolves once every commit made so far is on disk (at once for an in-memory database). */
  #durable(): Promise<void> {
    return this.wal ? this.wal.sync() : Promise.resolve();
  }

  /** `value` once the write that made it is on disk: for writes acknowledged to a caller. */
  async #acknowledged<T>(value: T): Promise<T> {
    await this.#durable();
    return value;
  }

  /** The prepared statement for `sql`, made once (see RETAINED). */
  #prepare(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
  #get(sql: string, ...params: unknown[]): Row | undefined {
    return this.#prepare(sql).get(...params) as Row | undefined;
  }
  #all(sql: string, ...params: unknown[]): Row[] {
    return this.#prepare(sql).all(...params) as Row[];
  }
  #run(sql: string, ...params: unknown[]) {
    return this.#prepare(sql).run(...params);
  }
  #column<T>(sql: string, ...params: unknown[]): T[] {
    return this.#all(sql, ...params).map((row) => Object.values(row)[0] as T);
  }

  /** Applies the numbered migrations not applied yet, each in its own transaction. */
  migrate(): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    const applied = new Set(this.#column<number>('SELECT version FROM schema_migrations'));
    for (const migration of SQLITE_MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      this.db.transaction(() => {
        this.db.exec(migration.sql);
        this.#run('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)', migration.version, Date.now());
      }).immediate();
    }
  }

  // ---- accounts and keys

  async createAccount(input: { email: string; role: string; isAdmin: boolean; passwordHash: string | null; now: Millis }): Promise<AccountRecord> {
    const account: AccountRecord = { id: newId('acc'), email: input.email.toLowerCase(), role: input.role, isAdmin: input.isAdmin, passwordHash: input.passwordHash, createdAt: input.now };
    try {
      this.#run(
        'INSERT INTO accounts (id, email, role, is_admin, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        account.id, account.email, account.role, account.isAdmin ? 1 : 0, account.passwordHash, account.createdAt,
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw new StoreConflictError('account', `an account with email ${account.email} already exists`);
      throw error;
    }
    return this.#acknowledged(account);
  }

  async getAccount(id: string) {
    const row = this.#get('SELECT * FROM accounts WHERE id = ?', id);
    return row ? accountFromRow(row) : null;
  }

  async getAccountByEmail(email: string) {
    const row = this.#get('SELECT * FROM accounts WHERE email = ?', email.toLowerCase());
    return row ? accountFromRow(row) : null;
  }

  async createApiKey(input: { accountId: string; name: string; prefix: string; hash: string; scopes: Scope[]; now: Millis }): Promise<ApiKeyRecord> {
    const id = newId('key');
    this.#run(
      'INSERT INTO api_keys (id, account_id, name, prefix, hash, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      id, input.accountId, input.name, input.prefix, input.hash, input.scopes.join(','), input.now,
    );
    return this.#acknowledged<ApiKeyRecord>({ id, accountId: input.accountId, name: input.name, prefix: input.prefix, scopes: input.scopes, createdAt: input.now, revokedAt: null, lastUsedAt: null });
  }

  async findApiKeyByHash(hash: string) {
    const row = this.#get('SELECT * FROM api_keys WHERE hash = ? AND revoked_at IS NULL', hash);
    return row ? { ...apiKeyFromRow(row), hash: str(row.hash) } : null;
  }

  async listApiKeys(accountId: string) {
    return this.#all('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at', accountId).map(apiKeyFromRow);
  }

  async revokeApiKey(id: string, now: Millis) {
    return this.#acknowledged(this.#run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', now, id).changes > 0);
  }

  async touchApiKey(id: string, now: Millis) {
    this.#run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', now, id);
  }

  async setPassword(accountId: string, passwordHash: string) {
    this.#run('UPDATE accounts SET password_hash = ? WHERE id = ?', passwordHash, accountId);
    await this.#durable();
  }

  async setAccountRole(accountId: string, role: string) {
    return this.#acknowledged(this.#run('UPDATE accounts SET role = ? WHERE id = ?', role, accountId).changes > 0);
  }

  // ---- service settings and web sessions

  async ensureSetting(name: string, value: string) {
    this.#run('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', name, value);
    return this.#acknowledged(str(this.#get('SELECT value FROM settings WHERE name = ?', name)!.value));
  }

  async saveSession(session: SessionRecord) {
    this.#run(
      `INSERT INTO web_sessions (id_hash, account_id, data, expires_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (id_hash) DO UPDATE SET account_id = excluded.account_id, data = excluded.data, expires_at = excluded.expires_at`,
      session.idHash, session.accountId, session.data, session.expiresAt,
    );
  }

  async getSession(idHash: string, now: Millis) {
    const row = this.#get('SELECT * FROM web_sessions WHERE id_hash = ? AND expires_at > ?', idHash, now);
    return row ? sessionFromRow(row) : null;
  }

  async deleteSession(idHash: string) {
    this.#run('DELETE FROM web_sessions WHERE id_hash = ?', idHash);
  }

  async deleteAccountSessions(accountId: string, exceptIdHash?: string) {
    this.#run('DELETE FROM web_sessions WHERE account_id = ? AND id_hash <> ?', accountId, exceptIdHash ?? '');
  }

  async createSignInToken(input: { hash: string; accountId: string; expiresAt: Millis }) {
    this.#run('INSERT INTO sign_in_tokens (hash, account_id, expires_at) VALUES (?, ?, ?)', input.hash, input.accountId, input.expiresAt);
  }

  async consumeSignInToken(hash: string, now: Millis) {
    const row = this.#get(
      'UPDATE sign_in_tokens SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING account_id',
      now, hash, now,
    );
    return row ? str(row.account_id) : null;
  }

  // ---- quota

  async consumeCall(accountId: string, period: string, allowance: number | null) {
    return this.db.transaction(() => {
      const used = num(this.#get('SELECT used FROM quota_usage WHERE account_id = ? AND period = ?', accountId, period)?.used ?? 0);
      if (allowance !== null && used >= allowance) return { used, allowed: false };
      this.#run(
        'INSERT INTO quota_usage (account_id, period, used) VALUES (?, ?, 1) ON CONFLICT (account_id, period) DO UPDATE SET used = used + 1',
        accountId, period,
      );
      return { used: used + 1, allowed: true };
    }).immediate();
  }

  async getUsage(accountId: string, period: string) {
    return num(this.#get('SELECT used FROM quota_usage WHERE account_id = ? AND period = ?', accountId, period)?.used ?? 0);
  }

  async addTopUp(input: { accountId: string; period: string; calls: number; source: string; now: Millis }) {
    this.#run('INSERT INTO top_ups (account_id, period, calls, source, created_at) VALUES (?, ?, ?, ?, ?)', input.accountId, input.period, input.calls, input.source, input.now);
    await this.#durable();
  }

  async getTopUps(accountId: string, period: string) {
    return num(this.#get('SELECT COALESCE(SUM(calls), 0) AS total FROM top_ups WHERE account_id = ? AND period = ?', accountId, period)?.total ?? 0);
  }

  async createRedeemCode(input: { hash: string; calls: number; now: Millis }) {
    this.#run('INSERT INTO redeem_codes (hash, calls, created_at) VALUES (?, ?, ?)', input.hash, input.calls, input.now);
    await this.#durable();
  }

  async redeemCode(input: { hash: string; accountId: string; period: string; now: Millis }) {
    return this.#acknowledged(this.db.transaction(() => {
      const row = this.#get('SELECT calls FROM redeem_codes WHERE hash = ? AND redeemed_at IS NULL', input.hash);
      if (!row) return null;
      const calls = num(row.calls);
      this.#run('UPDATE redeem_codes SET redeemed_by = ?, redeemed_at = ? WHERE hash = ?', input.accountId, input.now, input.hash);
      this.#run('INSERT INTO top_ups (account_id, period, calls, source, created_at) VALUES (?, ?, ?, ?, ?)', input.accountId, input.period, calls, 'redeem', input.now);
      return calls;
    }).immediate());
  }

  // ---- mailboxes

  async createMailbox(input: Omit<MailboxRecord, 'id'> & { id?: string }, now: Millis, maxLive?: number | null): Promise<MailboxRecord> {
    const mailbox: MailboxRecord = { ...input, id: input.id ?? newId('mbx'), address: input.address.toLowerCase() };
    const created = this.db.transaction(() => {
      if (maxLive !== undefined && maxLive !== null) {
        const live = num(this.#get('SELECT COUNT(*) AS n FROM mailboxes WHERE account_id = ? AND expires_at > ?', mailbox.accountId, now)?.n);
        if (live >= maxLive) throw new MailboxLimitError(live, maxLive);
      }
      const existing = this.#get('SELECT id, expires_at FROM mailboxes WHERE address = ?', mailbox.address);
      if (existing) {
        if (num(existing.expires_at) > now) throw new StoreConflictError('mailbox', `the address ${mailbox.address} is taken by a live mailbox`);
        this.#deleteMailboxes([str(existing.id)]);
      }
      this.#run(
        'INSERT INTO mailboxes (id, account_id, address, webhook_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
        mailbox.id, mailbox.accountId, mailbox.address, mailbox.webhookId, mailbox.createdAt, mailbox.expiresAt,
      );
      return mailbox;
    }).immediate();
    // Mail to a new mailbox usually follows at once: its recipient lookup is answered from memory.
    this.#rememberRecipient(created.address);
    return this.#acknowledged(created);
  }

  async getMailbox(accountId: string, idOrAddress: string, now: Millis) {
    const row = this.#get(
      'SELECT * FROM mailboxes WHERE account_id = ? AND (id = ? OR address = ?) AND expires_at > ?',
      accountId, idOrAddress, idOrAddress.toLowerCase(), now,
    );
    return row ? mailboxFromRow(row) : null;
  }

  async countLiveMailboxes(accountId: string, now: Millis) {
    return num(this.#get('SELECT COUNT(*) AS n FROM mailboxes WHERE account_id = ? AND expires_at > ?', accountId, now)?.n);
  }

  // ---- listings for the CLI

  async listAccounts(now: Millis) {
    const rows = this.#all(
      'SELECT a.*, (SELECT COUNT(*) FROM mailboxes m WHERE m.account_id = a.id AND m.expires_at > ?) AS live_mailboxes FROM accounts a ORDER BY a.created_at, a.email',
      now,
    );
    return rows.map((row) => ({ ...accountFromRow(row), liveMailboxes: num(row.live_mailboxes) }));
  }

  async listLiveMailboxes(input: { accountId?: string; now: Millis }) {
    const rows = this.#all(
      `SELECT m.*, a.email AS account_email FROM mailboxes m JOIN accounts a ON a.id = m.account_id
       WHERE m.expires_at > ? AND (? IS NULL OR m.account_id = ?) ORDER BY m.created_at, m.address`,
      input.now, input.accountId ?? null, input.accountId ?? null,
    );
    // Each count adds what arrived since that mailbox was last counted (one statement each:
    // here in the process, not a round trip as for Postgres, which counts in its one query).
    return Promise.all(rows.map(async (row) => ({ ...mailboxFromRow(row), accountEmail: str(row.account_email), messageCount: await this.countMailboxMessages(str(row.id)) })));
  }

  // ---- messages

  /** Whether the event loop counts as busy (see {@link IngestRouting}), read at most every `sampleMs`. */
  #loopBusy(now: number): boolean {
    const { sampleMs, busyAbove, idleBelow } = this.routing;
    if (now - this.#loop.at >= sampleMs) {
      const elu = performance.eventLoopUtilization();
      const recent = performance.eventLoopUtilization(elu, this.#loop.elu).utilization;
      this.#loop = { at: now, elu, busy: recent > (this.#loop.busy ? idleBelow : busyAbove) };
    }
    return this.#loop.busy;
  }

  // Mail arriving together on a busy loop (see IngestRouting) goes to the ingest writer's thread, which
  // commits whatever reached it meanwhile in one transaction and sync (sqlite-ingest.ts); any
  // other message is committed on this thread and its sync runs on the thread pool (WalSync).
  // The two write one after the other, never at once (this thread commits a message only when
  // the writer holds none), and SQLite's write lock orders the commits, so seq grows in commit
  // order either way.
  insertMessage(copies: readonly CopyPlan[], message: NewMessage, now: Millis, onCommitted?: OnCommitted): Promise<InsertedCopy[]> {
    const write = this.#write;
    if (this.#closed || !write) return Promise.reject(new Error('the store is closed'));
    const job = { copies, message, now };
    const writer = this.#writer;
    const arrival = performance.now();
    if (this.#ownInFlight > 0 || (writer && !writer.idle)) this.#togetherAt = arrival;
    const together = arrival - this.#togetherAt < this.routing.togetherForMs;
    if (writer && together && this.#loopBusy(arrival)) {
      if (writer.ready) return writer.insert(job, onCommitted);
      writer.start(); // the first of them are committed here while it starts
    }
    const result = write([job])[0]!;
    if (result instanceof Error) return Promise.reject(result);
    this.ownCommits++;
    // In order unless the writer's thread holds messages: it may have committed some whose report is still on its way.
    onCommitted?.(result, !writer || writer.idle);
    this.#ownInFlight++;
    // Mail arriving together shares syncs on the thread pool, and webhook POSTs go out while
    // the log syncs there; a message alone is synced on this thread once what its commit set
    // going (a waiting long-poll's answer) ran.
    const alone = !together && result.every((copy) => copy.deliveries.length === 0);
    return (alone && this.wal ? this.wal.syncSoon() : this.#durable()).finally(() => this.#ownInFlight--).then(() => result);
  }

  async listMessages(input: { accountId: string; mailboxIds?: string[]; afterSeq: number; limit: number; includeBody: boolean; now: Millis }) {
    const columns = (input.includeBody ? RAW_COLUMNS : SUMMARY_COLUMNS).split(', ').map((c) => `m.${c}`).join(', ');
    const params: unknown[] = [input.accountId, input.afterSeq, input.now];
    let filter = '';
    if (input.mailboxIds) {
      filter = ` AND m.mailbox_id IN (${input.mailboxIds.map(() => '?').join(', ')})`;
      params.push(...input.mailboxIds);
    }
    params.push(input.limit);
    const rows = this.#all(
      // With mailboxes named, their own index: the account's may hold far more messages than they do.
      `SELECT ${columns} FROM messages m ${input.mailboxIds ? 'INDEXED BY messages_mailbox_seq ' : ''}JOIN mailboxes b ON b.id = m.mailbox_id
       WHERE m.account_id = ? AND m.seq > ? AND b.expires_at > ?${filter} ORDER BY m.seq LIMIT ?`,
      ...params,
    );
    return input.includeBody ? Promise.all(rows.map(messageWithBodyFromRow)) : rows.map(messageFromRow);
  }

  async maxSeq() {
    return num(this.#get(LAST_SEQ)?.seq ?? 0);
  }

  async listMailboxMessages(mailboxId: string, input: { beforeSeq?: number; limit: number }) {
    const rows = this.#all(
      `SELECT ${SUMMARY_COLUMNS} FROM messages WHERE mailbox_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
      mailboxId, input.beforeSeq ?? Number.MAX_SAFE_INTEGER, input.limit,
    );
    return rows.map(messageFromRow);
  }

  async countMailboxMessages(mailboxId: string) {
    return this.#counts.count(mailboxId, (after) => this.#get(COUNT_AFTER.sqlite, mailboxId, after));
  }

  /** A message's `columns` by its id: the seq in the id (or, for an id made before migration 7, in message_ids) finds the row. */
  #messageById(columns: string, accountId: string, mailboxId: string, messageId: string): Row | undefined {
    return this.#get(
      `SELECT ${columns} FROM messages WHERE seq = COALESCE(?, (SELECT seq FROM message_ids WHERE id = ?)) AND id = ? AND mailbox_id = ? AND account_id = ?`,
      seqOfMessageId(messageId), messageId, messageId, mailboxId, accountId,
    );
  }

  async getMessage(accountId: string, mailboxId: string, messageId: string) {
    const row = this.#messageById(RAW_COLUMNS, accountId, mailboxId, messageId);
    return row ? messageWithBodyFromRow(row) : null;
  }

  async getRawMessage(accountId: string, mailboxId: string, messageId: string) {
    const row = this.#messageById('raw', accountId, mailboxId, messageId);
    return row ? bytes(row.raw) : null;
  }

  // ---- webhooks and deliveries

  async createWebhook(input: { accountId: string; url: string; secret: string; catchAll: boolean; now: Millis }): Promise<WebhookRecord> {
    const webhook: WebhookRecord = { id: newId('wh'), accountId: input.accountId, url: input.url, catchAll: input.catchAll, secret: input.secret, createdAt: input.now, refusingSince: null };
    this.#run(
      'INSERT INTO webhooks (id, account_id, url, catch_all, secret, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      webhook.id, webhook.accountId, webhook.url, webhook.catchAll ? 1 : 0, webhook.secret, webhook.createdAt,
    );
    return this.#acknowledged(webhook);
  }

  async listWebhooks(accountId: string) {
    return this.#all('SELECT * FROM webhooks WHERE account_id = ? ORDER BY created_at', accountId).map(webhookFromRow);
  }

  async getWebhook(accountId: string, id: string) {
    const row = this.#get('SELECT * FROM webhooks WHERE id = ? AND account_id = ?', id, accountId);
    return row ? webhookFromRow(row) : null;
  }

  async getWebhookById(id: string) {
    const row = this.#get('SELECT * FROM webhooks WHERE id = ?', id);
    return row ? webhookFromRow(row) : null;
  }

  async listBoundWebhookIds(accountId: string, now: Millis) {
    return this.#column<string>(
      'SELECT DISTINCT webhook_id FROM mailboxes WHERE account_id = ? AND webhook_id IS NOT NULL AND expires_at > ?',
      accountId, now,
    );
  }

  async setWebhookRefusingSince(id: string, since: Millis | null) {
    this.#run('UPDATE webhooks SET refusing_since = ? WHERE id = ?', since, id);
  }

  async deleteWebhook(accountId: string, id: string) {
    // Deliveries and their attempts go with it (ON DELETE CASCADE).
    return this.#acknowledged(this.#run('DELETE FROM webhooks WHERE id = ? AND account_id = ?', id, accountId).changes > 0);
  }

  async createDelivery(input: Omit<DeliveryRecord, 'id' | 'status' | 'attempts' | 'createdAt'> & { now: Millis }): Promise<DeliveryRecord> {
    const { now, ...rest } = input;
    const delivery: DeliveryRecord = { ...rest, id: newId('evt'), status: 'pending', attempts: 0, createdAt: now };
    this.#run(
      `INSERT INTO deliveries (id, webhook_id, account_id, event, message_id, mailbox_id, status, attempts, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
      delivery.id, delivery.webhookId, delivery.accountId, delivery.event, delivery.messageId, delivery.mailboxId, delivery.nextAttemptAt, now,
    );
    return this.#acknowledged(delivery);
  }

  async claimDueDeliveries(now: Millis, leaseMs: number, limit: number) {
    return this.db.transaction(() => {
      const rows = this.#all(
        "SELECT * FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?",
        now, limit,
      );
      const lease = this.#prepare('UPDATE deliveries SET next_attempt_at = ? WHERE id = ?');
      for (const row of rows) lease.run(now + leaseMs, row.id);
      return rows.map(deliveryFromRow);
    }).immediate();
  }

  async nextDeliveryDue() {
    return optNum(this.#get("SELECT MIN(next_attempt_at) AS due FROM deliveries WHERE status = 'pending'")?.due);
  }

  async recordAttempt(deliveryId: string, attempt: AttemptRecord, next: { status: DeliveryRecord['status']; nextAttemptAt: Millis | null }) {
    this.db.transaction(() => {
      const exists = this.#run(
        'UPDATE deliveries SET status = ?, attempts = ?, next_attempt_at = ? WHERE id = ?',
        next.status, attempt.attempt, next.nextAttemptAt, deliveryId,
      ).changes;
      if (!exists) return; // deleted meanwhile (webhook removed or mailbox swept)
      this.#run(
        'INSERT OR REPLACE INTO delivery_attempts (delivery_id, attempt, at, duration_ms, status_code, error, ok) VALUES (?, ?, ?, ?, ?, ?, ?)',
        deliveryId, attempt.attempt, attempt.at, attempt.durationMs, attempt.statusCode, attempt.error, attempt.ok ? 1 : 0,
      );
    }).immediate();
  }

  async listAttempts(deliveryId: string) {
    return this.#all('SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt', deliveryId).map(attemptFromRow);
  }

  async failPendingDeliveries(webhookId: string, entry: Omit<AttemptRecord, 'attempt'>) {
    return this.db.transaction(() => {
      const failed = this.#all(
        "UPDATE deliveries SET status = 'failed', attempts = attempts + 1, next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending' RETURNING id, attempts",
        webhookId,
      );
      const log = this.#prepare('INSERT OR REPLACE INTO delivery_attempts (delivery_id, attempt, at, duration_ms, status_code, error, ok) VALUES (?, ?, ?, ?, ?, ?, ?)');
      for (const row of failed) log.run(row.id, row.attempts, entry.at, entry.durationMs, entry.statusCode, entry.error, entry.ok ? 1 : 0);
      return failed.length;
    }).immediate();
  }

  async listDeliveries(webhookId: string, limit: number) {
    const deliveries = this.#all('SELECT * FROM deliveries WHERE webhook_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?', webhookId, limit).map(deliveryFromRow);
    return Promise.all(deliveries.map(async (d) => ({ ...d, attemptLog: await this.listAttempts(d.id) })));
  }

  // ---- expiry

  #deleteMailboxes(ids: string[]): { messages: number; deliveries: number } {
    let messages = 0;
    let deliveries = 0;
    const delDeliveries = this.#prepare('DELETE FROM deliveries WHERE mailbox_id = ?');
    const delMessages = this.#prepare('DELETE FROM messages WHERE mailbox_id = ?');
    const delMailbox = this.#prepare('DELETE FROM mailboxes WHERE id = ?');
    for (const id of ids) {
      deliveries += delDeliveries.run(id).changes;
      messages += delMessages.run(id).changes;
      delMailbox.run(id);
    }
    return { messages, deliveries };
  }

  // ---- refusals

  async findMailboxByAddress(address: string) {
    const key = address.toLowerCase();
    return this.#recipients.get(key) ?? this.#rememberRecipient(key);
  }

  /** Reads the recipient at `address` (lower case) from the file and keeps it in #recipients. */
  #rememberRecipient(address: string): RecipientMailbox | null {
    const row = this.#get(RECIPIENT_LOOKUP_SQLITE, address);
    if (!row) return null;
    const found = recipientFromRow(row);
    if (this.#recipients.size >= RECIPIENTS_KEPT) this.#recipients.clear();
    this.#recipients.set(address, found);
    return found;
  }

  /**
   * Keeps the recipients found (#recipients) true to the file: when this connection adds,
   * changes or deletes a mailbox, the old and new addresses of its row are dropped; when it
   * adds or deletes a webhook, all are (whether an account has one is part of what the lookup
   * answers; a webhook's own updates are not). TEMP triggers belong to this connection only
   * and live as long as it does; the statements behind them stay as they are.
   */
  #watchRecipients(): void {
    this.db.function('mailwright_recipients_changed', { varargs: true }, (...addresses: unknown[]) => {
      if (addresses.length === 0) this.#recipients.clear();
      for (const address of addresses) this.#recipients.delete(String(address));
      return null;
    });
    const rowOf = { INSERT: 'new.address', UPDATE: 'old.address, new.address', DELETE: 'old.address' } as const;
    const watched = [['mailboxes', 'INSERT'], ['mailboxes', 'UPDATE'], ['mailboxes', 'DELETE'], ['webhooks', 'INSERT'], ['webhooks', 'DELETE']] as const;
    this.db.exec(watched.map(([table, change]) =>
      `CREATE TEMP TRIGGER IF NOT EXISTS recipients_${table}_${change.toLowerCase()} AFTER ${change} ON main.${table} ` +
      `BEGIN SELECT mailwright_recipients_changed(${table === 'mailboxes' ? rowOf[change] : ''}); END;`).join('\n'));
  }

  async recordRefusal(r: RefusalRecord) {
    this.#run('INSERT INTO refusals (at, address, reason, reply, mail_from, account_id) VALUES (?, ?, ?, ?, ?, ?)', r.at, r.address, r.reason, r.reply, r.mailFrom, r.accountId);
  }

  async listRefusals(input: { accountId: string | null; since: Millis; limit: number }) {
    const rows = input.accountId === null
      ? this.#all('SELECT * FROM refusals WHERE at >= ? ORDER BY seq LIMIT ?', input.since, input.limit)
      : this.#all('SELECT * FROM refusals WHERE account_id = ? AND at >= ? ORDER BY seq LIMIT ?', input.accountId, input.since, input.limit);
    return rows.map(refusalFromRow);
  }

  // ---- expiry

  async expireMailbox(accountId: string, idOrAddress: string, now: Millis) {
    const row = this.#get(
      'UPDATE mailboxes SET expires_at = ? WHERE account_id = ? AND (id = ? OR address = ?) AND expires_at > ? RETURNING *',
      now, accountId, idOrAddress, idOrAddress.toLowerCase(), now,
    );
    return this.#acknowledged(row ? mailboxFromRow(row) : null);
  }

  async sweepExpired(now: Millis, limit = Number.MAX_SAFE_INTEGER) {
    return this.db.transaction(() => {
      const most = Math.min(limit, SWEEP_MAILBOXES_MAX);
      let budget = limit;
      let mailboxes = 0;
      let messages = 0;
      let deliveries = 0;
      let more = false;
      const ids = this.#column<string>('SELECT id FROM mailboxes WHERE expires_at <= ? ORDER BY expires_at LIMIT ?', now, most + 1);
      for (const id of ids) {
        if (budget <= 0 || mailboxes === most) {
          more = true;
          break;
        }
        // A mailbox goes once it is empty (deleting it first would cascade to every message at once).
        const d = this.#run('DELETE FROM deliveries WHERE rowid IN (SELECT rowid FROM deliveries WHERE mailbox_id = ? LIMIT ?)', id, budget).changes;
        budget -= d;
        const m = this.#run('DELETE FROM messages WHERE seq IN (SELECT seq FROM messages WHERE mailbox_id = ? LIMIT ?)', id, Math.max(budget, 0)).changes;
        budget -= m;
        deliveries += d;
        messages += m;
        if (budget <= 0 && (this.#get('SELECT 1 AS x FROM messages WHERE mailbox_id = ? LIMIT 1', id) || this.#get('SELECT 1 AS x FROM deliveries WHERE mailbox_id = ? LIMIT 1', id))) {
          more = true;
          break;
        }
        this.#run('DELETE FROM mailboxes WHERE id = ?', id);
        mailboxes++;
      }
      // Refusals are kept for a day, and the newest REFUSALS_KEPT at most.
      this.#run('DELETE FROM refusals WHERE at < ? OR seq <= (SELECT MAX(seq) FROM refusals) - ?', now - 86_400_000, REFUSALS_KEPT);
      this.#run('DELETE FROM web_sessions WHERE expires_at <= ?', now);
      this.#run('DELETE FROM sign_in_tokens WHERE expires_at <= ?', now);
      return { mailboxes, messages, deliveries, more };
    }).immediate();
  }

  // ---- several instances

  #startup: Promise<unknown> = Promise.resolve();

  /** One process owns a SQLite store: callers in it take turns. */
  withStartupLock<T>(fn: () => Promise<T>): Promise<T> {
    const turn = this.#startup.then(fn);
    this.#startup = turn.catch(() => {});
    return turn;
  }

  async close() {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writer?.close();
    await this.wal?.close();
    this.db.close();
    RETAINED.push(this.db, ...this.#statements.values());
  }
}
