// Owns the SQLite schema as numbered migrations; applied in order, each once.
export const SQLITE_MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL,
  is_admin INTEGER NOT NULL DEFAULT 0,
  password_hash TEXT,
  created_at INTEGER NOT NULL
);
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  scopes TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE TABLE quota_usage (
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  period TEXT NOT NULL,
  used INTEGER NOT NULL,
  PRIMARY KEY (account_id, period)
);
CREATE TABLE top_ups (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  period TEXT NOT NULL,
  calls INTEGER NOT NULL,
  source TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX top_ups_account_period ON top_ups(account_id, period);
CREATE TABLE redeem_codes (
  hash TEXT PRIMARY KEY,
  calls INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  redeemed_by TEXT,
  redeemed_at INTEGER
);
CREATE TABLE mailboxes (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  address TEXT NOT NULL UNIQUE,
  webhook_id TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX mailboxes_account ON mailboxes(account_id, expires_at);
CREATE INDEX mailboxes_expiry ON mailboxes(expires_at);
CREATE TABLE messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL,
  mailbox_id TEXT NOT NULL REFERENCES mailboxes(id) ON DELETE CASCADE,
  mailbox TEXT NOT NULL,
  from_json TEXT,
  to_json TEXT NOT NULL,
  cc_json TEXT NOT NULL,
  subject TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  size INTEGER NOT NULL,
  headers_json TEXT NOT NULL,
  text_body TEXT,
  html_body TEXT,
  attachments_json TEXT NOT NULL,
  raw BLOB NOT NULL
);
CREATE INDEX messages_account_seq ON messages(account_id, seq);
CREATE INDEX messages_mailbox_seq ON messages(mailbox_id, seq);
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  secret TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX webhooks_account ON webhooks(account_id);
CREATE TABLE deliveries (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  account_id TEXT NOT NULL,
  event TEXT NOT NULL,
  message_id TEXT,
  mailbox_id TEXT,
  payload TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX deliveries_due ON deliveries(status, next_attempt_at);
CREATE INDEX deliveries_webhook ON deliveries(webhook_id, created_at);
CREATE INDEX deliveries_mailbox ON deliveries(mailbox_id);
CREATE TABLE delivery_attempts (
  delivery_id TEXT NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  at INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  status_code INTEGER,
  error TEXT,
  ok INTEGER NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);
`,
  },
  {
    version: 2,
    sql: 'ALTER TABLE webhooks ADD COLUMN catch_all INTEGER NOT NULL DEFAULT 1;',
  },
  {
    version: 3,
    sql: `
CREATE TABLE refusals (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  address TEXT NOT NULL,
  reason TEXT NOT NULL,
  reply TEXT NOT NULL,
  mail_from TEXT,
  account_id TEXT
);
CREATE INDEX refusals_at ON refusals(at);
CREATE INDEX refusals_account ON refusals(account_id, at);
`,
  },
  {
    // Webhook bodies are built from the stored message at send time, not stored; delivery
    // remembers a target that refused every connection for a whole retry schedule.
    version: 4,
    sql: `
ALTER TABLE deliveries DROP COLUMN payload;
ALTER TABLE webhooks ADD COLUMN refusing_since INTEGER;
`,
  },
  {
    // The web UI: when a key was last used, the session signing key, sessions and one-time sign-in links.
    version: 5,
    sql: `
ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;
CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE web_sessions (
  id_hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  data TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX web_sessions_account ON web_sessions(account_id);
CREATE INDEX web_sessions_expiry ON web_sessions(expires_at);
CREATE TABLE sign_in_tokens (
  hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE INDEX sign_in_tokens_expiry ON sign_in_tokens(expires_at);
`,
  },
  {
    // A message is kept once, as received: its headers, text, HTML and attachment list are read
    // from the source when asked for, not stored beside it.
    version: 6,
    sql: `
ALTER TABLE messages DROP COLUMN headers_json;
ALTER TABLE messages DROP COLUMN text_body;
ALTER TABLE messages DROP COLUMN html_body;
ALTER TABLE messages DROP COLUMN attachments_json;
`,
  },
  {
    // A message costs its commit two b-tree pages fewer: no index of its own on the id (a new id
    // carries the seq, see sqlite-messages.ts; the ids of messages stored before this version are
    // found in message_ids) and no AUTOINCREMENT counter rewritten on every insert. What that
    // counter kept, that no seq is ever given twice even after the newest messages are deleted,
    // messages_seq keeps: the highest seq deleted, written by the trigger on deletes only.
    version: 7,
    sql: `
CREATE TABLE messages_v7 (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  mailbox_id TEXT NOT NULL REFERENCES mailboxes(id) ON DELETE CASCADE,
  mailbox TEXT NOT NULL,
  from_json TEXT,
  to_json TEXT NOT NULL,
  cc_json TEXT NOT NULL,
  subject TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  size INTEGER NOT NULL,
  raw BLOB NOT NULL
);
INSERT INTO messages_v7 (seq, id, account_id, mailbox_id, mailbox, from_json, to_json, cc_json, subject, received_at, size, raw)
  SELECT seq, id, account_id, mailbox_id, mailbox, from_json, to_json, cc_json, subject, received_at, size, raw FROM messages ORDER BY seq;
CREATE TABLE message_ids (id TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO message_ids (id, seq) SELECT id, seq FROM messages;
CREATE TABLE messages_seq (seq INTEGER NOT NULL);
INSERT INTO messages_seq (seq) VALUES (COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'messages'), 0));
DROP TABLE messages;
ALTER TABLE messages_v7 RENAME TO messages;
CREATE INDEX messages_account_seq ON messages(account_id, seq);
CREATE INDEX messages_mailbox_seq ON messages(mailbox_id, seq);
CREATE TRIGGER messages_deleted AFTER DELETE ON messages BEGIN
  UPDATE messages_seq SET seq = old.seq WHERE seq < old.seq;
  DELETE FROM message_ids WHERE id = old.id;
END;
`,
  },
  {
    // Failed sign-ins counted in the store (shared by a fleet, kept across a restart), each under
    // a key that names who failed from where (hashed): a window opens with the first failure.
    version: 8,
    sql: `
CREATE TABLE sign_in_failures (key TEXT PRIMARY KEY, count INTEGER NOT NULL, window_ends_at INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX sign_in_failures_window ON sign_in_failures(window_ends_at);
`,
  },
  {
    // Fault rules per mailbox (what SMTP does instead of its normal answer), gone with their mailbox.
    version: 9,
    sql: `
CREATE TABLE faults (
  id TEXT PRIMARY KEY,
  mailbox_id TEXT NOT NULL REFERENCES mailboxes(id) ON DELETE CASCADE,
  stage TEXT NOT NULL,
  code INTEGER,
  enhanced_code TEXT,
  message TEXT,
  delay_ms INTEGER,
  disconnect INTEGER NOT NULL,
  times INTEGER,
  hits INTEGER NOT NULL DEFAULT 0,
  probability REAL NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX faults_mailbox ON faults(mailbox_id, created_at);
`,
  },
];
