#!/usr/bin/env node
// Load scenario (mailwright only, not a comparison): 200 long-pollers, each holding
// GET /api/emails?mailbox=<its own>&after=<cursor>&wait=25 and re-issuing it with the returned
// cursor, while a sender process sends 500 msg/s for 60 s (nodemailer, 20 pooled connections
// with one message under way on each, every message to a random one of the 200 mailboxes with
// the time its SMTP transaction starts in the subject), then one last message to every mailbox.
// smtp-source is not used here: it cannot pick a random mailbox per message or stamp a time.
// Reports sent vs stored vs seen (0 lost), duplicates, HTTP/SMTP errors, whether every poller
// woke for its last message, arrival latency (SMTP transaction starts -> poller has the message),
// the rate achieved, CPU of each process and the server's RSS every 5 s.
// `npm run bench:load` or `npm run bench -- --load`; BENCH_LOAD_SECONDS (60), BENCH_LOAD_RATE (500),
// BENCH_LOAD_POLLERS (200), BENCH_LOAD_CONNECTIONS (20).
import { cpus } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Agent } from 'undici';
import { api, KEY, mailbox, mb, quantile, startChild } from './harness.js';

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 60);
const RATE = Number(process.env.BENCH_LOAD_RATE ?? 500);
const POLLERS = Number(process.env.BENCH_LOAD_POLLERS ?? 200);
const CONNECTIONS = Number(process.env.BENCH_LOAD_CONNECTIONS ?? 20);
const WAIT = 25;
const now = () => performance.timeOrigin + performance.now();

export async function load() {
  const [server, sender] = await Promise.all([startChild('mailwright'), startChild('sender')]);
  const boxes = [];
  for (let i = 0; i < POLLERS; i++) boxes.push(await mailbox(server));
  const dispatcher = new Agent({ connections: null, headersTimeout: (WAIT + 30) * 1000, bodyTimeout: (WAIT + 30) * 1000 });
  const stats = { answers: 0, empty: 0, httpErrors: 0, errorSamples: [], seen: 0, duplicates: 0, latencies: [], sentAt: [] };
  const seenIds = new Set();
  const woken = new Set(); // mailboxes whose poller saw its final message
  let stopping = false;
  const held = new Set(); // one AbortController per request (a shared signal would pile up listeners)

  async function poll(box, index) {
    // The first poll has no cursor: it answers (or waits for) everything the new mailbox holds, and
    // what it answers is counted like any later answer's messages.
    let after = '';
    while (!stopping) {
      const abort = new AbortController();
      held.add(abort);
      try {
        const res = await fetch(`${server.httpUrl}/api/emails?mailbox=${box.id}${after}&wait=${WAIT}`, { headers: { 'x-api-key': KEY }, signal: abort.signal, dispatcher });
        if (res.status !== 200) throw new Error(`HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
        const page = await res.json();
        const at = now();
        stats.answers++;
        if (!page.messages.length) stats.empty++;
        for (const m of page.messages) {
          const [kind, n, sentAt] = m.subject.split(' ');
          if (seenIds.has(n)) { stats.duplicates++; continue; }
          seenIds.add(n);
          stats.seen++;
          stats.latencies.push(at - Number(sentAt));
          stats.sentAt.push(Number(sentAt));
          if (kind === 'final') woken.add(index);
        }
        after = `&after=${page.cursor}`;
      } catch (error) {
        if (stopping) return;
        stats.httpErrors++;
        if (stats.errorSamples.length < 5) stats.errorSamples.push(error.message);
        await new Promise((r) => setTimeout(r, 100));
      } finally {
        held.delete(abort);
      }
    }
  }

  const pollers = boxes.map((box, i) => poll(box, i));
  await new Promise((r) => setTimeout(r, 500)); // let every poller reach its held request
  const rss = [];
  const t0 = now();
  const sample = async () => rss.push({ at: (now() - t0) / 1000, rss: (await server.stats()).rss });
  await sample();
  const cpu0 = (await server.stats()).cpuMs;
  const senderCpu0 = (await sender.stats()).cpuMs;
  const pollersCpu0 = process.cpuUsage();
  const sampler = setInterval(() => { if (rss.length <= SECONDS / 5 + 12) sample(); }, 5_000);

  const result = await sender.request({ type: 'send', port: server.smtpPort, to: boxes.map((b) => b.email), rate: RATE, seconds: SECONDS, connections: CONNECTIONS, finalTo: boxes.map((b) => b.email) });
  const drainBy = now() + 30_000;
  while (stats.seen < result.sent && now() < drainBy) await new Promise((r) => setTimeout(r, 50));
  clearInterval(sampler);
  await sample();
  const cpu = (await server.stats()).cpuMs - cpu0;
  const senderCpu = (await sender.stats()).cpuMs - senderCpu0;
  const pollersCpu = process.cpuUsage(pollersCpu0);
  const elapsed = now() - t0;
  stopping = true;
  for (const a of held) a.abort();
  await Promise.all(pollers);
  let storedTotal = 0;
  for (const box of boxes) storedTotal += (await api(server, `/api/emails/${box.id}?limit=1`)).total;
  await Promise.all([server.stop(), sender.stop()]);
  await dispatcher.close();

  const p = (q) => quantile(stats.latencies, q).toFixed(1);
  console.log(`\nLoad scenario (mailwright alone): ${POLLERS} long-pollers (wait=${WAIT}s, own mailbox each) while nodemailer (${CONNECTIONS} pooled connections, own process) sends ${RATE} msg/s to random mailboxes for ${SECONDS} s, then 1 more to each mailbox`);
  console.log(`messages sent          ${result.sent} (${(result.timedSent / result.sendSeconds).toFixed(0)} msg/s achieved over ${result.sendSeconds.toFixed(1)} s; at most ${result.maxLag.toFixed(0)} ms behind schedule)`);
  console.log(`SMTP transaction ms    p50 ${result.smtpMs[0].toFixed(1)}   p95 ${result.smtpMs[1].toFixed(1)}   max ${result.smtpMs[2].toFixed(1)}   (MAIL FROM -> 250 after DATA, as the sender saw it)`);
  console.log(`stored by the server   ${storedTotal}`);
  console.log(`seen by pollers        ${stats.seen}   lost ${result.sent - stats.seen}   duplicates ${stats.duplicates}`);
  console.log(`errors                 SMTP ${result.failed}${result.errors.length ? ` (${result.errors.join('; ')})` : ''}, HTTP ${stats.httpErrors}${stats.errorSamples.length ? ` (${stats.errorSamples.join('; ')})` : ''}`);
  console.log(`waiters woken          ${woken.size}/${POLLERS} saw their last message; ${stats.answers} long-poll answers, ${stats.empty} of them empty (held ${WAIT}s with nothing)`);
  console.log(`arrival latency ms     p50 ${p(0.5)}   p95 ${p(0.95)}   p99 ${p(0.99)}   max ${quantile(stats.latencies, 1).toFixed(1)}   (SMTP transaction starts -> poller has it)`);
  console.log(`server CPU             ${(cpu / elapsed * 100).toFixed(0)}% of one core on average (${(cpu / result.sent).toFixed(2)} ms per message incl. its long-poll answer); sender ${(senderCpu / elapsed * 100).toFixed(0)}%, pollers ${((pollersCpu.user + pollersCpu.system) / 10 / elapsed).toFixed(0)}% (${cpus().length} cores)`);
  const perWindow = new Array(Math.ceil(elapsed / 5000) + 1).fill(0);
  for (const at of stats.sentAt) perWindow[Math.max(0, Math.floor((at - t0) / 5000))]++;
  console.log(`sent msg/s per 5 s     ${perWindow.map((n) => (n / 5).toFixed(0)).join(' ')}   (by SMTP start time, from what pollers saw)`);
  console.log(`server RSS             ${rss.map((s) => `${s.at.toFixed(0)}s ${mb(s.rss)}`).join(', ')}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await load();
