// Integration: a fleet — several real instances on one PostgreSQL schema (in-process
// startServer, free ports). Mail through one instance wakes long-polls and drives webhooks
// on another; concurrent ingestion on two instances never makes a cursor reader skip or repeat
// a message; instances starting together make one admin. Skipped without PostgreSQL (under
// CI=true they fail instead).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { MailHub, resolveMailOptions, type DeliveryMode } from '../../src/index.js';
import { freshSchema, NO_POSTGRES, REQUIRE_POSTGRES, TEST_DATABASE_URL, type FreshSchema } from '../helpers/postgres.js';
import { spawnServe } from './helpers/serve-process.js';
import { ADMIN_KEY, cli, startTestService, type TestService } from './helpers/service.js';

test.skip(TEST_DATABASE_URL === undefined && !REQUIRE_POSTGRES, NO_POSTGRES);

let schema: FreshSchema;
let a: TestService;
let b: TestService;

test.beforeEach(async () => {
  schema = await freshSchema();
  // Two instances starting at once on an empty schema, with the same --api-key.
  [a, b] = await Promise.all([startTestService({ databaseUrl: schema.url }), startTestService({ databaseUrl: schema.url })]);
});
test.afterEach(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await schema?.drop();
});

async function mailbox(name: string): Promise<{ id: string; email: string }> {
  const created = await a.api('POST', '/api/emails/generate', { body: { name, expiryTime: 3_600_000 } });
  expect(created.status).toBe(201);
  return created.body;
}

test('instances started together made one admin with one key; the CLI works on the same database', async () => {
  const accounts = JSON.parse(await cli('accounts', 'list', '--json', '--database-url', schema.url)) as Array<{ email: string; admin: boolean }>;
  expect(accounts).toEqual([expect.objectContaining({ email: 'admin@mailwright.local', admin: true })]);
  const keys = JSON.parse(await cli('keys', 'list', '--email', 'admin@mailwright.local', '--json', '--database-url', schema.url)) as unknown[];
  expect(keys).toHaveLength(1);
  expect((await b.api('GET', '/api/config')).status).toBe(200);
});

test("a long-poll held on one instance answers for mail committed through the other's SMTP", async () => {
  test.setTimeout(20_000);
  const box = await mailbox('across');
  // `wait=30` is longer than this test may take: an answer means the other instance's commit woke it.
  const poll = b.api('GET', `/api/emails?mailbox=${box.id}&wait=30`);
  await expect.poll(async () => (await b.api('GET', `/api/emails?mailbox=${box.id}`)).status).toBe(200); // b serves the mailbox
  const sentAt = Date.now();
  await a.send({ from: 'app@example.com', to: box.email, subject: 'through a', text: 'hello' });
  const answer = await poll;
  test.info().annotations.push({ type: 'arrival', description: `${Date.now() - sentAt} ms from SMTP on a to the long-poll on b` });
  expect(answer.body.messages.map((m: { subject: string }) => m.subject)).toEqual(['through a']);
});

test('a listener that loses its connection reconnects and re-checks: no long-poll waits for its timeout', async () => {
  test.setTimeout(20_000);
  const box = await mailbox('reconnect');
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    // Cut every listening connection of this fleet (both instances).
    const listeners = `SELECT pid FROM pg_stat_activity WHERE application_name = 'mailwright-listen ${schema.schema}'`;
    await expect.poll(async () => (await admin.query(listeners)).rowCount).toBe(2);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM (${listeners}) l`);
    // Mail committed while b may not be listening. `wait=30` outlasts the test: a poll answers
    // only when a wake-up (a notification, or the re-check after reconnecting) makes it look.
    const { cursor: start } = (await b.api('GET', `/api/emails?mailbox=${box.id}`)).body as { cursor: string };
    const seen: string[] = [];
    const reader = (async () => {
      let cursor = start;
      for (let round = 0; round < 10 && seen.length === 0; round++) {
        const page = (await b.api('GET', `/api/emails?mailbox=${box.id}&after=${cursor}&wait=30`)).body as { cursor: string; messages: Array<{ subject: string }> };
        seen.push(...page.messages.map((m) => m.subject));
        cursor = page.cursor;
      }
    })();
    await a.send({ from: 'app@example.com', to: box.email, subject: 'while cut off', text: 'x' });
    await reader;
    expect(seen).toEqual(['while cut off']);
    await expect.poll(async () => (await admin.query(listeners)).rowCount).toBe(2); // both listen again
  } finally {
    await admin.end();
  }
});

test('concurrent ingestion on two instances: a cursor reader sees every message exactly once', async () => {
  test.setTimeout(60_000);
  const box = await mailbox('cursor');
  const perInstance = 25;
  const transports = [a, b].map((s) => nodemailer.createTransport({ host: '127.0.0.1', port: s.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 3 }));
  const sending = Promise.all(
    transports.flatMap((t, i) => Array.from({ length: perInstance }, (_, n) => t.sendMail({ from: 'app@example.com', to: box.email, subject: `m-${i}-${n}`, text: 'x' }))),
  );
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let round = 0; round < 400 && seen.length < 2 * perInstance; round++) {
    const page = await a.api('GET', `/api/emails?mailbox=${box.id}&limit=7&wait=2${cursor ? `&after=${cursor}` : ''}`);
    expect(page.status).toBe(200);
    seen.push(...page.body.messages.map((m: { subject: string }) => m.subject));
    cursor = page.body.cursor;
  }
  await sending;
  for (const t of transports) t.close();
  expect(new Set(seen).size).toBe(seen.length); // none twice
  expect(seen.sort()).toEqual(Array.from({ length: 2 }, (_, i) => Array.from({ length: perInstance }, (_, n) => `m-${i}-${n}`)).flat().sort()); // none skipped
});

test('a transaction held open while the other instance commits: the API cursor waits for it, then gives every message once', async () => {
  test.setTimeout(60_000);
  const held = await mailbox('held');
  const busy = await mailbox('busy');
  const holder = new pg.Client({ connectionString: schema.url });
  await holder.connect();
  try {
    const { cursor: start } = (await b.api('GET', '/api/emails')).body as { cursor: string };
    // The held mailbox's row is locked: a's insert into it takes its position, then waits uncommitted.
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM mailboxes WHERE id = $1 FOR UPDATE', [held.id]);
    const late = a.send({ from: 'app@example.com', to: held.email, subject: 'late', text: 'x' });
    await expect.poll(async () => (await holder.query('SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [(holder as unknown as { processID: number }).processID])).rows[0].n).toBe(1);
    for (let i = 0; i < 3; i++) await b.send({ from: 'app@example.com', to: busy.email, subject: `early ${i}`, text: 'x' });
    // Stored (the mailbox view shows them), but a cursor must not pass the position the late one holds.
    expect((await b.api('GET', `/api/emails/${busy.id}`)).body.messages).toHaveLength(3);
    const waiting = (await b.api('GET', `/api/emails?after=${start}`)).body as { cursor: string; messages: unknown[] };
    expect(waiting.messages).toEqual([]);
    await holder.query('COMMIT');
    await late;
    const seen: string[] = [];
    let cursor = waiting.cursor;
    for (let round = 0; round < 20 && seen.length < 4; round++) {
      const page = (await a.api('GET', `/api/emails?after=${cursor}&limit=2&wait=5`)).body as { cursor: string; messages: Array<{ subject: string }> };
      seen.push(...page.messages.map((m) => m.subject));
      cursor = page.cursor;
    }
    expect(seen).toEqual(['late', 'early 0', 'early 1', 'early 2']);
  } finally {
    await holder.query('ROLLBACK').catch(() => {});
    await holder.end();
  }
});

test('kill -9 of an instance under load: every message it acknowledged is stored, once, and read once by a cursor', async () => {
  test.setTimeout(90_000);
  const box = await mailbox('crash');
  const doomed = await spawnServe(['--database-url', schema.url, '--api-key', ADMIN_KEY]);
  const acknowledged: string[] = [];
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: doomed.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 4 });
  try {
    let n = 0;
    const lanes = Array.from({ length: 4 }, async () => {
      for (;;) {
        const subject = `load ${n++}`;
        try {
          await transport.sendMail({ from: 'app@example.com', to: box.email, subject, text: 'x' });
        } catch {
          return; // the instance is gone: this one was not acknowledged
        }
        acknowledged.push(subject);
      }
    });
    await expect.poll(() => acknowledged.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(40);
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    await Promise.all(lanes);
  } finally {
    doomed.child.kill('SIGKILL');
    transport.close();
  }
  const seen: string[] = [];
  let cursor: string | undefined;
  // Pages until every acknowledged message was read (a long-poll answers once the horizon passes them).
  for (let round = 0; round < 100 && !acknowledged.every((subject) => seen.includes(subject)); round++) {
    const page = (await b.api('GET', `/api/emails?mailbox=${box.id}&limit=25&wait=2${cursor ? `&after=${cursor}` : ''}`)).body as { cursor: string; messages: Array<{ subject: string }> };
    seen.push(...page.messages.map((m) => m.subject));
    cursor = page.cursor;
  }
  expect(new Set(seen).size).toBe(seen.length); // stored once
  for (const subject of acknowledged) expect(seen).toContain(subject); // nothing acknowledged is lost
});

test('mail through one instance is delivered once to a webhook registered through the other', async () => {
  test.setTimeout(30_000);
  const received: string[] = [];
  const receiver: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const event = JSON.parse(body) as { type: string; data: { id: string } };
      if (event.type === 'message.received') received.push(event.data.id);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const hook = await a.api('POST', '/api/config/webhooks', { body: { url } });
    expect(hook.status).toBe(201);
    const box = await mailbox('hooked');
    for (let i = 0; i < 5; i++) await b.send({ from: 'app@example.com', to: box.email, subject: `hook ${i}`, text: 'x' });
    await expect.poll(() => received.length).toBe(5);
    const log = await a.api('GET', `/api/config/webhooks/${hook.body.id}/deliveries`, { key: ADMIN_KEY });
    const delivered = log.body.deliveries.filter((d: { event: string }) => d.event === 'message.received');
    expect(delivered).toHaveLength(5);
    for (const d of delivered) expect(d).toMatchObject({ status: 'delivered', attempts: [expect.objectContaining({ ok: true })] });
    expect(new Set(received).size).toBe(5);
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});

test('kill -9 of the instance holding a delivery lease: the other instance delivers it', async () => {
  test.setTimeout(60_000);
  // The receiver holds the first attempt open (the sender is killed meanwhile) and answers later ones.
  const attempts: string[] = [];
  let firstAttempt: () => void = () => {};
  const firstArrived = new Promise<void>((resolve) => (firstAttempt = resolve));
  const receiver: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if ((JSON.parse(body) as { type: string }).type !== 'message.received') return void res.writeHead(204).end();
      attempts.push(body);
      if (attempts.length === 1) return firstAttempt(); // never answered
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  // The instance that will die, as a real process, with a short webhook timeout (lease = timeout + 5 s).
  const doomed = await spawnServe(['--database-url', schema.url, '--api-key', ADMIN_KEY, '--webhook-timeout', '2s']);
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    expect((await a.api('POST', '/api/config/webhooks', { body: { url } })).status).toBe(201);
    const box = await mailbox('leased');
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: doomed.smtpPort, secure: false, ignoreTLS: true });
    await transport.sendMail({ from: 'app@example.com', to: box.email, subject: 'survives its sender', text: 'x' });
    transport.close();
    await firstArrived; // the doomed instance holds the lease and is mid-attempt
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    await expect.poll(() => attempts.length, { timeout: 30_000 }).toBe(2);
    expect(JSON.parse(attempts[1]!).data.subject).toBe('survives its sender');
  } finally {
    doomed.child.kill('SIGKILL');
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});

test('the Playwright fixture with its workers on different instances: every wait resolves', async () => {
  // Workers are hubs; each talks to its own instance while the app mails through the other.
  const hub = (service: TestService, delivery: DeliveryMode) => MailHub.start(resolveMailOptions([{ baseURL: service.httpUrl, apiKey: ADMIN_KEY, delivery }], {}));
  await using onA = await hub(a, 'webhook');
  await using onB = await hub(b, 'poll');
  const first = await onA.createInbox();
  const second = await onB.createInbox();
  await b.send({ from: 'app@example.com', to: first.address, subject: 'code for a', text: 'Your code is 604211' });
  await a.send({ from: 'app@example.com', to: second.address, subject: 'code for b', text: 'Your code is 918273' });
  expect(await first.waitForCode({ subject: 'code for a' })).toBe('604211');
  expect(await second.waitForCode({ subject: 'code for b' })).toBe('918273');
  expect(onA.delivery).toBe('webhook');
});
