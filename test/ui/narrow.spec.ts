// Every page on a 390 px phone: nothing scrolls the page sideways, even with long subjects,
// addresses and URLs; tables read as one card per row, each value labelled.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import { startUiService, type UiService } from './helpers.js';

const WIDTH = 390;
const LONG_NAME = 'a-very-long-mailbox-name-for-checking-narrow-screens-0123456789';
const LONG_SENDER = 'notifications-no-reply-department@accounts.subdomain.example-company-with-a-long-name.com';
const LONG_SUBJECT = 'Confirm your address: https://app.example.com/verify?token=Zk3qP9wX2mL7Zk3qP9wX2mL7Zk3qP9wX2mL7Zk3qP9wX2mL7';

let service: UiService;
let receiver: Server;
test.beforeAll(async () => {
  service = await startUiService();
  receiver = createServer((_req, res) => res.writeHead(200).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});
test.afterAll(async () => {
  await service.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

test.use({ viewport: { width: WIDTH, height: 844 } });
test.describe.configure({ mode: 'serial' }); // the second test signs in with the password the first one sets

/** How far the page reaches past the screen's right edge (0 when it fits). */
async function overflow(page: Page): Promise<number> {
  return page.evaluate((width) => document.documentElement.scrollWidth - width, WIDTH);
}

async function expectFits(page: Page, what: string): Promise<void> {
  await expect.poll(() => overflow(page), { message: `${what} is wider than ${WIDTH}px`, timeout: 5_000 }).toBeLessThanOrEqual(0);
  // Whatever the document's width says, nothing visible sticks out to the right either.
  const widest = await page.evaluate(() => {
    let right = 0;
    let name = '';
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      // Inside a box that scrolls on its own (the preview at Tablet width) is not the page scrolling.
      if (el.closest('.preview') && !el.matches('.preview')) continue;
      if (box.right > right) { right = box.right; name = el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : ''); }
    }
    return { right: Math.ceil(right + window.scrollX), name };
  });
  expect(widest.right, `${what}: ${widest.name} reaches ${widest.right}px`).toBeLessThanOrEqual(WIDTH);
}

test('every page fits a 390 px screen without sideways scrolling', async ({ page }, testInfo) => {
  const shot = async (name: string) => testInfo.attach(name, { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });

  // Signed out: the sign-in page, then the admin's one-time link and its set-password page.
  await page.goto(service.httpUrl + '/');
  await expectFits(page, 'the sign-in page');
  await shot('sign-in');
  await page.goto(service.signInUrl!);
  await expectFits(page, 'the set-password page');
  await page.getByLabel('New password').fill('the admin password 123');
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Mailboxes', level: 1 })).toBeVisible();

  // A mailbox with a long name, made with the form at this width.
  await page.getByLabel('Name').fill(LONG_NAME);
  await page.getByRole('button', { name: 'New mailbox' }).click();
  const address = `${LONG_NAME}@mailwright.test`;
  await expect(page.getByRole('heading', { name: address })).toBeVisible();
  const mailboxUrl = page.url();
  await service.send({
    from: `"A sender with a long display name, Accounts Department" <${LONG_SENDER}>`, to: address, cc: 'audit-trail-archive-mailbox@compliance.example-company-with-a-long-name.com',
    subject: LONG_SUBJECT, text: `Confirm: https://app.example.com/verify?token=${'Zk3qP9wX2mL7'.repeat(8)}\nYour code is 482913`,
    html: `<table width="600" style="width:600px"><tr><td><h1>Confirm your address</h1><p>Your code is <b style="font-size:28px">482913</b></p>
      <p><a href="https://app.example.com/verify?token=${'Zk3qP9wX2mL7'.repeat(8)}">https://app.example.com/verify?token=${'Zk3qP9wX2mL7'.repeat(8)}</a></p></td></tr></table>`,
    attachments: [{ filename: `a-long-attachment-file-name-that-does-not-stop-${'x'.repeat(60)}.txt`, content: 'hello\n', contentType: 'text/plain' }],
  });
  await expect(page.getByRole('link', { name: LONG_SUBJECT })).toBeVisible(); // live arrival
  await expectFits(page, 'a mailbox (live row)');
  await page.goto(mailboxUrl);
  await expectFits(page, 'a mailbox');
  await shot('mailbox');
  await page.goto(service.httpUrl + '/mailboxes');
  await expectFits(page, 'the mailboxes page');
  await shot('mailboxes');

  // The message, every tab, and the preview at each width.
  await page.goto(mailboxUrl);
  await page.getByRole('link', { name: LONG_SUBJECT }).click();
  await expect(page.getByRole('heading', { name: LONG_SUBJECT, level: 1 })).toBeVisible();
  await expect(page.locator('iframe.mail')).toHaveClass(/fitted/);
  await expectFits(page, 'a message (HTML)');
  await shot('message');
  for (const width of ['Phone', 'Tablet', 'Desktop']) {
    await page.getByRole('button', { name: width }).click();
    await expectFits(page, `a message (HTML at ${width} width)`);
  }
  for (const tab of ['Text', 'Headers', 'Raw', 'Attachments']) {
    await page.getByRole('navigation', { name: 'Message parts' }).getByRole('link', { name: tab }).click();
    await expect(page.getByRole('region', { name: tab })).toBeVisible();
    await expectFits(page, `a message (${tab})`);
  }

  // Profile, with a key.
  await page.goto(service.httpUrl + '/profile');
  await page.getByLabel('Name').fill('a-key-with-a-rather-long-name-for-ci-0123456789');
  await page.getByRole('button', { name: 'Generate key' }).click();
  await expect(page.getByTestId('new-key')).toBeVisible();
  await expectFits(page, 'the profile page');
  await shot('profile');
  const keyRow = page.getByRole('row').filter({ hasText: 'a-key-with-a-rather-long-name' });
  await expect(keyRow.locator('td[data-label="Created"]')).toBeVisible();

  // Webhooks: one with a long URL, a test event, its delivery log.
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/a-rather-long-path/that-keeps-going/${'segment'.repeat(8)}`;
  await page.goto(service.httpUrl + '/webhooks');
  await page.getByLabel('URL').fill(url);
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await expect(page.getByTestId('webhook-secret')).toBeVisible();
  await page.getByRole('row').filter({ hasText: url }).getByRole('button', { name: 'Send test' }).click();
  await expect(page.getByText(`Test event to ${url}: delivered`)).toBeVisible();
  await expectFits(page, 'the webhooks page');
  await shot('webhooks');
  await page.getByRole('link', { name: url }).click();
  await expect(page.getByRole('row').filter({ hasText: 'webhook.test' })).toBeVisible();
  await expectFits(page, 'a webhook');
  await shot('webhook');

  await page.goto(service.httpUrl + '/admin');
  await expect(page.getByRole('heading', { name: 'Admin', level: 1 })).toBeVisible();
  await expectFits(page, 'the admin page');
  await shot('admin');

  // All mail and Refused (pages being written beside this one: checked once they exist).
  for (const [path, name] of [['/messages', 'All mail'], ['/refused', 'Refused']] as const) {
    const response = await page.goto(service.httpUrl + path);
    if (response?.status() === 404) {
      testInfo.annotations.push({ type: 'skipped page', description: `${path} answers 404 (not written yet)` });
      continue;
    }
    expect(response?.status(), path).toBe(200);
    await expectFits(page, `${name} (${path})`);
    await shot(name);
  }
  await page.goto(service.httpUrl + '/no-such-page');
  await expectFits(page, 'the 404 page');
});

test('tables are cards on a phone: no header row, each value with its label', async ({ page }) => {
  await page.goto(service.httpUrl + '/');
  await page.getByLabel('Email').fill('admin@mailwright.local');
  await page.getByLabel('Password').fill('the admin password 123');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Mailboxes', level: 1 })).toBeVisible();
  const row = page.getByRole('row').filter({ hasText: LONG_NAME });
  await expect(row).toBeVisible();
  await expect(page.locator('thead').first()).toBeHidden();
  const expires = row.locator('td[data-label="Expires"]');
  expect(await expires.evaluate((td) => getComputedStyle(td, '::before').content)).toBe('"Expires"');
  expect(await expires.evaluate((td) => getComputedStyle(td).display)).toBe('block');
  // The cells stack: the address is above the count, not beside it.
  const addressBox = (await row.locator('td[data-label="Address"]').boundingBox())!;
  const countBox = (await row.locator('td[data-label="Messages"]').boundingBox())!;
  expect(countBox.y).toBeGreaterThanOrEqual(addressBox.y + addressBox.height - 1);
});
