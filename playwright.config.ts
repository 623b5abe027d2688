import { defineConfig, devices } from '@playwright/test';
import { createServer, type AddressInfo } from 'node:net';
import { chromiumLaunchOptions, mailwrightServer } from 'mailwright';

// Projects: `unit` and `integration` need no browser; `e2e` drives Chromium against the
// demo app (fixtures/app), which mails the mailwright service started below.
//
// No port is picked here: the service and the demo app take free ports when they start and
// print them; Playwright reads those lines (webServer `wait`) into the environment that the
// app and the workers start with (MAILWRIGHT_URL, MAILWRIGHT_SMTP_URL, E2E_APP_URL). Workers
// load this file again and find them there.
// A port that refuses webhooks for the whole run: a listener owned by the runner that closes
// every connection at once (no fixed port, and nobody else can take it meanwhile).
if (!process.env.E2E_REFUSING_PORT) {
  const refusing = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  refusing.unref();
  process.env.E2E_REFUSING_PORT = String((refusing.address() as AddressInfo).port);
}
const appURL = process.env.E2E_APP_URL;
// Time budget of the browser suites. Up to four Chromiums share two cores with the service,
// the demo app and the other suites; a loaded CI machine has run these specs 3-5x slower than
// an idle one (a 5.5 s spec took 48 s). The budget bounds a hang; it is not a speed goal.
const browserBudget = { timeout: 90_000, expect: { timeout: 15_000 } };

export default defineConfig({
  forbidOnly: !!process.env.CI,
  workers: 4,
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : 'list',
  webServer: [
    mailwrightServer({
      httpPort: 0,
      smtpPort: 0,
      apiKey: 'mw_e2e_key',
      extraArgs: ['--log-level', 'warn'],
      reuseExistingServer: false,
    }),
    {
      name: 'demo app',
      // Started after the service: it inherits MAILWRIGHT_SMTP_URL from the runner's environment.
      command: 'node fixtures/app/main.js',
      wait: { stdout: /demo app listening on (?<e2e_app_url>http:\/\/\S+)/ },
      env: { PORT: '0' },
      reuseExistingServer: false,
      stdout: 'ignore',
    },
  ],
  projects: [
    { name: 'unit', testDir: './test/unit' },
    { name: 'integration', testDir: './test/integration', timeout: 60_000 },
    // The web UI in Chromium, against services the specs start themselves.
    { name: 'ui', testDir: './test/ui', ...browserBudget, use: { ...devices['Desktop Chrome'], launchOptions: chromiumLaunchOptions(), trace: 'retain-on-failure' } },
    {
      name: 'e2e',
      testDir: './e2e',
      ...browserBudget,
      use: { ...devices['Desktop Chrome'], baseURL: appURL, launchOptions: chromiumLaunchOptions(), trace: 'retain-on-failure' },
    },
  ],
});
