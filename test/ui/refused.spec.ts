// The Refused page in Chromium: what SMTP refused in the last day, newest first; an admin sees
// every refusal, another account only those of its own expired mailboxes' addresses; empty, it
// says what appears there and that --catch-all keeps mail to any address.
import { expect, test, type Page } from '@playwright/test';
import { signIn, startUiService, type UiService } from './helpers.js';

let service: UiService;
let patKey: string;
test.beforeAll(async () => {
  service = await startUiService();
  patKey = await service.person('pat@example.com');
});
test.afterAll(() => service.close());

/** Sends one message and expects it refused with 550. */
async function refused(to: string, from = 'dev-server@example.test'): Promise<void> {
  const error = await service.send({ from, to, subject: 'x', text: 'x' }).then(() => undefined, (e: { responseCode: number }) => e);
  expect(error?.responseCode, to).toBe(550);
}

/** Signs the admin in through its one-time link, setting a password. */
async function signInAdmin(page: Page): Promise<void> {
  await page.goto(service.signInUrl!);
  await page.getByLabel('New password').fill('admin password 123');
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Mailboxes', level: 1 })).toBeVisible();
}

test('an admin sees each refusal, newest first, with the time, recipient, sender, why and the SMTP reply', async ({ page }, testInfo) => {
  await signInAdmin(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Refused' }).click();
  await expect(page.getByRole('heading', { name: 'Refused', level: 1 })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Refused' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByText('Nothing was refused in the last day.')).toBeVisible();
  await expect(page.getByText('start the service with --catch-all to keep mail to any address')).toBeVisible();

  await refused('nobody-made-me@mailwright.test', 'signup@app.example');
  await refused('alice@exmaple.com');
  await expect.poll(async () => (await service.api('GET', '/api/emails/refusals')).body.refusals.length).toBe(2);
  await page.reload();
  const rows = page.getByRole('table').getByRole('row');
  await expect(rows).toHaveCount(3); // the heading and two refusals
  await expect(page.getByRole('columnheader')).toHaveText(['Time', 'Recipient', 'From', 'Why', 'SMTP reply']);
  // Newest first: the unserved domain was refused last.
  await expect(rows.nth(1)).toContainText('alice@exmaple.com');
  await expect(rows.nth(1)).toContainText('domain not served');
  const unknown = rows.nth(2);
  await expect(unknown.getByRole('cell').nth(1)).toHaveText('nobody-made-me@mailwright.test');
  await expect(unknown.getByRole('cell').nth(2)).toHaveText('signup@app.example');
  await expect(unknown.getByRole('cell').nth(3)).toHaveText('no such mailbox');
  await expect(unknown.getByRole('cell').nth(4)).toHaveText('550 5.1.1 <nobody-made-me@mailwright.test>: no such mailbox here; create it first with POST /api/emails/generate');
  const time = unknown.locator('time.relative');
  expect(Date.now() - Date.parse((await time.getAttribute('datetime'))!)).toBeLessThan(5 * 60_000);
  // Every cell is labelled for the narrow-screen layout.
  const labels = await unknown.getByRole('cell').evaluateAll((cells) => cells.map((c) => c.getAttribute('data-label')));
  expect(labels).toEqual(['Time', 'Recipient', 'From', 'Why', 'SMTP reply']);
  await testInfo.attach('refused', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });
});

test("another account sees only refusals of its own expired mailboxes' addresses", async ({ page }) => {
  const box = (await service.api('POST', '/api/emails/generate', { key: patKey, body: { name: 'pats-box', expiryTime: 3_600_000 } })).body;
  expect((await service.api('POST', `/api/emails/${box.id}/expire`, { key: patKey })).status).toBe(200);
  await refused('pats-box@mailwright.test');
  await refused('not-pats@mailwright.test');
  await expect.poll(async () => (await service.api('GET', '/api/emails/refusals', { key: patKey })).body.refusals.length).toBe(1);

  await signIn(page, service, 'pat@example.com');
  await page.goto(service.httpUrl + '/refused');
  await expect(page.getByText('Mail refused for the addresses of your expired mailboxes')).toBeVisible();
  const rows = page.getByRole('table').getByRole('row');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(1)).toContainText('pats-box@mailwright.test');
  await expect(rows.nth(1)).toContainText('mailbox expired');
  await expect(page.getByRole('table')).not.toContainText('not-pats@mailwright.test');
  await expect(page.getByRole('table')).not.toContainText('nobody-made-me');
});

test('signed out, the page sends you to sign in', async ({ page }) => {
  await page.goto(service.httpUrl + '/refused');
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  expect(new URL(page.url()).search).toBe(`?next=${encodeURIComponent('/refused')}`);
});
