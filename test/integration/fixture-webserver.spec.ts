// Integration: mailwrightServer() in a real Playwright config starts `mailwright serve` from
// dist/cli.js with the current Node, and workers find it through MAILWRIGHT_URL /
// MAILWRIGHT_API_KEY / MAILWRIGHT_SMTP_URL without any fixture option.
import { test, expect } from '@playwright/test';
import { annotation, failures, runInner, startService } from './fixture/run-inner.js';

test('a config with mailwrightServer() on free ports (0) needs no further options', async () => {
  test.setTimeout(180_000);
  const key = `mw_webserver_${Date.now()}`;
  const run = await runInner({
    config: 'webserver.config.ts',
    files: [],
    workers: 1,
    env: { MW_HTTP_PORT: '0', MW_SMTP_PORT_FOR_SERVER: '0', MW_SERVER_KEY: key },
  });
  expect(failures(run), run.stdout + run.stderr).toBe('');
  expect(run.tests).toHaveLength(1);
  // The worker found the ports the service picked, from the line it printed.
  const [httpUrl, seenKey, smtpUrl] = annotation(run.tests[0]!, 'env')!.split(' ');
  expect(httpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(smtpUrl).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
  expect(seenKey).toBe(key);
  // Playwright stopped the server with the run.
  await expect(fetch(`${httpUrl}/health`)).rejects.toThrow();
});

test('a reused server that does not know the key: the error names the key, its source and the fix, once', async () => {
  test.setTimeout(180_000);
  // A service "started by hand" with its own key, on the ports the config names.
  const service = await startService();
  try {
    const run = await runInner({
      config: 'webserver.config.ts',
      files: [],
      workers: 1,
      env: { MW_HTTP_PORT: String(new URL(service.httpUrl).port), MW_SMTP_PORT_FOR_SERVER: String(service.smtpPort), MW_REUSE: '1' },
    });
    expect(run.exitCode).not.toBe(0);
    // The message itself: its first line (the code frame below it quotes the source).
    const error = [...run.tests.flatMap((t) => t.errors), ...run.errors].map((e) => e.split('\n')[0]).join('\n');
    expect(error).toContain(`the service at ${service.httpUrl} does not know the API key mw_playwright_local_key (401 invalid_api_key)`);
    expect(error).toContain('the key came from the default key of mailwrightServer()');
    expect(error).toContain('reuses a server already listening');
    expect(error).toContain('npx mailwright serve --api-key mw_playwright_local_key');
    // One way out, not the client's generic hint as well.
    expect(error).not.toContain('keys create');
    const sentences = error.split(/(?<=\.) /);
    expect(new Set(sentences).size).toBe(sentences.length);
  } finally {
    await service.close();
  }
});
