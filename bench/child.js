// Child process of the SMTP benchmarks (forked by bench/harness.js), so each server under test
// and the load sender have an event loop of their own. argv: kind, data dir, JSON options.
//   mailwright: startServer on free loopback ports, SQLite file in the data dir.
//   maildev:    MailDev 3 on free loopback ports, .eml files in the data dir.
//   sender:     nodemailer at a fixed rate to random recipients (bench/load.js), subject
//               `load <n> <epoch ms sent>` for the arrival latency.
// IPC: reports { type: 'ready', ... }; answers { type: 'stats' } with rss, heap and cpuMs; exits on
// { type: 'stop' } or when the parent goes away.
import { join } from 'node:path';

const [kind, dir, optionsJson] = process.argv.slice(2);
const options = JSON.parse(optionsJson ?? '{}');
const now = () => performance.timeOrigin + performance.now();
let stop = async () => {};
const handlers = {
  stats: () => {
    const cpu = process.cpuUsage();
    const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
    return { rss, heapUsed, heapTotal, external, cpuMs: (cpu.user + cpu.system) / 1000 };
  },
};

if (kind === 'mailwright') {
  const { startServer } = await import('../dist/server/index.js');
  const server = await startServer({ httpPort: 0, smtpPort: 0, data: join(dir, 'bench.db'), apiKey: 'mw_bench_key_0123456789', logLevel: 'silent' });
  stop = () => server.close();
  process.send({ type: 'ready', httpUrl: server.httpUrl, smtpPort: server.smtpPort });
} else if (kind === 'maildev') {
  const { MailDev } = await import('maildev');
  const maildev = new MailDev({ smtp: 0, web: 0, ip: '127.0.0.1', webIp: '127.0.0.1', silent: true, mailDirectory: join(dir, 'mail') });
  const servers = await maildev.start();
  stop = () => maildev.stop();
  process.send({ type: 'ready', httpUrl: `http://127.0.0.1:${servers.api.getPort()}`, smtpPort: servers.smtp.getPort() });
} else if (kind === 'sender') {
  const nodemailer = (await import('nodemailer')).default;
  const text = `${'x'.repeat(78)}\n`.repeat(26);
  // Sends `rate` messages/s for `seconds` to random addresses of `to`, then one to each of
  // `finalTo`, over `connections` pooled connections, each with at most one message under way:
  // the time in the subject is when its SMTP transaction starts, not when it was queued.
  handlers.send = async ({ port, to, rate, seconds, connections, finalTo = [] }) => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: true, maxConnections: connections, maxMessages: Infinity });
    const errors = [];
    let sent = 0, failed = 0, n = 0, maxLag = 0;
    const durations = [];
    const one = (address, tag) => {
      const at = now();
      return transport.sendMail({ from: 'load@example.test', to: address, subject: `${tag} ${n++} ${at.toFixed(1)}`, text })
        .then(() => { sent++; durations.push(now() - at); }, (e) => { failed++; if (errors.length < 5) errors.push(e.message); });
    };
    const total = Math.round(rate * seconds);
    const started = now();
    let next = 0;
    const timed = async () => {
      while (next < total) {
        const wait = started + (next / rate) * 1000 - now();
        if (wait > 0) { await new Promise((r) => setTimeout(r, wait)); continue; }
        next++;
        maxLag = Math.max(maxLag, -wait);
        await one(to[Math.floor(Math.random() * to.length)], 'load');
      }
    };
    await Promise.all(Array.from({ length: connections }, timed));
    const sendSeconds = (now() - started) / 1000;
    const timedSent = sent;
    const last = [...finalTo];
    await Promise.all(Array.from({ length: connections }, async () => { while (last.length) await one(last.pop(), 'final'); }));
    transport.close();
    durations.sort((a, b) => a - b);
    const smtpMs = [0.5, 0.95, 1].map((q) => durations[Math.min(durations.length - 1, Math.floor(q * durations.length))] ?? NaN);
    return { sent, timedSent, failed, errors, sendSeconds, maxLag, smtpMs };
  };
  process.send({ type: 'ready' });
} else {
  throw new Error(`unknown kind ${kind}`);
}

process.on('message', async (m) => {
  if (m.type === 'stop') {
    await stop().catch(() => {});
    process.exit(0);
  }
  try {
    process.send({ ...(await handlers[m.type](m)), type: m.type, id: m.id });
  } catch (error) {
    process.send({ type: 'error', id: m.id, message: error.message });
  }
});
process.on('disconnect', () => process.exit(0));
