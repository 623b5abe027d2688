#!/usr/bin/env node
// Scale-out benchmark: a fleet of 1, 2 and 4 `mailwright serve` processes on one PostgreSQL
// database (a fresh schema per row), beside one SQLite instance. Each instance is loaded by its
// own SMTP client (postfix's smtp-source when found, else nodemailer; ~2 KB messages), all at
// once; fleet msgs/s = all messages / wall time, and the ratio to one instance of the same
// setup. "0.5 ms" rows put a delay proxy of this script's own between every instance and
// PostgreSQL, holding what it forwards 0.5 ms each way (a same-zone network; the measured
// round trip is printed). After each row every message acknowledged is counted in the store:
// stored once, none lost. A last row of each 5-session group loads 4 instances again while a
// probe sends through instance 1 to a long-poll held on instance 2 and to a webhook (claimed
// with SKIP LOCKED); its API calls count quota on the shared store, and every instance runs
// the sweeper meanwhile. The other rows run without it, so their ratios compare like with like.
//
// Needs PostgreSQL: MAILWRIGHT_BENCH_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test.
// Each instance is warmed up first, with the same number of messages whatever the
// number of instances (BENCH_WARMUP, default 1000): its connections, caches and compiled
// code as in a long-running fleet. Four instances share the warm-up one gets in a quarter of
// the time, and a short row would otherwise measure V8 still compiling on every instance.
// BENCH_MESSAGES sets the messages per session of each row (default 150). Run
// `npm run build && npm run bench:fleet`.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { SERVICE_NODE_FLAGS } from '../dist/playwright/config.js';
import { api, fmt, KEY, loadClient, mailbox, quantile, send } from './harness.js';

const DATABASE = process.env.MAILWRIGHT_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PER_SESSION = Number(process.env.BENCH_MESSAGES ?? 150);
const WARM_UP = Number(process.env.BENCH_WARMUP ?? 1000);
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** Median ms of a `SELECT 1` round trip at `url`. */
async function roundTrip(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  for (let i = 0; i < 20; i++) await client.query('SELECT 1');
  const times = [];
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    await client.query('SELECT 1');
    times.push(performance.now() - started);
  }
  await client.end();
  return quantile(times, 0.5);
}

/**
 * A TCP proxy to `target` that holds every chunk before passing it on, so that a round trip
 * through it takes `extraMs` more than a direct one (0.5 ms each way by default). Node's timers
 * count whole milliseconds, so a thread of its own sleeps the fractions (Atomics.wait) and
 * wakes this one when the oldest held chunk is due; that hand-over takes time too, so the hold
 * is calibrated by the first proxy: measured round trips, and the hold corrected by what they
 * missed. Later proxies (one per row) hold the same, so that every row has the same delay.
 */
let calibrated = null;
async function delayProxy(target, extraMs = 1) {
  let delayMs = calibrated ?? extraMs / 2;
  const queue = [];
  const sleeper = new Worker(`const { parentPort } = require('node:worker_threads');
    const cell = new Int32Array(new SharedArrayBuffer(4));
    parentPort.on('message', (ms) => { if (ms > 0) Atomics.wait(cell, 0, 0, ms); parentPort.postMessage(0); });`, { eval: true });
  let asleep = false;
  const sleep = () => {
    if (asleep || queue.length === 0) return;
    asleep = true;
    sleeper.postMessage(queue[0].due - performance.now());
  };
  sleeper.on('message', () => {
    asleep = false;
    const now = performance.now();
    while (queue.length > 0 && queue[0].due <= now) {
      const { socket, chunk } = queue.shift();
      if (!socket.destroyed) socket.write(chunk);
    }
    sleep();
  });
  const hold = (socket, chunk) => {
    queue.push({ socket, chunk, due: performance.now() + delayMs });
    sleep();
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.on('data', (chunk) => hold(upstream, chunk));
    upstream.on('data', (chunk) => hold(client, chunk));
    const end = () => { client.destroy(); upstream.destroy(); };
    for (const s of [client, upstream]) { s.on('close', end); s.on('error', end); }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  const direct = calibrated === null ? await roundTrip(target.toString()) : 0;
  const through = new URL(target);
  through.hostname = '127.0.0.1';
  through.port = String(port);
  for (let round = 0; calibrated === null && round < 4; round++) {
    const missed = direct + extraMs - (await roundTrip(through.toString()));
    delayMs = Math.max(0, delayMs + missed / 2);
  }
  calibrated = delayMs;
  return {
    port,
    holdMs: delayMs,
    async close() {
      server.close();
      for (const { socket } of queue.splice(0)) socket.destroy();
      await sleeper.terminate();
    },
  };
}

/** A fresh schema in the bench database, reached directly or through `proxy`. */
async function freshSchema(proxy) {
  const schema = `mw_bench_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: DATABASE });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(DATABASE);
  if (proxy) { url.hostname = '127.0.0.1'; url.port = String(proxy.port); }
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    count: async () => Number((await admin.query(`SELECT COUNT(*) AS n, COUNT(DISTINCT id) AS ids FROM ${schema}.messages`)).rows[0].n),
    async drop() { await admin.query(`DROP SCHEMA ${schema} CASCADE`); await admin.end(); },
  };
}


/** `mailwright serve` as its own process, as users run it; resolves its URLs once it printed them. */
async function serve(args) {
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, CLI, 'serve', '--http-port', '0', '--smtp-port', '0', '--api-key', KEY, '--log-level', 'warn', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const ready = await new Promise((resolve, reject) => {
    const read = (chunk) => {
      output += chunk;
      const match = /HTTP (http:\/\/\S+) SMTP smtp:\/\/\S+:(\d+)/.exec(output);
      if (match) resolve({ httpUrl: match[1], smtpPort: Number(match[2]) });
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => reject(new Error(`mailwright serve exited (${code}):\n${output}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { ...ready, stop: async () => { child.kill('SIGTERM'); await exited; } };
}

/**
 * Arrival across instances while the load runs: a message sent through `sender`'s SMTP (its
 * own connection) answers a long-poll held on `reader`, and its webhook (registered through
 * `reader`, claimed and sent by whichever instance leases it) reaches a receiver here. ms from
 * the send to each.
 */
async function arrivals(sender, reader, running) {
  let delivered = () => {};
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => { res.writeHead(204).end(); delivered(); });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = await api(reader, '/api/config/webhooks', { method: 'POST', body: JSON.stringify({ url: `http://127.0.0.1:${receiver.address().port}/hook` }) });
  const box = await api(reader, '/api/emails/generate', { method: 'POST', body: JSON.stringify({ expiryTime: 86_400_000, webhookId: hook.id }) });
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: sender.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1 });
  let { cursor } = await api(reader, `/api/emails?mailbox=${box.id}`);
  const poll = [];
  const webhook = [];
  while (running()) {
    const polled = api(reader, `/api/emails?mailbox=${box.id}&after=${cursor}&wait=10`);
    const hooked = new Promise((resolve) => (delivered = resolve));
    await new Promise((resolve) => setTimeout(resolve, 20)); // the long-poll is held before the send
    const sentAt = performance.now();
    await transport.sendMail({ from: 'probe@example.test', to: box.email, subject: 'arrival', text: 'Your code is 123456' });
    await Promise.all([polled.then((page) => { poll.push(performance.now() - sentAt); cursor = page.cursor; }), hooked.then(() => webhook.push(performance.now() - sentAt))]);
  }
  transport.close();
  receiver.close();
  return { poll, webhook };
}

/** One row: `instances` processes on `store`, `sessions` SMTP sessions each, all loaded at once. */
async function row({ label, instances, sessions, delay, probe: probed, apart = false }) {
  const proxy = delay ? await delayProxy(new URL(DATABASE)) : null;
  const dir = mkdtempSync(join(tmpdir(), 'mailwright-fleet-'));
  // Apart: each instance on a schema of its own, sharing nothing but the server and the cores.
  const schemas = label === 'SQLite' ? [] : await Promise.all(Array.from({ length: apart ? instances : 1 }, () => freshSchema(proxy)));
  const servers = await Promise.all(Array.from({ length: instances }, (_, i) => serve(schemas.length > 0 ? ['--database-url', schemas[i % schemas.length].url] : ['--data', join(dir, 'bench.db')])));
  try {
    const boxes = await Promise.all(servers.map((s) => mailbox(s)));
    const count = PER_SESSION * sessions;
    // Warm-up: the same for each instance whatever their number.
    await Promise.all(servers.map((s, i) => send(s.smtpPort, boxes[i].email, WARM_UP, sessions)));
    const started = performance.now();
    let loading = true;
    const probe = probed ? arrivals(servers[0], servers[1], () => loading) : Promise.resolve({ poll: [], webhook: [] });
    await Promise.all(servers.map((s, i) => send(s.smtpPort, boxes[i].email, count, sessions)));
    const seconds = (performance.now() - started) / 1000;
    loading = false;
    const times = await probe;
    const sent = instances * (count + WARM_UP) + times.poll.length;
    const stored = schemas.length > 0 ? (await Promise.all(schemas.map((s) => s.count()))).reduce((a, b) => a + b) : (await api(servers[0], `/api/emails/${boxes[0].id}?limit=1`)).total;
    return { rate: (instances * count) / seconds, sent, stored, times, rtt: proxy ? { ms: await roundTrip(schemas[0].url), holdMs: proxy.holdMs } : null };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    for (const schema of schemas) await schema.drop();
    await proxy?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// The msgs/s rows load the instances alone; a last row of each 5-session group loads 4
// instances again with the cross-instance probe running, for its latencies (and what it costs).
// "4 apart" puts each of 4 instances on a schema of its own (no fleet: what this machine
// gives 4 instances that share nothing but the PostgreSQL server), on loopback and where a
// single session per instance leaves the cores as the limit.
const ALL_ROWS = [
  { label: 'SQLite', instances: 1, sessions: 5, delay: false },
  ...[false, true].flatMap((delay) => [5, ...(delay ? [1] : [])].flatMap((sessions) => [
    ...[1, 2, 4].map((instances) => ({ label: 'PostgreSQL', instances, sessions, delay, probe: false })),
    ...(delay === (sessions === 1) ? [{ label: 'PostgreSQL', instances: 4, sessions, delay, probe: false, apart: true }] : []),
    ...(sessions > 1 ? [{ label: 'PostgreSQL', instances: 4, sessions, delay, probe: true }] : []),
  ])),
];
// BENCH_ROWS=loopback|delay|single picks one group (with the rows it is compared to).
const rows = ALL_ROWS.filter((r) => !process.env.BENCH_ROWS || ({ loopback: !r.delay, delay: r.delay && r.sessions === 5, single: r.delay && r.sessions === 1 })[process.env.BENCH_ROWS]);
console.log(`Fleet ingest: ${loadClient().name}, ~2 KB messages, ${PER_SESSION} per session per row (after ${WARM_UP} per instance to warm it up); msgs/s of the whole fleet`);
console.log(`setup        instances  DB delay    sessions/instance     msgs/s   vs 1 instance   stored/acknowledged   under load, p50 / p95 ms: long-poll, webhook (n)`);
const pq = (times) => `${quantile(times, 0.5).toFixed(1)} / ${quantile(times, 0.95).toFixed(1)}`;
const base = new Map();
let rtt = null;
for (const r of rows) {
  const result = await row(r);
  const key = `${r.label}/${r.delay}/${r.sessions}`;
  if (r.instances === 1) base.set(key, result.rate);
  rtt ??= result.rtt;
  const ratio = result.rate / base.get(key);
  console.log(`${r.label.padEnd(12)} ${`${r.probe ? '+ probe ' : ''}${r.instances}${r.apart ? ' apart' : ''}`.padStart(9)}  ${(r.delay ? '0.5 ms' : '-').padEnd(10)} ${String(r.sessions).padStart(17)} ${fmt(result.rate, 0)}   ${ratio.toFixed(2).padStart(13)}   ${`${result.stored}/${result.sent}${result.stored === result.sent ? '' : ' MISMATCH'}`.padStart(19)}   ${result.times.poll.length ? `${pq(result.times.poll)}, ${pq(result.times.webhook)} (${result.times.poll.length})` : '-'}`);
}
if (rtt !== null) console.log(`\nA round trip to PostgreSQL through the delay proxy, after its first row: ${rtt.ms.toFixed(2)} ms (direct: ${(await roundTrip(DATABASE)).toFixed(2)} ms; each chunk held ${rtt.holdMs.toFixed(2)} ms, calibrated once, by the first row's proxy, for 1 ms more than direct)`);
