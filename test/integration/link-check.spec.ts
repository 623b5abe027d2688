// Integration tests of the link check against a real HTTP server on loopback: through the
// test's own network (Playwright's `request`), and through the service's guarded undici
// fetcher with private targets allowed and refused.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { test, expect } from '@playwright/test';
import { checkLinks, type LinkCheckResult, type LinkFetcher } from '../../src/checks/link-check.js';
import { playwrightLinkFetcher } from '../../src/playwright/link-fetcher.js';
import { serviceLinkFetcher } from '../../src/server/link-fetcher.js';
import { testConfig } from '../helpers/service-context.js';

/** The per-request timeout of the checks; the slow route answers well after it. */
const TIMEOUT_MS = 300;
const SLOW_MS = 2_000;

let server: Server;
let base: string;
const slowTimers = new Set<NodeJS.Timeout>();

test.beforeAll(async () => {
  server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    switch (pathname) {
      case '/ok': res.end('ok'); return;
      case '/missing': res.statusCode = 404; res.end(); return;
      case '/broken': res.statusCode = 500; res.end(); return;
      case '/redirect': res.writeHead(302, { location: '/ok' }).end(); return;
      case '/no-head': res.statusCode = req.method === 'HEAD' ? 405 : 200; res.end(); return;
      case '/slow': {
        const timer = setTimeout(() => {
          slowTimers.delete(timer);
          res.end('late');
        }, SLOW_MS);
        slowTimers.add(timer);
        return;
      }
      default: res.statusCode = 404; res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  for (const timer of slowTimers) clearTimeout(timer);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A mail with every route of the server in its HTML and text parts, plus a mailto: link. */
function mail() {
  return {
    html: `<p><a href="${base}/ok">Home</a> <a href="${base}/missing">Gone</a> <a href="mailto:help@example.com">Help</a></p>
      <img src="${base}/redirect" alt="logo"> <a href="${base}/no-head">Docs</a>`,
    text: `Home: ${base}/ok\nBroken: ${base}/broken\nSlow: ${base}/slow\nWrite to mailto:help@example.com`,
  };
}

/** What every fetcher that reaches the server answers for {@link mail}. */
function expectReached(results: LinkCheckResult[]): void {
  expect(results.map(({ url, status, ok, method, finalUrl, places }) => ({ url, status, ok, method, finalUrl, places }))).toEqual([
    { url: `${base}/ok`, status: 200, ok: true, method: 'HEAD', finalUrl: undefined, places: ['html-link', 'text'] },
    { url: `${base}/missing`, status: 404, ok: false, method: 'HEAD', finalUrl: undefined, places: ['html-link'] },
    { url: `${base}/redirect`, status: 200, ok: true, method: 'HEAD', finalUrl: `${base}/ok`, places: ['html-image'] },
    { url: `${base}/no-head`, status: 200, ok: true, method: 'GET', finalUrl: undefined, places: ['html-link'] },
    { url: `${base}/broken`, status: 500, ok: false, method: 'HEAD', finalUrl: undefined, places: ['text'] },
    { url: `${base}/slow`, status: null, ok: false, method: 'HEAD', finalUrl: undefined, places: ['text'] },
  ]);
  const errors = Object.fromEntries(results.map((r) => [new URL(r.url).pathname, r.error]));
  expect(errors).toEqual({
    '/ok': undefined,
    '/missing': `${base}/missing: HEAD 404 Not Found`,
    '/redirect': undefined,
    '/no-head': undefined,
    '/broken': `${base}/broken: HEAD 500 Internal Server Error`,
    '/slow': `${base}/slow: no answer to HEAD within ${TIMEOUT_MS} ms; the server is down or slow — if only slow, raise the \`timeout\` option`,
  });
}

/** Checks 20 distinct links to the server and logs how long it took. */
async function timeTwentyLinks(name: string, fetch: LinkFetcher): Promise<void> {
  const html = Array.from({ length: 20 }, (_, i) => `<a href="${base}/${i % 4 === 0 ? 'redirect' : 'ok'}?n=${i}">link ${i}</a>`).join('\n');
  const started = performance.now();
  const results = await checkLinks({ html }, fetch, { timeout: 5_000 });
  const ms = performance.now() - started;
  expect(results.filter((r) => !r.ok)).toEqual([]);
  console.log(`link check of 20 links through ${name}: ${ms.toFixed(1)} ms (budget 1000 ms)`);
}

test('checks links through the test\'s own network (Playwright request)', async ({ request }) => {
  expectReached(await checkLinks(mail(), playwrightLinkFetcher(request), { timeout: TIMEOUT_MS }));
  await timeTwentyLinks('Playwright request', playwrightLinkFetcher(request));
});

test('checks links through the service\'s fetcher when private targets are allowed', async () => {
  const fetcher = serviceLinkFetcher({ config: testConfig({ host: '0.0.0.0', allowPrivateWebhooks: true }) });
  try {
    expectReached(await checkLinks(mail(), fetcher, { timeout: TIMEOUT_MS }));
    await timeTwentyLinks('the service fetcher', fetcher);
  } finally {
    await fetcher.close();
    await fetcher.close();
  }
});

test('the service on a loopback host reaches loopback links without the flag', async () => {
  const fetcher = serviceLinkFetcher({ config: testConfig({ host: '127.0.0.1', allowPrivateWebhooks: false }) });
  try {
    const [result] = await checkLinks({ text: `${base}/ok` }, fetcher, { timeout: TIMEOUT_MS });
    expect(result).toMatchObject({ status: 200, ok: true });
  } finally {
    await fetcher.close();
  }
});

test('the service on a public host refuses loopback links, saying why and what to do', async () => {
  const fetcher = serviceLinkFetcher({ config: testConfig({ host: '0.0.0.0', allowPrivateWebhooks: false }) });
  const port = new URL(base).port;
  try {
    const results = await checkLinks({ ...mail(), text: `${mail().text}\nhttp://localhost:${port}/ok` }, fetcher, { timeout: TIMEOUT_MS });
    expect(results).toHaveLength(7);
    for (const result of results) expect(result).toMatchObject({ status: null, ok: false, method: 'HEAD' });
    const [first] = results;
    expect(first?.error).toBe(
      `${base}/ok: HEAD failed: refused: 127.0.0.1 is a private or loopback target (loopback address (127.0.0.0/8, ::1)); ` +
      'the service checks only public targets while it listens on a public host — start it on a loopback host or pass --allow-private-webhooks',
    );
    expect(results.at(-1)?.error).toContain(`http://localhost:${port}/ok: HEAD failed: refused: localhost is a private or loopback target (localhost)`);
  } finally {
    await fetcher.close();
  }
});
