#!/usr/bin/env node
// Scale: one mailwright filled to 100,000 stored messages (100 mailboxes x 1,000, smtp-source
// -s 5), measured at 1,000 and at 100,000: RSS, bytes on disk per message beside the raw size,
// and p50/p95 of reads on the most recently filled mailbox (1,000 messages either way), 100
// keep-alive requests each after 10 unmeasured: the first page GET /api/emails?mailbox=<id>,
// the mailbox view GET /api/emails/<id> (newest first, with its total) and one message
// GET /api/emails/<mailbox>/<message>. MailDev 3.0.0 (keeps every message in memory) is filled
// to 20,000 only, and read through its own API (/api/email/summary?limit=50, /api/email/:id).
// `npm run bench:scale` or `npm run bench -- --scale`; BENCH_QUICK=1 divides the counts by 10.
// BENCH_ONE_MAILBOX=1 puts all 100,000 in the first mailbox and reads it there (its view counts
// them all: `total`).
import { pathToFileURL } from 'node:url';
import { api, fmt, KEY, loadClient, mailbox, mb, quantile, rawMessageSize, send, startChild } from './harness.js';

const DIV = process.env.BENCH_QUICK ? 10 : 1;
const PER_BOX = 1_000 / DIV, BOXES = 100, MAILDEV_FILL = 20_000 / DIV, REQUESTS = 100;
const ONE_MAILBOX = Boolean(process.env.BENCH_ONE_MAILBOX);

/** p50/p95 ms of GET `paths[i % paths.length]`, sequential over one keep-alive connection. */
async function latency(base, paths, headers = {}) {
  const times = [];
  for (let i = -10; i < REQUESTS; i++) {
    const started = performance.now();
    const res = await fetch(base + paths[(i + paths.length * 10) % paths.length], { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`GET ${paths[0]}: HTTP ${res.status}`);
    if (i >= 0) times.push(performance.now() - started);
  }
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95) };
}

/** Snapshot of a server holding `count` messages: RSS, disk per message, read latencies. */
async function snapshot(name, server, count, raw, reads, fill) {
  const out = { name, count, ...(await server.stats()), total: server.disk(), disk: (server.disk() - server.empty) / count, raw, fill };
  for (const [label, paths, headers] of reads) out[label] = await latency(server.httpUrl, paths, headers);
  return out;
}

const mailwrightReads = async (server, box) => {
  const ids = (await api(server, `/api/emails/${box.id}?limit=100`)).messages.map((m) => m.id);
  const headers = { 'x-api-key': KEY };
  return [['page', [`/api/emails?mailbox=${box.id}&limit=50`], headers], ['view', [`/api/emails/${box.id}?limit=50`], headers],
    ['one', ids.map((id) => `/api/emails/${box.id}/${id}`), headers]];
};
const maildevReads = async (server) => {
  const ids = (await (await fetch(`${server.httpUrl}/api/email/summary?limit=100`)).json()).items.map((m) => m.id);
  return [['page', ['/api/email/summary?limit=50']], ['one', ids.map((id) => `/api/email/${id}`)]];
};

/** Fills `to` with `count` messages, 5 sessions; msgs/s. */
const fill = async (server, to, count) => send(server.smtpPort, to, count, 5);

export async function scale() {
  const client = loadClient();
  const raw = await rawMessageSize();
  const rows = [];
  const [mw, md] = await Promise.all([startChild('mailwright'), startChild('maildev')]);
  const boxes = [];
  for (let i = 0; i < BOXES; i++) boxes.push(await mailbox(mw));
  mw.empty = mw.disk();
  md.empty = md.disk();

  let rate = await fill(mw, boxes[0].email, PER_BOX);
  rows.push(await snapshot('mailwright', mw, PER_BOX, raw, await mailwrightReads(mw, boxes[0]), rate));
  rate = await fill(md, 'box@maildev.test', PER_BOX);
  rows.push(await snapshot('MailDev 3.0.0', md, PER_BOX, raw, await maildevReads(md), rate));

  // MailDev to 20,000 in chunks of 1,000 (a stop, not a crawl: it holds everything in memory).
  let started = performance.now();
  for (let n = PER_BOX; n < MAILDEV_FILL; n += PER_BOX) await fill(md, 'box@maildev.test', PER_BOX);
  rate = (MAILDEV_FILL - PER_BOX) / ((performance.now() - started) / 1000);
  rows.push(await snapshot('MailDev 3.0.0', md, MAILDEV_FILL, raw, await maildevReads(md), rate));
  await md.stop();

  started = performance.now();
  const read = ONE_MAILBOX ? boxes[0] : boxes.at(-1);
  for (let i = 1; i < BOXES; i++) await fill(mw, ONE_MAILBOX ? read.email : boxes[i].email, PER_BOX);
  rate = (PER_BOX * (BOXES - 1)) / ((performance.now() - started) / 1000);
  const total = PER_BOX * BOXES;
  const stored = (await api(mw, `/api/emails/${read.id}?limit=1`)).total;
  rows.push(await snapshot('mailwright', mw, total, raw, await mailwrightReads(mw, read), rate));
  await mw.stop();

  console.log(`\nScale: stored messages (${raw} B raw each, ${client.name}, 5 sessions); reads on ${ONE_MAILBOX ? 'the one mailbox' : `a ${PER_BOX}-message mailbox`}, ${REQUESTS} keep-alive requests, ms`);
  console.log('server          stored      RSS    disk   disk/msg  (x raw)   first page p50/p95   mailbox view p50/p95   one message p50/p95   fill msgs/s');
  const pq = (r) => (r ? `${r.p50.toFixed(2).padStart(8)} / ${r.p95.toFixed(2).padEnd(8)}` : '        -          ');
  for (const r of rows) {
    console.log(`${r.name.padEnd(14)}${fmt(r.count, 0, 8)}${mb(r.rss).padStart(9)}${mb(r.total).padStart(8)}${fmt(r.disk, 0, 10)}  ${(r.disk / r.raw).toFixed(2).padStart(6)}x   ${pq(r.page)}     ${pq(r.view)}       ${pq(r.one)}${fmt(r.fill, 0, 8)}`);
  }
  console.log(`disk/msg = (data dir now - empty store) / stored; empty store: mailwright ${mw.empty} B, MailDev ${md.empty} B; SQLite -wal/-shm included.`);
  console.log(ONE_MAILBOX
    ? `mailwright: all ${total} in one mailbox; reads at ${PER_BOX} and at ${total} on it (it holds ${stored}).`
    : `mailwright: ${BOXES} mailboxes x ${PER_BOX}; reads at ${PER_BOX} on the only mailbox, at ${total} on the last filled (it holds ${stored}).`);
  console.log(`MailDev: filled to ${MAILDEV_FILL} only (everything in memory); first page = /api/email/summary?limit=50 over the whole store; one message = /api/email/:id (marks it read).`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await scale();
