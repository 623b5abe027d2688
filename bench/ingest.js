#!/usr/bin/env node
// SMTP ingestion: messages/s stored by mailwright (parse + SQLite) beside MailDev 3.0.0 (memory +
// .eml files), ~2 KB messages from postfix's smtp-source (C; nodemailer when it is missing), each
// server in its own process, measured in the same run, alternating, as ratios:
//  (a) 5 sessions on fresh servers;  (b) 5 sessions after a 3,000-message warm-up, median of 3;
//  (c) 5 sessions in 5,000-message chunks filling a second pair of fresh servers to 20,000;
//  (d) 1 session after the warm-up, median of 3.
// Then RSS of each at 20,000 stored and bytes on disk per message beside the raw message size.
// `node bench/ingest.js` (BENCH_QUICK=1 divides the counts by 10); runs in `npm run bench`.
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { api, fmt, loadClient, mailbox, mb, median, rawMessageSize, send, startChild } from './harness.js';

const DIV = process.env.BENCH_QUICK ? 10 : 1;
const FRESH = 2_000 / DIV, WARM_UP = 3_000 / DIV, BATCH = 2_000 / DIV, SINGLE = 1_000 / DIV;
const CHUNK = 5_000 / DIV, FILL = 20_000 / DIV, REPEAT = 3;

/** A mailwright and a MailDev, each in its own process, with a recipient address each. */
async function pair() {
  const [mw, md] = await Promise.all([startChild('mailwright'), startChild('maildev')]);
  mw.box = await mailbox(mw);
  mw.to = mw.box.email;
  md.to = 'box@maildev.test';
  mw.sent = md.sent = 0;
  mw.empty = mw.disk();
  md.empty = md.disk();
  return [mw, md];
}

/**
 * Sends `count` to one server; its msgs/s and the server's CPU ms per message. What either
 * server left for the kernel to write (MailDev's .eml files are not synced: ~20 MB per 5,000
 * messages, written back some 30 s later) is flushed first, so that it is not written back
 * during the next measurement, whichever server that is.
 */
async function measure(server, count, sessions) {
  spawnSync('sync');
  const before = await server.stats();
  const rate = await send(server.smtpPort, server.to, count, sessions);
  server.sent += count;
  return { rate, cpu: ((await server.stats()).cpuMs - before.cpuMs) / count };
}

/** `repeat` alternating rounds (the first server first on even rounds); medians. */
async function alternate(servers, count, sessions, repeat) {
  const runs = servers.map(() => []);
  for (let round = 0; round < repeat; round++) {
    const order = round % 2 ? [1, 0] : [0, 1];
    for (const i of order) runs[i].push(await measure(servers[i], count, sessions));
  }
  return runs.map((r) => ({ rate: median(r.map((x) => x.rate)), cpu: median(r.map((x) => x.cpu)), all: r.map((x) => x.rate) }));
}

async function stored(mw, md) {
  const mwTotal = (await api(mw, `/api/emails/${mw.box.id}?limit=1`)).total;
  const mdTotal = (await (await fetch(`${md.httpUrl}/api/email/summary?limit=1`)).json()).total;
  return [mwTotal, mdTotal];
}

export async function ingest() {
  const client = loadClient();
  const raw = await rawMessageSize();
  console.log(`\nSMTP ingestion: ${raw}-byte messages from ${client.name}; each server in its own process; msgs/s (higher is better), alternating`);
  console.log('measurement                                      mailwright   MailDev  mw/MailDev   server CPU ms/msg mw / MailDev');
  const row = (label, [a, b], extra = '') =>
    console.log(`${label.padEnd(46)}${fmt(a.rate)}${fmt(b.rate)}${fmt(a.rate / b.rate, 2, 10)}x   ${a.cpu.toFixed(2).padStart(12)} / ${b.cpu.toFixed(2)}${extra}`);
  const runs = (r) => `   runs ${r[0].all.map((x) => x.toFixed(0)).join(' ')} | ${r[1].all.map((x) => x.toFixed(0)).join(' ')}`;

  const servers = await pair();
  const [mw, md] = servers;
  row(`(a) 5 sessions, fresh servers, ${FRESH} msgs`, await alternate(servers, FRESH, 5, 1));
  for (const s of servers) { await send(s.smtpPort, s.to, WARM_UP, 5); s.sent += WARM_UP; }
  const b = await alternate(servers, BATCH, 5, REPEAT);
  row(`(b) 5 sessions after ${WARM_UP} warm-up, ${BATCH}, median`, b, runs(b));

  const filled = await pair();
  for (let at = 0; at < FILL; at += CHUNK) row(`(c) 5 sessions, ${at} -> ${at + CHUNK} stored`, await alternate(filled, CHUNK, 5, 1));
  const [mwFull, mdFull] = filled;
  const [mwStats, mdStats] = [await mwFull.stats(), await mdFull.stats()];
  const [mwDisk, mdDisk] = [mwFull.disk() - mwFull.empty, mdFull.disk() - mdFull.empty];
  const fullCounts = await stored(mwFull, mdFull);
  await Promise.all(filled.map((s) => s.stop()));

  const d = await alternate(servers, SINGLE, 1, REPEAT);
  row(`(d) 1 session after warm-up, ${SINGLE}, median`, d, runs(d));
  const counts = await stored(mw, md);
  await Promise.all(servers.map((s) => s.stop()));

  console.log(`RSS at ${FILL} stored: mailwright ${mb(mwStats.rss)}, MailDev ${mb(mdStats.rss)} (${(mwStats.rss / mdStats.rss).toFixed(2)}x)`);
  console.log(`disk per message at ${FILL}, empty store subtracted (raw ${raw} B): mailwright ${(mwDisk / FILL).toFixed(0)} B (${(mwDisk / FILL / raw).toFixed(2)}x raw, SQLite + WAL), ` +
    `MailDev ${(mdDisk / FILL).toFixed(0)} B (${(mdDisk / FILL / raw).toFixed(2)}x raw, .eml files)`);
  console.log(`stored/sent: mailwright ${fullCounts[0]}/${mwFull.sent} and ${counts[0]}/${mw.sent}, MailDev ${fullCounts[1]}/${mdFull.sent} and ${counts[1]}/${md.sent}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await ingest();
