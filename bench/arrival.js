// Arrival latency: from the moment the app starts its SMTP transaction to the moment the test's
// wait resolves. The topology is a real one: the service in its own process on its SQLite
// file (as `npm start` runs it), the test in this process, waiting with the fixture's own
// `inbox.waitForMessage()` (MailHub: webhook push, or the one long-poll loop). The app is a
// small SMTP client on a kept connection with the message already built, so the figure is the
// catcher's time and not the app's MIME building (nodemailer adds ~1-2 ms of its own here).
// Beside it: the fixed-interval polling loops other clients use, on mailwright's API and on
// MailDev 3's REST API (`GET /api/email`), polled every 10 ms. The message is one line of
// text/plain; the "text + HTML" rows send the 2 KB multipart/alternative most apps send
// (nodemailer's `text` and `html`), whose body is read on the way to the test.
import net from 'node:net';
import { MailHub, resolveMailOptions } from '../dist/playwright/index.js';
import { api, fmt, KEY, mailbox, median, quantile, startChild } from './harness.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60);
/** Rounds of each strategy are interleaved in blocks of this many, so drift hits all alike. */
const BLOCK = 10;

/** A one-line text/plain body, and the text + HTML alternative nodemailer builds from `text` and `html` (2 KB). */
const TEXT_BODY = 'Content-Type: text/plain; charset=utf-8\r\n\r\nYour code is 123456\r\n';
const ALTERNATIVE_BODY = [
  'Content-Type: multipart/alternative;', ' boundary="--_NmP-5f3c0e1b2a4d6789-Part_1"', '',
  '----_NmP-5f3c0e1b2a4d6789-Part_1', 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 7bit', '',
  'Welcome!', '', 'Your code is 123456. Or verify: https://app.example.test/verify?token=Ous3P_LjFdjvBnv5RYlQwPZy', '',
  '----_NmP-5f3c0e1b2a4d6789-Part_1', 'Content-Type: text/html; charset=utf-8', 'Content-Transfer-Encoding: quoted-printable', '',
  '<!DOCTYPE html><html><body style=3D"margin:0;font-family:Helvetica,Arial,sans-serif;">',
  ...Array.from({ length: 24 }, () => '<p style=3D"color:#51545e;">Thanks for signing up. Please confirm this address.</p>'),
  '<p>Your code is <b>123456</b>. Or <a href=3D"https://app.example.test/verify?token=3DOus3P_LjFdjvBnv5RYlQwPZy">verify</a>.</p></body></html>',
  '----_NmP-5f3c0e1b2a4d6789-Part_1--', '',
].join('\r\n');

/** An SMTP client on one kept connection: send() times the transaction from MAIL FROM to 250. */
async function smtpClient(port) {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  let buffer = '';
  let waiting = null;
  socket.on('data', (data) => {
    buffer += data;
    // A reply is complete at a line whose code is followed by a space ("250 ok", not "250-SIZE").
    if (!waiting || !/(^|\r\n)\d{3} [^\r\n]*\r\n$/.test(buffer)) return;
    const [reply, resolve] = [buffer, waiting];
    buffer = '';
    waiting = null;
    resolve(reply);
  });
  const command = (line) => new Promise((resolve, reject) => {
    waiting = (reply) => (/^[23]/.test(reply) ? resolve(reply) : reject(new Error(`${line ?? 'greeting'} -> ${reply.trim()}`)));
    if (line) socket.write(line);
  });
  await command(null);
  await command('EHLO bench.test\r\n');
  return {
    async send(to, subject, shape = 'text') {
      const body = `From: app@example.test\r\nTo: ${to}\r\nSubject: ${subject}\r\nMIME-Version: 1.0\r\n${shape === 'text' ? TEXT_BODY : ALTERNATIVE_BODY}.\r\n`;
      await command('MAIL FROM:<app@example.test>\r\n');
      await command(`RCPT TO:<${to}>\r\n`);
      await command('DATA\r\n');
      await command(body);
    },
    close: () => socket.end(),
  };
}

/** Polls `check` every `every` ms until it is true; resolves the number of calls. */
async function pollEvery(every, check) {
  for (let calls = 1; ; calls++) {
    if (await check()) return calls;
    await new Promise((r) => setTimeout(r, every));
  }
}

export async function arrival() {
  const server = await startChild('mailwright');
  const peer = await startChild('maildev');
  const app = await smtpClient(server.smtpPort);
  const peerApp = await smtpClient(peer.smtpPort);
  const hubs = {
    webhook: await MailHub.start(resolveMailOptions([{ baseURL: server.httpUrl, apiKey: KEY, delivery: 'webhook' }])),
    poll: await MailHub.start(resolveMailOptions([{ baseURL: server.httpUrl, apiKey: KEY, delivery: 'poll' }])),
  };
  const viaFixture = (hub) => async (subject) => {
    const inbox = await hub.createInbox();
    return { to: inbox.address, seen: inbox.waitForMessage({ subject }).then(() => 0) };
  };
  const viaInterval = (every) => async (subject) => {
    const box = await mailbox(server);
    return { to: box.email, seen: pollEvery(every, async () => (await api(server, `/api/emails?mailbox=${box.id}`)).messages.some((m) => m.subject === subject)) };
  };
  const strategies = [
    { name: 'webhook push (fixture)', start: viaFixture(hubs.webhook) },
    { name: 'long-poll (fixture)', start: viaFixture(hubs.poll) },
    { name: 'webhook, text + HTML', start: viaFixture(hubs.webhook), shape: 'alternative' },
    { name: 'long-poll, text + HTML', start: viaFixture(hubs.poll), shape: 'alternative' },
    { name: 'mailwright, poll 250 ms', start: viaInterval(250) },
    {
      name: 'MailDev, poll 10 ms', app: peerApp,
      start: async (subject) => ({
        to: `box${Math.random().toString(36).slice(2, 8)}@maildev.test`,
        seen: pollEvery(10, async () => (await (await fetch(`${peer.httpUrl}/api/email`)).json()).some((m) => m.subject === subject)),
      }),
    },
  ];
  const results = new Map(strategies.map((s) => [s.name, { seen: [], ack: [], calls: 0 }]));
  let n = 0;
  for (let block = -1; block < ROUNDS / BLOCK; block++) {
    for (const strategy of strategies) {
      for (let i = 0; i < (block < 0 ? 2 : BLOCK); i++) {
        const subject = `arrival ${n++}`;
        const started = await strategy.start(subject);
        const seen = started.seen.then((calls) => ({ calls, at: performance.now() }));
        // The app sends a moment after the wait started, at a random phase of any polling loop.
        await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
        const sent = performance.now();
        await (strategy.app ?? app).send(started.to, subject, strategy.shape);
        const acked = performance.now();
        const { calls, at } = await seen;
        if (block < 0) continue; // warm-up
        const r = results.get(strategy.name);
        r.seen.push(at - sent);
        r.ack.push(acked - sent);
        r.calls += calls;
      }
    }
  }
  for (const hub of Object.values(hubs)) await hub.close();
  app.close();
  peerApp.close();
  await server.stop();
  await peer.stop();

  const rows = [...results].map(([name, r]) => ({ name, p50: median(r.seen), p95: quantile(r.seen, 0.95), ack: median(r.ack), calls: r.calls / r.seen.length }));
  console.log(`\nArrival: the app's SMTP transaction starts -> the test's wait resolves (${ROUNDS} rounds each, interleaved; service in its own process, SQLite file)`);
  console.log('strategy                     p50 ms    p95 ms   250 after ms   polls/msg   p50 vs long-poll');
  const base = rows[1].p50;
  for (const r of rows) console.log(`${r.name.padEnd(26)}${fmt(r.p50, 2)}${fmt(r.p95, 2)}${fmt(r.ack, 2, 15)}${r.calls ? fmt(r.calls, 1, 12) : '           -'}${fmt(r.p50 / base, 2, 18)}x`);
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await arrival();
