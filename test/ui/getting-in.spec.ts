// Getting in, and the polish around it, in Chromium: the sign-in page tells a person without a
// password how to get in; `mailwright accounts sign-in-link` prints the running service's address
// (not always port 8025); a first password set through that link goes on to the mailboxes. The
// webhook pages: a failed attempt says "HTTP 500" once, "Send test" comes back to the list (a
// reload sends nothing), deleting asks first (also without JavaScript). Every page's browser
// asks for /favicon.ico, which is served.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { runCli } from '../integration/helpers/cli-process.js';
import { spawnServe } from '../integration/helpers/serve-process.js';
import { cli, tempDir, type TestService } from '../integration/helpers/service.js';
import { PASSWORD, signIn, startUiService, type UiService } from './helpers.js';

const HINT = 'No password yet? Ask an admin, or run npx mailwright accounts sign-in-link --email you@example.com.';

/** The link on the last line of `accounts sign-in-link`. */
function linkOf(stdout: string): string {
  return stdout.trim().split('\n').at(-1)!.trim();
}

async function setPassword(page: Page, link: string, password: string): Promise<void> {
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Set your password' })).toBeVisible();
  await page.getByLabel('New password').fill(password);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
}

test('a person without a password finds the way in: the hint, a link to the running service, then the mailboxes', async ({ page }) => {
  test.setTimeout(120_000);
  const data = join(tempDir('mailwright-ui-'), 'mailwright.db');
  const serve = await spawnServe(['--data', data]);
  try {
    await cli('accounts', 'create', '--email', 'newbie@example.com', '--data', data);
    await page.goto(serve.httpUrl + '/');
    await expect(page.getByTestId('no-password-hint')).toHaveText(HINT);

    // The link points at the service that runs on this store, on its own port.
    const issued = await runCli('accounts', 'sign-in-link', '--email', 'newbie@example.com', '--data', data);
    expect(issued).toMatchObject({ code: 0, stderr: '' });
    const link = linkOf(issued.stdout);
    expect(link).toMatch(new RegExp(`^${serve.httpUrl.replace(/\./g, '\\.')}/sign-in/link/[a-z0-9]{40}$`));
    expect(serve.httpUrl).not.toBe('http://127.0.0.1:8025');

    // Too short (past the browser's own check): the same page says why.
    await page.goto(link);
    await page.locator('form[action="/profile/password"]').evaluate((form: HTMLFormElement) => void (form.noValidate = true));
    await page.getByLabel('New password').fill('short');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await expect(page.getByRole('alert')).toContainText('Choose another password');
    await expect(page.getByRole('heading', { name: 'Set your password' })).toBeVisible();
    await page.getByLabel('New password').fill('a first password 123');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await expect(page.getByRole('heading', { name: 'Mailboxes', level: 1 })).toBeVisible();
    expect(new URL(page.url()).pathname).toBe('/mailboxes');
    await expect(page.getByText('other sessions were signed out')).toHaveCount(0);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, { httpUrl: serve.httpUrl } as TestService, 'newbie@example.com', 'a first password 123');

    // A link for an account that has a password says what setting a new one does, and goes on to the mailboxes too.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.goto(linkOf((await runCli('accounts', 'sign-in-link', '--email', 'newbie@example.com', '--data', data)).stdout));
    await expect(page.getByText('It replaces the old one and signs out your other sessions.')).toBeVisible();
    await page.getByLabel('New password').fill('a second password 456');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await expect(page.getByRole('heading', { name: 'Mailboxes', level: 1 })).toBeVisible();
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
  // No service runs on the store any more: the default address, and a note saying so.
  const fallback = await runCli('accounts', 'sign-in-link', '--email', 'newbie@example.com', '--data', data);
  expect(fallback.code).toBe(0);
  expect(linkOf(fallback.stdout)).toMatch(/^http:\/\/127\.0\.0\.1:8025\/sign-in\/link\/[a-z0-9]{40}$/);
  expect(fallback.stderr).toBe('mailwright: note: no running `mailwright serve` of this store was found, so the link assumes the default address http://127.0.0.1:8025; if the service listens elsewhere, pass --url (or set MAILWRIGHT_URL) with the address it printed\n');
  const given = await runCli('accounts', 'sign-in-link', '--email', 'newbie@example.com', '--data', data, '--url', 'https://mail.example.test/');
  expect(given).toMatchObject({ code: 0, stderr: '' });
  expect(linkOf(given.stdout)).toMatch(/^https:\/\/mail\.example\.test\/sign-in\/link\/[a-z0-9]{40}$/);
});

test.describe('one service', () => {
  let service: UiService;
  let receiver: Server;
  let received = 0;
  test.beforeAll(async () => {
    service = await startUiService();
    await service.person('wren@example.com');
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received++;
        res.writeHead(500).end('no');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  test.afterAll(async () => {
    await service.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  test('/favicon.ico is the site icon, for anyone', async ({ request }) => {
    const icon = await request.get(service.httpUrl + '/favicon.ico', { maxRedirects: 0 });
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toContain('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect((await request.get(service.httpUrl + '/static/favicon.svg')).status()).toBe(200);
  });

  test('a failing test event: "HTTP 500" once, back on the list (a reload sends nothing), and once per attempt in the log', async ({ page }) => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/failing`;
    await signIn(page, service, 'wren@example.com');
    await page.goto(service.httpUrl + '/webhooks');
    await page.getByLabel('URL').fill(url);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await expect(page.getByTestId('webhook-secret')).toBeVisible();

    const before = received;
    await page.getByRole('row').filter({ hasText: url }).getByRole('button', { name: 'Send test' }).click();
    const result = page.getByTestId('webhook-test-result');
    await expect(result).toHaveText(new RegExp(`^Test event to ${url.replace(/\./g, '\\.')}: failed \\(HTTP 500\\), \\d+ ms\\.$`));
    expect(new URL(page.url()).pathname).toBe('/webhooks');
    expect(new URL(page.url()).searchParams.get('tested')).toMatch(/^wh_/);
    expect(received).toBe(before + 1);
    await page.reload();
    await expect(result).toHaveText(/failed \(HTTP 500\)/);
    expect(received).toBe(before + 1); // the reload showed the outcome again and sent nothing

    await page.getByRole('link', { name: url }).click();
    const attempt = page.getByRole('row').filter({ hasText: 'webhook.test' }).getByRole('listitem');
    await expect(attempt).toHaveText(/ — failed · HTTP 500 · \d+ ms$/);
  });

  test('deleting a webhook asks first; Cancel keeps it; it works without JavaScript', async ({ page, browser }) => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/doomed`;
    await signIn(page, service, 'wren@example.com');
    await page.goto(service.httpUrl + '/webhooks');
    await page.getByLabel('URL').fill(url);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('row').filter({ hasText: url }).getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByRole('heading', { name: 'Delete this webhook?' })).toBeVisible();
    expect(new URL(page.url()).pathname).toMatch(/^\/webhooks\/wh_\w+\/delete$/);
    await page.getByRole('link', { name: 'Cancel' }).click();
    await expect(page.getByRole('heading', { name: url })).toBeVisible();
    await page.goto(service.httpUrl + '/webhooks');
    await expect(page.getByRole('row').filter({ hasText: url })).toHaveCount(1);

    const noScript = await browser.newContext({ javaScriptEnabled: false });
    try {
      const plain = await noScript.newPage();
      await plain.goto(service.httpUrl + '/');
      await plain.getByLabel('Email').fill('wren@example.com');
      await plain.getByLabel('Password').fill(PASSWORD);
      await plain.getByRole('button', { name: 'Sign in' }).click();
      await plain.goto(service.httpUrl + '/webhooks');
      await plain.getByRole('row').filter({ hasText: url }).getByRole('button', { name: 'Delete' }).click();
      await plain.getByRole('button', { name: 'Delete webhook' }).click();
      await expect(plain.getByText('Deleted the webhook')).toBeVisible();
      await expect(plain.getByRole('row').filter({ hasText: url })).toHaveCount(0);
    } finally {
      await noScript.close();
    }
  });
});
