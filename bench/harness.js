// Shared pieces of the SMTP benchmarks (ingest.js, scale.js, load.js): servers under test in
// their own child processes (bench/child.js), the load generator (postfix's smtp-source, or
// nodemailer when it is missing), disk usage of a data dir, quantiles and formatting.
import { fork, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';

export const KEY = 'mw_bench_key_0123456789';
export const FROM = 'load@example.test';
export const MESSAGE_BYTES = 2048;
const CHILD = fileURLToPath(new URL('./child.js', import.meta.url));

export const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
export const median = (values) => quantile(values, 0.5);
export const fmt = (n, digits = 0, width = 10) => (Number.isFinite(n) ? n.toFixed(digits) : '-').padStart(width);
export const mb = (bytes) => `${(bytes / 1048576).toFixed(bytes < 10 * 1048576 ? 1 : 0)} MB`;

/** postfix's smtp-source: MAILWRIGHT_SMTP_SOURCE, then PATH, then /usr/sbin; null when absent. */
export function findSmtpSource() {
  const candidates = [process.env.MAILWRIGHT_SMTP_SOURCE, ...(process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, 'smtp-source')), '/usr/sbin/smtp-source'];
  const path = candidates.find((p) => p && existsSync(p));
  if (!path) return null;
  const lib = resolve(dirname(path), '../lib/postfix'); // an unpacked .deb keeps its shared libraries there
  const env = existsSync(lib) ? { ...process.env, LD_LIBRARY_PATH: [lib, process.env.LD_LIBRARY_PATH].filter(Boolean).join(delimiter) } : process.env;
  return { path, env };
}

let client;
/** The load generator, resolved once; prints how to get smtp-source when it falls back. */
export function loadClient() {
  if (client) return client;
  const source = findSmtpSource();
  if (source) return (client = { name: 'smtp-source (postfix, C)', ...source });
  console.log('smtp-source not found; using nodemailer. For the C client: apt-get download postfix && dpkg-deb -x postfix_*.deb DIR, then MAILWRIGHT_SMTP_SOURCE=DIR/usr/sbin/smtp-source');
  return (client = { name: 'nodemailer (pooled, Node)' });
}

/** Sends `count` ~2 KB messages to `to` over `sessions` reused connections; resolves messages/s. */
export async function send(port, to, count, sessions) {
  const c = loadClient();
  const started = performance.now();
  if (c.path) {
    const args = ['-d', '-s', String(sessions), '-m', String(count), '-l', String(MESSAGE_BYTES), '-f', FROM, '-t', to, '-M', 'localhost', `127.0.0.1:${port}`];
    await new Promise((ok, fail) => {
      const child = spawn(c.path, args, { env: c.env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', fail);
      child.on('exit', (code) => (code === 0 ? ok() : fail(new Error(`smtp-source exited ${code}: ${stderr.trim().slice(0, 500)}`))));
    });
  } else {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: true, maxConnections: sessions, maxMessages: Infinity });
    const text = `${'x'.repeat(78)}\n`.repeat(Math.ceil(MESSAGE_BYTES / 79)).slice(0, MESSAGE_BYTES);
    let next = 0;
    await Promise.all(Array.from({ length: sessions }, async () => {
      while (next < count) await transport.sendMail({ from: FROM, to, subject: `load ${next++}`, text });
    }));
    transport.close();
  }
  return count / ((performance.now() - started) / 1000);
}

/** Size in bytes of one message as the load client sends it (DATA, counted by a sink). */
export async function rawMessageSize() {
  let size = 0;
  const sink = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], disableReverseLookup: true, logger: false,
    onData(stream, _s, cb) { stream.on('data', (d) => (size += d.length)); stream.on('end', () => cb()); } });
  await new Promise((r) => sink.listen(0, '127.0.0.1', r));
  await send(sink.server.address().port, 'box@sink.test', 1, 1);
  await new Promise((r) => sink.close(r));
  return size;
}

/** Sum of file sizes under `dir` (SQLite -wal/-shm and MailDev's .eml files included). */
export function diskBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? diskBytes(path) : statSync(path).size;
  }
  return total;
}

const live = new Set();
process.on('exit', () => { for (const c of live) c.cleanup(); });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

/**
 * Starts `kind` ('mailwright' | 'maildev' | 'sender') in its own Node process with a fresh temp
 * data dir. Resolves what the child reported (ports, urls) plus stats(), request() and stop().
 */
export async function startChild(kind, options = {}) {
  const dir = mkdtempSync(join(tmpdir(), `mailwright-bench-${kind}-`));
  // mailwright runs as `npx mailwright serve` does, without Node flags; MailDev as its own bin does.
  // BENCH_NODE_ARGS gives mailwright flags (`npm start`'s SERVICE_NODE_FLAGS, or e.g.
  // `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it).
  const execArgv = kind === 'mailwright' ? (process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []) : [];
  const child = fork(CHILD, [kind, dir, JSON.stringify(options)], { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const pending = new Map();
  let seq = 0;
  let onExit;
  const exited = new Promise((r) => (onExit = r));
  const handle = {
    kind, dir, child,
    cleanup() { if (child.exitCode === null) child.kill('SIGKILL'); rmSync(dir, { recursive: true, force: true }); live.delete(handle); },
    /** Sends a request, resolves the child's answer. */
    request(message) {
      const id = ++seq;
      return new Promise((ok, fail) => { pending.set(id, { ok, fail }); child.send({ ...message, id }); });
    },
    /** { rss, heapUsed, heapTotal, external, cpuMs } of the child right now. */
    stats: () => handle.request({ type: 'stats' }),
    /** Bytes on disk of the data dir. */
    disk: () => diskBytes(dir),
    async stop() {
      if (child.exitCode === null) {
        child.send({ type: 'stop' });
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
      }
      handle.cleanup();
    },
  };
  live.add(handle);
  child.on('exit', (code) => { onExit(); for (const p of pending.values()) p.fail(new Error(`${kind} child exited (${code})`)); pending.clear(); });
  const ready = await new Promise((ok, fail) => {
    child.on('message', (m) => {
      if (m.type === 'ready') ok(m);
      else if (m.type === 'error' && !m.id) fail(new Error(`${kind} child: ${m.message}`));
      else if (pending.has(m.id)) {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.type === 'error') p.fail(new Error(m.message)); else p.ok(m);
      }
    });
    child.once('exit', (code) => fail(new Error(`${kind} child exited (${code}) before it was ready`)));
  });
  return Object.assign(handle, ready);
}

/** JSON call to a mailwright child's HTTP API. */
export async function api(server, path, init = {}) {
  const res = await fetch(server.httpUrl + path, { ...init, headers: { 'x-api-key': KEY, 'content-type': 'application/json', ...init.headers } });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

/** A fresh mailwright mailbox ({ id, email }). */
export const mailbox = (server) => api(server, '/api/emails/generate', { method: 'POST', body: JSON.stringify({ expiryTime: 86_400_000 }) });
