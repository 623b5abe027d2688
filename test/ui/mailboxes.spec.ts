// Mailboxes and the message viewer in Chromium: a mailbox made in the UI shows new mail without
// a reload, mail HTML is shown sandboxed with nothing of it running, extraction shows its
// answer, and another account's mailbox, message and stream are 404s.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { signIn, startUiService, type UiService } from './helpers.js';

let service: UiService;
let bobKey: string;
test.beforeAll(async () => {
  service = await startUiService();
  await service.person('alice@example.com');
  bobKey = await service.person('bob@example.com');
});
test.afterAll(() => service.close());

test('a mailbox created in the UI shows new mail as it arrives, without a reload', async ({ page }, testInfo) => {
  await signIn(page, service, 'alice@example.com');
  await page.getByLabel('Name').fill('signup-check');
  await page.getByLabel('Expires after').selectOption({ label: '1 hour' });
  await page.getByRole('button', { name: 'New mailbox' }).click();
  await expect(page.getByRole('heading', { name: 'signup-check@mailwright.test' })).toBeVisible();
  await expect(page.getByText('Live: new mail appears here')).toBeVisible(); // the stream is open
  await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));

  await service.send({ from: 'app@example.com', to: 'signup-check@mailwright.test', subject: 'Verify your email', text: 'Your code is 482913' });
  const row = page.getByRole('row').filter({ hasText: 'Verify your email' });
  await expect(row).toBeVisible();
  await expect(page.locator('#count')).toHaveText('1');
  expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42); // same document: no reload
  await testInfo.attach('mailbox', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });

  await row.getByRole('link', { name: 'Verify your email' }).click();
  await expect(page.getByRole('heading', { name: 'Verify your email' })).toBeVisible();
  await expect(page.getByTestId('extracted-code')).toHaveText('482913');
  await page.getByRole('link', { name: 'Headers' }).click();
  await expect(page.getByRole('rowheader', { name: 'subject' })).toBeVisible();
  await page.getByRole('link', { name: 'Raw' }).click();
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download .eml' }).click();
  expect((await download).suggestedFilename()).toMatch(/\.eml$/);

  await service.send({
    from: 'app@example.com', to: 'signup-check@mailwright.test', cc: 'audit@example.com', subject: 'Your invoice', text: 'attached',
    attachments: [{ filename: 'invoice.txt', content: 'total: 42 EUR\n', contentType: 'text/plain' }],
  });
  await page.goto(service.httpUrl + '/mailboxes');
  await expect(page.getByRole('row').filter({ hasText: 'signup-check@mailwright.test' })).toContainText('2');
  await page.getByRole('link', { name: 'signup-check@mailwright.test' }).click();
  await page.getByRole('link', { name: 'Your invoice' }).click();
  await expect(page.getByRole('definition').filter({ hasText: 'audit@example.com' })).toBeVisible(); // cc
  await page.getByRole('link', { name: 'Attachments' }).click();
  const file = page.waitForEvent('download');
  await page.getByRole('link', { name: 'invoice.txt' }).click();
  const saved = await file;
  expect(saved.suggestedFilename()).toBe('invoice.txt');
  const { readFile } = await import('node:fs/promises');
  expect(await readFile((await saved.path())!, 'utf8')).toBe('total: 42 EUR\n');
});

test.describe('hostile mail HTML', () => {
  let images: Server;
  let imageRequests = 0;
  test.beforeAll(async () => {
    images = createServer((_req, res) => {
      imageRequests++;
      res.writeHead(200, { 'content-type': 'image/gif' }).end(Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64'));
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  });
  test.afterAll(() => new Promise<void>((resolve) => images.close(() => resolve())));

  test('is shown sandboxed: no script, no onerror, no form submission, remote images only on request', async ({ page }, testInfo) => {
    const imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/pixel.gif`;
    expect((await service.api('POST', '/api/emails/generate', { body: { name: 'hostile', expiryTime: 3_600_000 } })).status).toBe(201);
    const html = `<h1 id="hello">Confirm your account</h1>
      <p><a href="https://app.example/verify?token=Zk3qP9wX2mL7">Confirm my account</a></p>
      <script>document.body.dataset.ran = 'script'; try { parent.document.body.dataset.pwned = 'script' } catch (e) {}</script>
      <img src="does-not-exist.png" onerror="document.body.dataset.onerror = 'ran'; try { parent.document.body.dataset.pwned = 'onerror' } catch (e) {}">
      <form action="${imageUrl.replace('pixel.gif', 'steal')}" method="post"><input name="q" value="secret"><button id="go">Go</button></form>
      <img id="remote" src="${imageUrl}" alt="tracker">`;
    await service.send({ from: 'evil@example.com', to: 'hostile@mailwright.test', subject: 'Hostile', html, text: 'see html' });
    // The admin made this mailbox through the API: sign in as the admin through its one-time link.
    await page.goto(service.signInUrl!);
    await page.getByLabel('New password').fill('admin password 123');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.goto(service.httpUrl + '/mailboxes');
    await page.getByRole('link', { name: 'hostile@mailwright.test' }).click();
    await page.getByRole('link', { name: 'Hostile' }).click();

    const frame = page.frameLocator('iframe[title="Message HTML"]');
    await expect(frame.locator('#hello')).toHaveText('Confirm your account');
    await expect(page.getByTestId('extracted-link')).toHaveText('https://app.example/verify?token=Zk3qP9wX2mL7');
    const frameBody = frame.locator('body');
    await frame.locator('#go').click();
    await expect(frame.locator('#hello')).toBeVisible(); // still the mail: the form did not navigate the frame
    await expect(frameBody).not.toHaveAttribute('data-ran', /.*/);
    await expect(frameBody).not.toHaveAttribute('data-onerror', /.*/);
    await expect(page.locator('body')).not.toHaveAttribute('data-pwned', /.*/);
    expect(imageRequests).toBe(0); // remote image blocked, form never sent
    const sandbox = await page.locator('iframe[title="Message HTML"]').getAttribute('sandbox');
    expect(sandbox).not.toContain('allow-scripts');
    expect(sandbox).not.toContain('allow-same-origin');
    await testInfo.attach('message', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });

    // Opened on its own, the HTML route is still sandboxed by its own policy.
    const direct = await page.request.get(await page.locator('iframe[title="Message HTML"]').evaluate((f) => (f as HTMLIFrameElement).src));
    expect(direct.headers()['content-security-policy']).toMatch(/^sandbox /);
    expect(direct.headers()['content-security-policy']).toContain("default-src 'none'");

    await page.getByRole('link', { name: 'Load remote images' }).click();
    await expect(frame.locator('#remote')).toHaveJSProperty('naturalWidth', 1);
    expect(imageRequests).toBe(1);
    await expect(frameBody).not.toHaveAttribute('data-ran', /.*/);
  });
});

test('mail stored after the page is drawn but before its stream opens still appears', async ({ page }) => {
  await signIn(page, service, 'alice@example.com');
  // Hold the stream's request back and send the mail meanwhile: the gap a fast sender hits.
  let sent = false;
  await page.route('**/mailboxes/*/events*', async (route) => {
    await service.send({ from: 'app@example.com', to: 'gap-check@mailwright.test', subject: 'Sent while loading', text: 'code 771100' });
    sent = true;
    await route.continue();
  });
  await page.getByLabel('Name').fill('gap-check');
  await page.getByRole('button', { name: 'New mailbox' }).click();
  await expect(page.getByRole('heading', { name: 'gap-check@mailwright.test' })).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: 'Sent while loading' })).toBeVisible();
  expect(sent).toBe(true);
  await expect(page.locator('#count')).toHaveText('1');
});

test("another account's mailbox, message and stream answer 404", async ({ page }) => {
  const created = await service.api('POST', '/api/emails/generate', { key: bobKey, body: { name: 'bobs-box', expiryTime: 3_600_000 } });
  expect(created.status).toBe(201);
  await service.send({ from: 'app@example.com', to: 'bobs-box@mailwright.test', subject: 'For Bob only', text: 'secret' });
  const list = await service.api('GET', `/api/emails/${created.body.id}`, { key: bobKey });
  const messageId = list.body.messages[0].id as string;

  await signIn(page, service, 'alice@example.com');
  for (const path of [`/mailboxes/${created.body.id}`, `/mailboxes/${created.body.id}/messages/${messageId}`, `/mailboxes/${created.body.id}/messages/${messageId}/html`]) {
    const response = await page.goto(service.httpUrl + path);
    expect(response!.status(), path).toBe(404);
    await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();
    await expect(page.getByText('For Bob only')).toHaveCount(0);
  }
  const stream = await page.request.get(`${service.httpUrl}/mailboxes/${created.body.id}/events`);
  expect(stream.status()).toBe(404);
  // Signed out, the pages send people to the sign-in page.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.goto(service.httpUrl + '/mailboxes');
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
});
