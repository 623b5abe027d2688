// Integration: mailwrightServer() in a real Playwright config starts `mailwright serve` from
// dist/cli.js with the current Node, and workers find it through MAILWRIGHT_URL /
// MAILWRIGHT_API_KEY / MAILWRIGHT_SMTP_URL without any fixture option.
import { test, expect } from '@playwright/test';
import getPort from 'get-port';
import { annotation, failures, runInner } from './fixture/run-inner.js';

test('a config with mailwrightServer() needs no further options', async () => {
  test.setTimeout(180_000);
  const httpPort = await getPort({ host: '127.0.0.1' });
  const smtpPort = await getPort({ host: '127.0.0.1', exclude: [httpPort] });
  const key = `mw_webserver_${Date.now()}`;
  const run = await runInner({
    config: 'webserver.config.ts',
    files: [],
    workers: 1,
    env: { MW_HTTP_PORT: String(httpPort), MW_SMTP_PORT_FOR_SERVER: String(smtpPort), MW_SERVER_KEY: key },
  });
  expect(failures(run), run.stdout + run.stderr).toBe('');
  expect(run.tests).toHaveLength(1);
  expect(annotation(run.tests[0]!, 'env')).toBe(`http://127.0.0.1:${httpPort} ${key} smtp://127.0.0.1:${smtpPort}`);
  // Playwright stopped the server with the run.
  await expect(fetch(`http://127.0.0.1:${httpPort}/health`)).rejects.toThrow();
});
