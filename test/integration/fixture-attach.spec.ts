// Integration: "look, don't read" — with attach on, each HTML mail is also attached as a PNG
// of the mail as inbox.open() shows it (no script runs, nothing is fetched), the browser starts only when a mail
// is rendered, a browser that cannot start costs the PNG and nothing else, and each wait's
// step says what arrived (subject, time, and the link or code it returned).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { findChromium } from '../../src/index.js';
import { annotation, browserScript, failures, launchCount, runInner, startService, type InnerRun, type InnerTest } from './fixture/run-inner.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function attached(t: InnerTest, suffix: string) {
  const address = annotation(t, 'address');
  return t.attachments.filter((a) => a.name.startsWith(`${address} `) && a.name.endsWith(suffix));
}

/** The PNG's bytes and size (read from its IHDR chunk). */
function picture(t: InnerTest, index: number) {
  const attachment = attached(t, '.png')[index];
  const bytes = Buffer.from(attachment?.body ?? '', 'base64');
  return { name: attachment?.name, contentType: attachment?.contentType, bytes, width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Milliseconds per render, from the `DEBUG=mailwright:render` lines of the tests' output. */
function renderTimes(run: InnerRun): number[] {
  const text = run.tests.map((t) => t.stderr).join('');
  return [...text.matchAll(/rendered \d+ characters of HTML in (\d+) ms/g)].map((m) => Number(m[1]));
}

/** A loopback HTTP server that records every connection and request; nothing should reach it. */
async function startRemote() {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.end();
  });
  server.on('connection', () => seen.push('connection'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Runs attach-png.inner.ts in one worker with `chromium` as its browser (undefined: a browser
 * that cannot start). Returns the run, how often the browser was started, and what reached
 * the remote server.
 */
async function runAttachPng(chromium: string | undefined) {
  const dir = mkdtempSync(join(tmpdir(), 'mailwright-png-'));
  try {
    await using service = await startService();
    await using remote = await startRemote();
    const log = join(dir, 'launches.log');
    const run = await runInner({
      service,
      files: ['attach-png.inner.ts'],
      workers: 1,
      // Within the test's 300 s: the inner run's own bound (150 s by default) is what a busy CI machine ran into.
      timeoutMs: 270_000,
      env: { MW_BROWSER: browserScript(dir, log, chromium), MW_BROWSER_LOG: log, MW_REMOTE_URL: remote.url, DEBUG: 'mailwright:render' },
    });
    return { run, launches: launchCount(log), reached: [...remote.seen] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test.describe.configure({ mode: 'parallel' });

// Each test runs a Playwright of its own with a Chromium and a service: minutes on a machine busy with other suites.
test('HTML mail is attached as a PNG made as inbox.open() shows it, fetching nothing; waits name what arrived', async () => {
  test.setTimeout(300_000);
  const chromium = findChromium();
  test.skip(chromium.source === 'none' || !chromium.path, 'no Chromium installed (npx playwright install chromium)');
  const { run, launches, reached } = await runAttachPng(chromium.path);
  expect(failures(run)).toBe('');
  expect(run.exitCode).toBe(0);
  expect(launches, 'one browser, started for the first HTML mail').toBe(1);

  const plain = run.get('a mail without HTML is attached without a picture');
  expect(plain.attachments.map((a) => a.contentType)).toEqual(['text/plain', 'message/rfc822']);

  const html = run.get('html mail is attached as a picture, and the waits say what arrived');
  const address = annotation(html, 'address')!;
  expect(html.attachments.filter((a) => a.name.startsWith(address)).map((a) => a.name)).toEqual([
    `${address} #1 Verify your email.html`,
    `${address} #1 Verify your email.png`,
    `${address} #1 Verify your email.txt`,
    `${address} #1 Verify your email.eml`,
    `${address} #2 Your sign-in code.html`,
    `${address} #2 Your sign-in code.png`,
    `${address} #2 Your sign-in code.eml`,
  ]);
  const png = picture(html, 0);
  expect(png.contentType).toBe('image/png');
  expect(png.bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  expect(png.bytes.length).toBeGreaterThan(1_000);
  expect(png.width).toBe(800);
  expect(png.height).toBeGreaterThan(0);

  const clock = String.raw`at \d\d:\d\d:\d\d\.\d{3} \(waited [\d.]+ m?s\)`;
  expect(html.steps).toContainEqual(expect.stringMatching(new RegExp(`^received "Verify your email" ${clock} → link https://app\\.test/verify\\?token=eyJhbGciOiJIUzI1NiJ9\\.x+…$`)));
  expect(html.steps).toContainEqual(expect.stringMatching(new RegExp(`^received "Your sign-in code" ${clock} → code 483920$`)));
  expect(html.steps).toContainEqual(expect.stringMatching(new RegExp(`^received "Verify your email" ${clock}$`)));
  for (const step of html.steps.filter((s) => s.startsWith('received '))) expect(step.length).toBeLessThan(200);
  // Each is reported inside its wait's step, the test's last wait too.
  const received = html.stepPaths.filter((path) => path.split(' › ').at(-1)!.startsWith('received '));
  expect(received).toHaveLength(3);
  for (const path of received) expect(path.split(' › ').at(-2), path).toMatch(/^wait for (message|code|verification link) to /);

  const hostile = run.get('remote content is not fetched and scripts do not run');
  const shot = picture(hostile, 0);
  expect(shot.bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  expect(shot.height, 'the whole page is pictured').toBeGreaterThanOrEqual(1_234);
  expect(shot.height, 'the script did not stretch the page').toBeLessThan(2_345);
  expect(reached, 'nothing reached the remote server').toEqual([]);

  const times = renderTimes(run);
  expect(times).toHaveLength(3);
  test.info().annotations.push({ type: 'render', description: `${times.join(' ms, ')} ms per mail (the first includes the browser start)` });
});

test('a browser that cannot start costs the PNG only, and is tried once per worker', async () => {
  test.setTimeout(300_000);
  const { run, launches } = await runAttachPng(undefined);
  expect(failures(run)).toBe('');
  expect(run.exitCode).toBe(0);
  expect(launches).toBe(1);
  const html = run.get('html mail is attached as a picture, and the waits say what arrived');
  expect(html.attachments.map((a) => a.contentType).filter((type) => type !== 'text/markdown')).toEqual([
    'text/html', 'text/plain', 'message/rfc822', 'text/html', 'message/rfc822',
  ]);
  expect(attached(run.get('remote content is not fetched and scripts do not run'), '.png')).toEqual([]);
});
