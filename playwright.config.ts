import { defineConfig, devices } from '@playwright/test';
import getPort from 'get-port';
import { createServer, type AddressInfo } from 'node:net';
import { chromiumLaunchOptions, mailwrightServer } from 'mailwright';

// Projects: `unit` and `integration` need no browser; `e2e` drives Chromium against the
// demo app (fixtures/app), which mails the mailwright service started below.
//
// Ports are picked once, in the runner process, and kept in the environment: workers load
// this file again and must agree on them.
process.env.E2E_MAILWRIGHT_HTTP_PORT ??= String(await getPort({ host: '127.0.0.1' }));
process.env.E2E_MAILWRIGHT_SMTP_PORT ??= String(await getPort({ host: '127.0.0.1' }));
process.env.E2E_APP_PORT ??= String(await getPort({ host: '127.0.0.1' }));
const smtpPort = Number(process.env.E2E_MAILWRIGHT_SMTP_PORT);
// A port that refuses webhooks for the whole run: a listener owned by the runner that closes
// every connection at once (no fixed port, and nobody else can take it meanwhile).
if (!process.env.E2E_REFUSING_PORT) {
  const refusing = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  refusing.unref();
  process.env.E2E_REFUSING_PORT = String((refusing.address() as AddressInfo).port);
}
const appURL = `http://127.0.0.1:${process.env.E2E_APP_PORT}`;

export default defineConfig({
  forbidOnly: !!process.env.CI,
  workers: 4,
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : 'list',
  webServer: [
    mailwrightServer({
      httpPort: Number(process.env.E2E_MAILWRIGHT_HTTP_PORT),
      smtpPort,
      apiKey: 'mw_e2e_key',
      extraArgs: ['--log-level', 'warn'],
      reuseExistingServer: false,
    }),
    {
      name: 'demo app',
      command: 'node fixtures/app/main.js',
      url: appURL,
      env: { PORT: process.env.E2E_APP_PORT!, SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtpPort) },
      reuseExistingServer: false,
      stdout: 'ignore',
    },
  ],
  projects: [
    { name: 'unit', testDir: './test/unit' },
    { name: 'integration', testDir: './test/integration', timeout: 60_000 },
    // The web UI in Chromium, against services the specs start themselves.
    { name: 'ui', testDir: './test/ui', timeout: 60_000, use: { ...devices['Desktop Chrome'], launchOptions: chromiumLaunchOptions(), trace: 'retain-on-failure' } },
    {
      name: 'e2e',
      testDir: './e2e',
      use: { ...devices['Desktop Chrome'], baseURL: appURL, launchOptions: chromiumLaunchOptions(), trace: 'retain-on-failure' },
    },
  ],
});
