#!/usr/bin/env node
// Scale-out benchmark: the embedded SQLite store beside a fleet of two instances on one
// PostgreSQL database, measured in the same run (ratios; this machine is noisy).
//  1. Ingestion: SMTP messages/s stored durably — SQLite (one instance) vs Postgres with the
//     load split over two instances' SMTP ports.
//  2. Arrival: SMTP send -> a long-poll held on an instance sees the message; for the fleet
//     the long-poll is held on the *other* instance (LISTEN/NOTIFY wake-up).
// Needs PostgreSQL: MAILWRIGHT_BENCH_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test.
// Run `npm run build && npm run bench:fleet`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { startServer } from '../dist/server/index.js';

const KEY = 'mw_bench_key_0123456789';
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const CONCURRENCY = 8;
const DATABASE = process.env.MAILWRIGHT_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const fmt = (n, digits = 1) => n.toFixed(digits).padStart(8);
const api = (server, path, init = {}) =>
  fetch(server.httpUrl + path, { ...init, headers: { 'x-api-key': KEY, 'content-type': 'application/json', ...init.headers } }).then((r) => r.json());

async function freshSchema() {
  const schema = `mw_bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: DATABASE });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(DATABASE);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: DATABASE });
      await client.connect();
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    },
  };
}

/** Sends `count` messages spread over the SMTP ports, CONCURRENCY connections in all; msgs/s. */
async function blast(ports, to, count) {
  const transports = ports.map((port) => nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: true, maxConnections: Math.ceil(CONCURRENCY / ports.length), maxMessages: Infinity }));
  const body = `Hello,\n\nYour verification code is 482913.\n\n${'Lorem ipsum dolor sit amet. '.repeat(60)}\n`;
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async (_, lane) => {
    const transport = transports[lane % transports.length];
    while (next < count) {
      const i = next++;
      await transport.sendMail({ from: 'load@example.test', to, subject: `load ${i}`, text: body, html: `<p>${body}</p>` });
    }
  }));
  const rate = count / ((performance.now() - started) / 1000);
  for (const t of transports) t.close();
  return rate;
}

/** p50/p95 ms from an SMTP send through `sender` to a long-poll held on `reader`. */
async function arrival(sender, reader) {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: sender.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1 });
  const latencies = [];
  for (let round = -1; round < ROUNDS; round++) {
    const box = await api(reader, '/api/emails/generate', { method: 'POST', body: JSON.stringify({ expiryTime: 3_600_000 }) });
    const { cursor } = await api(reader, `/api/emails?mailbox=${box.id}`);
    const seen = api(reader, `/api/emails?mailbox=${box.id}&after=${cursor}&wait=10`).then(() => performance.now());
    await new Promise((r) => setTimeout(r, 20)); // the long-poll is held before the app sends
    const sentAt = performance.now();
    await transport.sendMail({ from: 'app@example.test', to: box.email, subject: `arrival ${round}`, text: 'Your code is 123456' });
    const at = await seen;
    if (round >= 0) latencies.push(at - sentAt);
  }
  transport.close();
  return { p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95) };
}

const dir = mkdtempSync(join(tmpdir(), 'mailwright-fleet-bench-'));
const sqlite = await startServer({ httpPort: 0, smtpPort: 0, data: join(dir, 'bench.db'), apiKey: KEY, logLevel: 'silent' });
const schema = await freshSchema();
const fleet = await Promise.all([0, 1].map(() => startServer({ httpPort: 0, smtpPort: 0, databaseUrl: schema.url, apiKey: KEY, logLevel: 'silent' })));
try {
  const sqliteBox = await api(sqlite, '/api/emails/generate', { method: 'POST', body: JSON.stringify({ expiryTime: 3_600_000 }) });
  const fleetBox = await api(fleet[0], '/api/emails/generate', { method: 'POST', body: JSON.stringify({ expiryTime: 3_600_000 }) });
  const rates = { sqlite: [], fleet: [] };
  for (let i = 0; i < 2; i++) {
    rates.sqlite.push(await blast([sqlite.smtpPort], sqliteBox.email, MESSAGES / 2));
    rates.fleet.push(await blast(fleet.map((s) => s.smtpPort), fleetBox.email, MESSAGES / 2));
  }
  const mean = (xs) => xs.reduce((a, b) => a + b) / xs.length;
  const lite = mean(rates.sqlite);
  const pgRate = mean(rates.fleet);
  console.log(`\nIngestion: ${MESSAGES} messages (~3.5 KB, text+html), ${CONCURRENCY} connections, durable before 250`);
  console.log('store                                         msgs/s   vs SQLite');
  console.log(`SQLite, one instance                      ${fmt(lite, 0)}       1.00x`);
  console.log(`PostgreSQL, two instances (load split)    ${fmt(pgRate, 0)}       ${(pgRate / lite).toFixed(2)}x`);

  const a = await arrival(sqlite, sqlite);
  const b = await arrival(fleet[0], fleet[1]);
  console.log(`\nArrival: SMTP send -> long-poll sees it (${ROUNDS} rounds, after 1 warm-up)`);
  console.log('path                                           p50 ms   p95 ms   p50 vs SQLite');
  console.log(`SQLite, same instance                      ${fmt(a.p50)} ${fmt(a.p95)}       1.00x`);
  console.log(`PostgreSQL, sent to one, polled on other   ${fmt(b.p50)} ${fmt(b.p95)}       ${(b.p50 / a.p50).toFixed(2)}x`);
} finally {
  await Promise.all([sqlite.close(), ...fleet.map((s) => s.close())]);
  await schema.drop();
}
