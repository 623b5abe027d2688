// Webhooks and layout in Chromium: create one (secret shown once), send a test event, read
// its delivery log; pages fit a 375 px screen; the sign-in form works from the keyboard.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { PASSWORD, signIn, startUiService, type UiService } from './helpers.js';

let service: UiService;
let receiver: Server;
const received: string[] = [];
test.beforeAll(async () => {
  service = await startUiService();
  await service.person('wes@example.com');
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});
test.afterAll(async () => {
  await service.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

test('a webhook made in the UI shows its secret once, takes a test event and logs each attempt', async ({ page }) => {
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  await signIn(page, service, 'wes@example.com');
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByLabel('URL').fill(url);
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await expect(page.getByTestId('webhook-secret')).toHaveText(/^whsec_/);

  const row = page.getByRole('row').filter({ hasText: url });
  await row.getByRole('button', { name: 'Send test' }).click();
  await expect(page.getByText(`Test event to ${url}: delivered (HTTP 200)`)).toBeVisible();
  expect(received.some((body) => body.includes('"webhook.test"'))).toBe(true);

  await page.getByRole('link', { name: url }).click();
  const log = page.getByRole('row').filter({ hasText: 'webhook.test' });
  await expect(log).toContainText('delivered');
  await expect(log).toContainText('HTTP 200');

  await page.goto(service.httpUrl + '/webhooks');
  await page.getByRole('row').filter({ hasText: url }).getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('button', { name: 'Delete webhook' }).click(); // on the confirmation page
  await expect(page.getByText('Deleted the webhook')).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: url })).toHaveCount(0);
  const api = await service.api('GET', '/api/config/webhooks', { key: null, headers: {} });
  expect(api.status).toBe(401); // the pages never open the API to a cookie alone
});

test('every page fits a 375 px wide screen without sideways scrolling', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await signIn(page, service, 'wes@example.com');
  await page.getByLabel('Name').fill('narrow');
  await page.getByRole('button', { name: 'New mailbox' }).click();
  await expect(page.getByRole('heading', { name: 'narrow@mailwright.test' })).toBeVisible(); // the mailbox exists before mail is sent to it
  await expect(page.getByText('Live: new mail appears here')).toBeVisible();
  await service.send({ from: 'app@example.com', to: 'narrow@mailwright.test', subject: 'Your sign-in code', html: '<p>Use <b>551234</b> to sign in.</p>' });
  await page.getByRole('link', { name: 'Your sign-in code' }).click();
  for (const path of ['', '/mailboxes', '/profile', '/webhooks']) {
    if (path) await page.goto(service.httpUrl + path);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${path || 'message page'} overflows by ${overflow}px`).toBeLessThanOrEqual(0);
  }
});

test('the sign-in form works from the keyboard alone', async ({ page }) => {
  await page.goto(service.httpUrl + '/');
  await page.getByLabel('Email').focus();
  await page.keyboard.type('wes@example.com');
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Password')).toBeFocused();
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Mailboxes', level: 1 })).toBeVisible();
});

test('the sign-in page is styled for a signed-out visitor', async ({ page }) => {
  await page.goto(service.httpUrl + '/');
  const css = await page.request.get(service.httpUrl + '/static/app.css', { maxRedirects: 0 });
  expect(css.status()).toBe(200);
  expect(css.headers()['content-type']).toContain('text/css');
  // The bar is dark: the stylesheet applied.
  await expect(page.locator('header.bar')).toHaveCSS('background-color', 'rgb(17, 24, 39)');
});
