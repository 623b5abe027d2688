// Link check: how long `checkLinks` takes for a mail of 20 links against a local HTTP server on
// loopback, through the service's fetcher (undici over the webhook Agent, redirects followed,
// private targets allowed). Budget: 1 s for the mail (median of the rounds). One link in four
// redirects, one in five refuses HEAD (so it is asked again with GET). Every response waits
// BENCH_LINK_DELAY_MS (default 20) to stand in for a real server's latency.
// Run `npm run build && node bench/link-check.js`.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { checkLinks } from '../dist/checks/link-check.js';
import { serviceLinkFetcher } from '../dist/server/link-fetcher.js';

const LINKS = 20;
const ROUNDS = Number(process.env.BENCH_LINK_ROUNDS ?? 10);
const DELAY_MS = Number(process.env.BENCH_LINK_DELAY_MS ?? 20);
const BUDGET_MS = 1_000;

/** A loopback server: `/redirect/<n>` answers 302 to `/page/<n>`, `/no-head/<n>` 405 to HEAD, the rest 200, each after DELAY_MS. */
async function startServer() {
  const timers = new Set();
  const server = createServer((req, res) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      const path = req.url ?? '/';
      if (path.startsWith('/redirect/')) res.writeHead(302, { location: path.replace('/redirect/', '/page/') }).end();
      else if (path.startsWith('/no-head/') && req.method === 'HEAD') res.writeHead(405, { allow: 'GET' }).end();
      else res.end('<p>ok</p>');
    }, DELAY_MS);
    timers.add(timer);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A mail of LINKS distinct links (anchors and images) and a text part repeating a few of them. */
function mailOf(base) {
  const paths = Array.from({ length: LINKS }, (_, i) => (i % 4 === 0 ? `/redirect/${i}` : i % 5 === 0 ? `/no-head/${i}` : `/page/${i}`));
  const html = paths.map((p, i) => (i % 3 === 0 ? `<img src="${base}${p}" alt="">` : `<a href="${base}${p}">link ${i}</a>`)).join('\n');
  return { html, text: paths.slice(0, 5).map((p) => `${base}${p}`).join('\n') };
}

export async function linkCheck() {
  const server = await startServer();
  const fetcher = serviceLinkFetcher({ config: { host: '127.0.0.1', allowPrivateWebhooks: true } });
  const times = [];
  try {
    const mail = mailOf(server.base);
    for (let round = -1; round < ROUNDS; round++) {
      const started = performance.now();
      const results = await checkLinks(mail, fetcher, { timeout: 5_000 });
      const ms = performance.now() - started;
      const broken = results.filter((r) => !r.ok);
      if (results.length !== LINKS || broken.length > 0) {
        throw new Error(`expected ${LINKS} working links, got ${results.length} with ${broken.length} broken: ${broken.map((r) => r.error).join('; ')}`);
      }
      if (round >= 0) times.push(ms);
      else console.log(`\nLink check: ${LINKS} links on loopback, ${DELAY_MS} ms per response, concurrency 6 (default)\nfirst (cold) round ${ms.toFixed(1)} ms`);
    }
  } finally {
    await fetcher.close();
    await server.stop();
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const verdict = median <= BUDGET_MS ? 'within' : 'OVER';
  console.log(`${ROUNDS} rounds: median ${median.toFixed(1)} ms, max ${times.at(-1).toFixed(1)} ms — ${verdict} the ${BUDGET_MS} ms budget`);
  if (median > BUDGET_MS) process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await linkCheck();
