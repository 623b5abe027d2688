#!/usr/bin/env node
// Benchmarks, printed side by side with a peer measured in the same run (ratios, since the
// machine is noisy). Run `npm run build && npm run bench`.
//  1. Arrival: how soon a test's waitForMessage resolves after the app starts its SMTP send —
//     the fixture's webhook push and long-poll vs fixed-interval polling, also of MailDev 3
//     (bench/arrival.js).
//  2. Ingestion: SMTP messages/s stored by mailwright vs MailDev 3, each in its own process,
//     loaded by postfix's smtp-source (bench/ingest.js).
//  3. Fresh connections: `sendMail` with nodemailer's default transport (a connection per
//     mail, as most apps send) to mailwright and to MailDev 3 (a dev-only peer on the same
//     smtp-server), each in its own process, alternating rounds.
//  4. Extraction: time per message and right/wrong answers over the sample corpus, beside
//     the hand-written regexes a test author would use (bench/extract.js).
// With --scale also bench/scale.js (100,000 stored messages), with --load also bench/load.js
// (200 long-pollers under 500 msg/s): `npm run bench -- --scale --load`.
import nodemailer from 'nodemailer';
import { arrival } from './arrival.js';
import { extraction } from './extract.js';
import { fmt, mailbox, quantile, startChild } from './harness.js';
import { ingest } from './ingest.js';
import { scale } from './scale.js';
import { load } from './load.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);

async function freshConnections() {
  // Each server in its own process, mailwright on its SQLite file (every 250 after a synced commit).
  const [server, peer] = await Promise.all([startChild('mailwright'), startChild('maildev')]);
  const box = await mailbox(server);
  const targets = { mailwright: server.smtpPort, 'MailDev 3.0.0': peer.smtpPort };
  const latencies = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  for (let round = -3; round < ROUNDS * 2; round++) {
    for (const [name, port] of Object.entries(targets)) {
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
      const started = performance.now();
      await transport.sendMail({ from: 'app@example.test', to: box.email, subject: `fresh ${round}`, text: 'Your code is 123456' });
      if (round >= 0) latencies[name].push(performance.now() - started);
      transport.close();
    }
  }
  await Promise.all([server.stop(), peer.stop()]);
  const mw = quantile(latencies.mailwright, 0.5);
  console.log(`\nFresh connection: sendMail with nodemailer's default transport (one connection per mail), ${ROUNDS * 2} rounds, alternating`);
  console.log('server                 p50 ms   p95 ms   p50 vs mailwright');
  for (const [name, values] of Object.entries(latencies)) {
    console.log(`${name.padEnd(20)}${fmt(quantile(values, 0.5), 1, 8)} ${fmt(quantile(values, 0.95), 1, 8)}       ${(quantile(values, 0.5) / mw).toFixed(2)}x`);
  }
}

await arrival();
await freshConnections();
await extraction();
await ingest();
if (process.argv.includes('--scale')) await scale();
if (process.argv.includes('--load')) await load();
