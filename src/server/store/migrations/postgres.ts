// Owns the Postgres schema as numbered migrations; applied in order, each once, under an
// advisory lock so that instances starting together on an empty database migrate once.
// Times are epoch ms (BIGINT); JSON fields are TEXT, as in SQLite, so both backends share
// their row mappers.
export const POSTGRES_MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL,
  is_admin BOOLEAN NOT NULL DEFAULT FALSE,
  password_hash TEXT,
  created_at BIGINT NOT NULL
);
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  scopes TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT,
  last_used_at BIGINT
);
CREATE TABLE quota_usage (
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  period TEXT NOT NULL,
  used BIGINT NOT NULL,
  PRIMARY KEY (account_id, period)
);
CREATE TABLE top_ups (
  id BIGSERIAL PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  period TEXT NOT NULL,
  calls BIGINT NOT NULL,
  source TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX top_ups_account_period ON top_ups(account_id, period);
CREATE TABLE redeem_codes (
  hash TEXT PRIMARY KEY,
  calls BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  redeemed_by TEXT,
  redeemed_at BIGINT
);
CREATE TABLE mailboxes (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  address TEXT NOT NULL UNIQUE,
  webhook_id TEXT,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX mailboxes_account ON mailboxes(account_id, expires_at);
CREATE INDEX mailboxes_expiry ON mailboxes(expires_at);
-- seq is taken from this sequence only under the message-commit advisory lock (see the store).
CREATE SEQUENCE message_seq;
CREATE TABLE messages (
  seq BIGINT PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL,
  mailbox_id TEXT NOT NULL REFERENCES mailboxes(id) ON DELETE CASCADE,
  mailbox TEXT NOT NULL,
  from_json TEXT,
  to_json TEXT NOT NULL,
  cc_json TEXT NOT NULL,
  subject TEXT NOT NULL,
  received_at BIGINT NOT NULL,
  size BIGINT NOT NULL,
  headers_json TEXT NOT NULL,
  text_body TEXT,
  html_body TEXT,
  attachments_json TEXT NOT NULL,
  raw BYTEA NOT NULL
);
CREATE INDEX messages_account_seq ON messages(account_id, seq);
CREATE INDEX messages_mailbox_seq ON messages(mailbox_id, seq);
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  secret TEXT NOT NULL,
  catch_all BOOLEAN NOT NULL DEFAULT TRUE,
  refusing_since BIGINT,
  created_at BIGINT NOT NULL
);
CREATE INDEX webhooks_account ON webhooks(account_id);
CREATE TABLE deliveries (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  account_id TEXT NOT NULL,
  event TEXT NOT NULL,
  message_id TEXT,
  mailbox_id TEXT,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT,
  created_at BIGINT NOT NULL,
  ord BIGSERIAL
);
CREATE INDEX deliveries_due ON deliveries(status, next_attempt_at);
CREATE INDEX deliveries_webhook ON deliveries(webhook_id, created_at);
CREATE INDEX deliveries_mailbox ON deliveries(mailbox_id);
CREATE TABLE delivery_attempts (
  delivery_id TEXT NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  at BIGINT NOT NULL,
  duration_ms INTEGER NOT NULL,
  status_code INTEGER,
  error TEXT,
  ok BOOLEAN NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);
CREATE TABLE refusals (
  seq BIGSERIAL PRIMARY KEY,
  at BIGINT NOT NULL,
  address TEXT NOT NULL,
  reason TEXT NOT NULL,
  reply TEXT NOT NULL,
  mail_from TEXT,
  account_id TEXT
);
CREATE INDEX refusals_at ON refusals(at);
CREATE INDEX refusals_account ON refusals(account_id, at);
CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE web_sessions (
  id_hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  data TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX web_sessions_account ON web_sessions(account_id);
CREATE INDEX web_sessions_expiry ON web_sessions(expires_at);
CREATE TABLE sign_in_tokens (
  hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  expires_at BIGINT NOT NULL,
  used_at BIGINT
);
CREATE INDEX sign_in_tokens_expiry ON sign_in_tokens(expires_at);
`,
  },
  {
    // A message is kept once, as received: its headers, text, HTML and attachment list are read
    // from the source when asked for, not stored beside it.
    version: 2,
    sql: `
ALTER TABLE messages DROP COLUMN headers_json, DROP COLUMN text_body, DROP COLUMN html_body, DROP COLUMN attachments_json;
`,
  },
  {
    // Positions without a fleet-wide lock: a message's seq is its transaction id times 2^16
    // plus its place in the transaction (set by the insert; see postgres-messages.ts), so the
    // sequence is no longer used. Routing facts that the instances cache for SMTP recipient
    // look-ups (a mailbox ended or removed, an account's webhooks added or removed) are
    // announced on the schema's routing channel by triggers, whoever makes the change.
    version: 3,
    sql: `
DROP SEQUENCE IF EXISTS message_seq;
CREATE FUNCTION mailwright_routing_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'mailboxes' THEN
    PERFORM pg_notify('mailwright_routing:' || TG_TABLE_SCHEMA, 'm ' || OLD.address);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('mailwright_routing:' || TG_TABLE_SCHEMA, 'a ' || OLD.account_id);
  ELSE
    PERFORM pg_notify('mailwright_routing:' || TG_TABLE_SCHEMA, 'a ' || NEW.account_id);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER mailboxes_routing AFTER UPDATE OR DELETE ON mailboxes FOR EACH ROW EXECUTE FUNCTION mailwright_routing_changed();
CREATE TRIGGER webhooks_routing AFTER INSERT OR DELETE ON webhooks FOR EACH ROW EXECUTE FUNCTION mailwright_routing_changed();
`,
  },
  {
    // The recipient look-up carries its account's routing (which webhooks a live mailbox is
    // bound to), so a mailbox bound to a webhook coming or going changes the routing of its
    // account's other mailboxes: it is announced for the account, whoever makes the change.
    version: 4,
    sql: `
CREATE OR REPLACE FUNCTION mailwright_routing_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'mailboxes' THEN
    IF TG_OP = 'INSERT' THEN
      PERFORM pg_notify('mailwright_routing:' || TG_TABLE_SCHEMA, 'a ' || NEW.account_id);
    ELSIF OLD.webhook_id IS NULL THEN
      PERFORM pg_notify('mailwright_routing:' || TG_TABLE_SCHEMA, 'm ' || OLD.address);
    ELSE
      PERFORM pg_notify('mailwright_routing:' || TG_TABLE_SCHEMA, 'a ' || OLD.account_id);
    END IF;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('mailwright_routing:' || TG_TABLE_SCHEMA, 'a ' || OLD.account_id);
  ELSE
    PERFORM pg_notify('mailwright_routing:' || TG_TABLE_SCHEMA, 'a ' || NEW.account_id);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER mailboxes_bound AFTER INSERT ON mailboxes FOR EACH ROW WHEN (NEW.webhook_id IS NOT NULL) EXECUTE FUNCTION mailwright_routing_changed();
`,
  },
  {
    // One round trip per batch of messages: the insert (its copies and their deliveries)
    // commits, then the announcement to the other instances commits on its own, without
    // waiting for its flush (PostgreSQL serialises the commits of notifying transactions, so
    // the notification must not share the insert's), then the horizon is read; all in one
    // CALL (see postgres-messages.ts). The sources come as one bytea, each message a slice.
    version: 5,
    sql: `
CREATE PROCEDURE mailwright_ingest(
  p_from TEXT[], p_to TEXT[], p_cc TEXT[], p_subject TEXT[], p_received_at BIGINT[], p_size BIGINT[], p_start BIGINT[], p_raws BYTEA,
  p_copy_message INT[], p_copy_mailbox TEXT[], p_copy_id TEXT[],
  p_delivery_id TEXT[], p_delivery_message TEXT[], p_delivery_webhook TEXT[],
  p_channel TEXT, p_instance TEXT,
  INOUT seqs TEXT[] DEFAULT NULL, INOUT ids TEXT[] DEFAULT NULL, INOUT accounts TEXT[] DEFAULT NULL, INOUT addresses TEXT[] DEFAULT NULL,
  INOUT deliveries TEXT[] DEFAULT NULL, INOUT horizon TEXT DEFAULT NULL
) LANGUAGE plpgsql AS $$
DECLARE
  tx BIGINT := pg_current_xact_id()::text::bigint;
  summaries TEXT;
BEGIN
  WITH src AS (
    SELECT s.*, substring(p_raws FROM s.start::int + 1 FOR s.size::int) AS raw
    FROM unnest(p_from, p_to, p_cc, p_subject, p_received_at, p_size, p_start) WITH ORDINALITY AS s(from_json, to_json, cc_json, subject, received_at, size, start, m)
  ), cp AS (
    SELECT * FROM unnest(p_copy_message, p_copy_mailbox, p_copy_id) WITH ORDINALITY AS c(m, mailbox_id, id, n)
  ), ins AS (
    INSERT INTO messages (seq, id, account_id, mailbox_id, mailbox, from_json, to_json, cc_json, subject, received_at, size, raw)
    SELECT (tx << 16) + c.n, c.id, b.account_id, b.id, b.address, s.from_json, s.to_json, s.cc_json, s.subject, s.received_at, s.size, s.raw
    FROM cp c JOIN src s ON s.m = c.m JOIN mailboxes b ON b.id = c.mailbox_id AND b.expires_at > s.received_at
    RETURNING seq, id, account_id, mailbox_id, mailbox, from_json, to_json, cc_json, subject, received_at, size
  ), dl AS (
    INSERT INTO deliveries (id, webhook_id, account_id, event, message_id, mailbox_id, status, attempts, next_attempt_at, created_at)
    SELECT d.id, w.id, w.account_id, 'message.received', i.id, i.mailbox_id, 'pending', 0, i.received_at, i.received_at
    FROM unnest(p_delivery_id, p_delivery_message, p_delivery_webhook) AS d(id, message_id, webhook_id)
    JOIN ins i ON i.id = d.message_id JOIN webhooks w ON w.id = d.webhook_id AND w.account_id = i.account_id
    RETURNING id
  )
  SELECT array_agg(i.seq::text ORDER BY i.seq), array_agg(i.id ORDER BY i.seq), array_agg(i.account_id ORDER BY i.seq), array_agg(i.mailbox ORDER BY i.seq),
    (SELECT array_agg(id) FROM dl),
    json_agg(json_build_array(i.seq, i.id, i.account_id, i.mailbox_id, i.mailbox, i.from_json::json, i.to_json::json, i.cc_json::json, i.subject, i.received_at, i.size) ORDER BY i.seq)::text
  INTO seqs, ids, accounts, addresses, deliveries, summaries FROM ins i;
  COMMIT;
  IF seqs IS NOT NULL THEN
    -- The notification is not durable itself (the messages are): its commit does not wait for
    -- the flush, so it holds PostgreSQL's notification lock only briefly. Its summaries ride
    -- along when they fit in a payload (8000 bytes), else the listeners read them.
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM pg_notify(p_channel, p_instance || ' ' || tx || ' ' || CASE WHEN deliveries IS NULL THEN '-' ELSE 'd' END || ' '
      || (pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16) || E'\\n' || CASE WHEN octet_length(summaries) <= 7000 THEN summaries ELSE '' END);
    COMMIT;
  END IF;
  horizon := (pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16)::text;
END $$;
`,
  },
  {
    // Failed sign-ins counted in the store (shared by a fleet, kept across a restart), each under
    // a key that names who failed from where (hashed): a window opens with the first failure.
    version: 6,
    sql: `
CREATE TABLE sign_in_failures (key TEXT PRIMARY KEY, count INTEGER NOT NULL, window_ends_at BIGINT NOT NULL);
CREATE INDEX sign_in_failures_window ON sign_in_failures(window_ends_at);
`,
  },
  {
    // Fault rules per mailbox (what SMTP does instead of its normal answer), gone with their
    // mailbox. The recipient look-up carries a mailbox's rules not yet spent, so a rule added,
    // spent or cleared is announced for its mailbox's address, and the fleet's caches forget it.
    version: 7,
    sql: `
CREATE TABLE faults (
  id TEXT PRIMARY KEY,
  mailbox_id TEXT NOT NULL REFERENCES mailboxes(id) ON DELETE CASCADE,
  stage TEXT NOT NULL,
  code INTEGER,
  enhanced_code TEXT,
  message TEXT,
  delay_ms INTEGER,
  disconnect BOOLEAN NOT NULL,
  times INTEGER,
  hits INTEGER NOT NULL DEFAULT 0,
  probability DOUBLE PRECISION NOT NULL,
  created_at BIGINT NOT NULL,
  ord BIGSERIAL
);
CREATE INDEX faults_mailbox ON faults(mailbox_id, created_at);
CREATE FUNCTION mailwright_faults_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  address TEXT := (SELECT m.address FROM mailboxes m WHERE m.id = COALESCE(NEW.mailbox_id, OLD.mailbox_id));
BEGIN
  IF address IS NOT NULL THEN
    PERFORM pg_notify('mailwright_routing:' || TG_TABLE_SCHEMA, 'm ' || address);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER faults_added AFTER INSERT OR DELETE ON faults FOR EACH ROW EXECUTE FUNCTION mailwright_faults_changed();
CREATE TRIGGER faults_spent AFTER UPDATE ON faults FOR EACH ROW WHEN (NEW.times IS NOT NULL AND NEW.hits >= NEW.times) EXECUTE FUNCTION mailwright_faults_changed();
`,
  },
];
