// The message viewer in Chromium: images a mail embeds as `cid:` parts show from the message
// itself (nothing remote), the parts are listed by name; the HTML preview is as tall as the mail
// (the page scrolls, not a box inside it) at Phone, Tablet and Desktop widths; the code's "Why"
// lists each reason once, in plain words; times read relative, the absolute time kept in the title.
import { deflateSync } from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import { signIn, startUiService, type UiService } from './helpers.js';

let service: UiService;
let key: string;
const EMAIL = 'viewer@example.com';

test.beforeAll(async () => {
  service = await startUiService();
  key = await service.person(EMAIL);
});
test.afterAll(() => service.close());

/** A solid-colour PNG of `width`×`height` (8-bit RGB), written by hand: no image library. */
function png(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => [r, g, b]).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}

/** A new mailbox of the viewer's account; returns its address and id. */
async function mailbox(name: string): Promise<{ address: string; id: string }> {
  const created = await service.api('POST', '/api/emails/generate', { key, body: { name, expiryTime: 3_600_000 } });
  expect(created.status).toBe(201);
  return { address: created.body.email ?? `${name}@mailwright.test`, id: created.body.id };
}

/** Opens the only message of the mailbox in the viewer. */
async function openMessage(page: Page, box: { id: string }, subject: string): Promise<void> {
  await page.goto(`${service.httpUrl}/mailboxes/${box.id}`);
  await page.getByRole('link', { name: subject }).click();
  await expect(page.getByRole('heading', { name: subject, level: 1 })).toBeVisible();
}

const frameOf = (page: Page) => page.locator('iframe[title="Message HTML"]');

test.beforeEach(async ({ page }) => {
  await signIn(page, service, EMAIL);
});

test('an image embedded as a cid: part shows in the sandboxed frame, and the part is listed by its name', async ({ page }, testInfo) => {
  const box = await mailbox('cid-logo');
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await service.send({
    from: 'brand@example.com', to: `cid-logo@mailwright.test`, subject: 'Welcome aboard', text: 'Welcome',
    html: '<p><img id="logo" src="cid:logo@acme" alt="ACME" width="120" height="40"></p><p style="background:url(cid:logo@acme)">Welcome to ACME.</p>',
    attachments: [
      { cid: 'logo@acme', content: png(120, 40, [79, 70, 229]), filename: 'logo.png' },
      { cid: 'badge@acme', content: png(8, 8, [4, 120, 87]), contentType: 'image/png', filename: false }, // embedded, no file name
      { filename: 'terms.txt', content: 'Be nice.\n', contentType: 'text/plain' },
    ],
  });
  await openMessage(page, box, 'Welcome aboard');

  const logo = page.frameLocator('iframe[title="Message HTML"]').locator('#logo');
  await expect(logo).toBeVisible();
  await expect.poll(() => logo.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(120);
  expect(await logo.evaluate((img) => (img as HTMLImageElement).naturalHeight)).toBe(40);
  // Inlined from the message's own part: the frame asked nothing of any server for it.
  expect(requests.filter((url) => /cid:|logo|\.png/.test(url))).toEqual([]);
  const sandbox = await frameOf(page).getAttribute('sandbox');
  expect(sandbox).not.toContain('allow-scripts');
  expect(sandbox).not.toContain('allow-same-origin');
  await testInfo.attach('cid image', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });

  await page.getByRole('link', { name: 'Attachments' }).click();
  const files = page.getByRole('listitem');
  await expect(files.filter({ hasText: 'logo.png' })).toContainText('embedded as cid:logo@acme');
  await expect(page.getByRole('link', { name: 'badge@acme' })).toBeVisible(); // no file name: named by its Content-ID
  await expect(page.getByRole('link', { name: 'terms.txt' })).toBeVisible();
  await expect(page.getByText(/attachment-\d/)).toHaveCount(0);
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'logo.png' }).click();
  expect((await download).suggestedFilename()).toBe('logo.png');
});

test('the HTML route keeps remote content blocked and only inlines images the message carries', async ({ page }) => {
  const box = await mailbox('cid-policy');
  await service.send({
    from: 'brand@example.com', to: 'cid-policy@mailwright.test', subject: 'Policy check',
    html: '<img src="cid:logo@acme"><img src="cid:missing@acme"><p>cid:logo@acme stays text</p>',
    attachments: [{ cid: 'logo@acme', content: png(2, 2, [0, 0, 0]), filename: 'logo.png' }],
  });
  await openMessage(page, box, 'Policy check');
  const src = await frameOf(page).getAttribute('src');
  const direct = await page.request.get(service.httpUrl + src!);
  const csp = direct.headers()['content-security-policy']!;
  expect(csp).toMatch(/^sandbox allow-popups /);
  expect(csp).toContain('img-src data:;');
  const html = await direct.text();
  expect(html).toContain('<img src="data:image/png;base64,');
  expect(html).toContain('<img src="cid:missing@acme">'); // no such part: left alone, and blocked
  expect(html).toContain('<p>cid:logo@acme stays text</p>');
  // The copy the page measures keeps the same policy, sandboxed, only keeping its origin.
  const measured = await page.request.get(service.httpUrl + (await frameOf(page).getAttribute('data-measure'))!);
  expect(measured.headers()['content-security-policy']).toMatch(/^sandbox allow-same-origin; default-src 'none'; img-src data:;/);
  // Even when the person loads remote images, the measured copy never fetches them (the frame shown does, once).
  const measuredRemote = await page.request.get(service.httpUrl + (await frameOf(page).getAttribute('data-measure'))! + '&images=1');
  expect(measuredRemote.headers()['content-security-policy']).toContain('img-src data:;');
  // Signed out, the HTML route sends people to sign in.
  const other = await page.context().browser()!.newContext();
  expect((await other.request.get(service.httpUrl + src!, { maxRedirects: 0 })).status()).toBe(303);
  await other.close();
});

test('a tall mail shows whole: the frame grows to the mail, the page scrolls, at every preview width', async ({ page }, testInfo) => {
  const box = await mailbox('tall');
  const rows = Array.from({ length: 30 }, (_, i) => `<p style="height:96px;margin:0;border-bottom:4px solid #c7d2fe">Paragraph ${i + 1}</p>`).join('');
  await service.send({
    from: 'news@example.com', to: 'tall@mailwright.test', subject: 'A long newsletter',
    html: `<div style="max-width:640px;margin:0 auto">${rows}<p id="end">The end.</p></div>`, text: 'long',
  });
  await openMessage(page, box, 'A long newsletter');
  const frame = frameOf(page);
  const inner = page.frameLocator('iframe[title="Message HTML"]');
  await expect(inner.locator('#end')).toHaveText('The end.');

  /** The frame's own height and its document's: the frame shows all of it when these agree. */
  const sizes = async () => ({
    frame: await frame.evaluate((f) => f.clientHeight),
    width: await frame.evaluate((f) => f.clientWidth),
    document: await inner.locator('html').evaluate((html) => html.scrollHeight),
    view: await inner.locator('html').evaluate((html) => html.clientHeight),
  });
  await expect.poll(async () => (await sizes()).frame).toBeGreaterThanOrEqual(3000);
  let size = await sizes();
  expect(size.document).toBeLessThanOrEqual(size.view); // nothing left to scroll inside the frame
  expect(size.frame).toBeLessThan(3000 + 200); // sized to the mail, not just "very tall"
  // The page scrolls to the end of the mail.
  await inner.locator('#end').scrollIntoViewIfNeeded();
  await expect(inner.locator('#end')).toBeInViewport();
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(1000);
  await testInfo.attach('tall mail', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });

  const bar = page.getByRole('group', { name: 'Preview width' });
  const phone = bar.getByRole('button', { name: 'Phone' });
  const tablet = bar.getByRole('button', { name: 'Tablet' });
  const desktop = bar.getByRole('button', { name: 'Desktop' });
  await expect(desktop).toHaveAttribute('aria-pressed', 'true');
  const full = size.width;
  expect(full).toBeGreaterThan(768);
  expect(full).toBe(await page.locator('.preview').evaluate((p) => p.clientWidth - 2)); // the panel, less the frame's border

  await phone.click();
  await expect(phone).toHaveAttribute('aria-pressed', 'true');
  await expect(desktop).toHaveAttribute('aria-pressed', 'false');
  await expect.poll(async () => (await sizes()).width).toBe(375);
  await expect.poll(async () => { const s = await sizes(); return s.document <= s.view && s.frame >= 3000; }).toBe(true);
  expect(await inner.locator('html').evaluate((html) => html.clientWidth)).toBe(375);
  expect(page.url()).toContain('width=phone');
  await testInfo.attach('phone width', { body: await page.screenshot(), contentType: 'image/png' });

  await tablet.click();
  await expect(tablet).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(async () => (await sizes()).width).toBe(768);
  await expect(page.getByRole('link', { name: 'Load remote images' })).toHaveAttribute('href', /width=tablet/);

  // A reload keeps the width chosen.
  await page.reload();
  await expect(page.getByRole('button', { name: 'Tablet' })).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(async () => (await sizes()).width).toBe(768);

  await page.getByRole('button', { name: 'Desktop' }).click();
  await expect.poll(async () => (await sizes()).width).toBe(full);
  await expect.poll(async () => { const s = await sizes(); return s.document <= s.view; }).toBe(true);
  expect(page.url()).not.toContain('width=');
  size = await sizes();
  expect(size.frame).toBeGreaterThanOrEqual(3000);
});

test('a short mail gets a short frame', async ({ page }) => {
  const box = await mailbox('short');
  await service.send({ from: 'app@example.com', to: 'short@mailwright.test', subject: 'Two lines', html: '<p>Hello.</p><p>Bye.</p>', text: 'Hello. Bye.' });
  await openMessage(page, box, 'Two lines');
  await expect(frameOf(page)).toHaveClass(/fitted/);
  const height = await frameOf(page).evaluate((f) => f.clientHeight);
  expect(height).toBeLessThan(250);
});

test("the code's Why lists each reason once, in the mail's own words", async ({ page }) => {
  const box = await mailbox('why');
  await service.send({
    from: 'auth@example.com', to: 'why@mailwright.test', subject: 'Your sign-in code', text: 'Your code: 482913',
    html: '<p>Your code:</p><table><tr><td style="background-color:#eef2ff;font-size:32px;font-weight:bold">482913</td></tr></table>',
  });
  await openMessage(page, box, 'Your sign-in code');
  await expect(page.getByTestId('extracted-code')).toHaveText('482913');
  const why = page.locator('details').filter({ has: page.getByText('Why') }).nth(1);
  await why.getByText('Why').click();
  await expect(why).toContainText('alone in its block (+');
  await expect(why).toContainText('in a box (+');
  await expect(why).not.toContainText('shown with');
  const text = (await why.innerText()).replace(/\s+/g, ' ');
  expect(text.match(/alone in its block \(\+\d+\)/g)).toHaveLength(1);
  expect(text.match(/in a box \(\+\d+\)/g)).toHaveLength(1);
  const item = why.getByRole('listitem').filter({ hasText: '482913' });
  const reasons = (await item.innerText()).replace(/^.*?: /, '').split('; ');
  expect(new Set(reasons).size).toBe(reasons.length);
});

test('times read relative with the absolute time in the title, and update', async ({ page }) => {
  const box = await mailbox('times');
  await service.send({ from: 'app@example.com', to: 'times@mailwright.test', subject: 'Just arrived', text: 'hi' });
  await page.clock.install();
  await openMessage(page, box, 'Just arrived');
  const date = page.getByRole('definition').locator('time.relative');
  await expect(date).toHaveText('just now');
  await expect(date).toHaveAttribute('title', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · /);
  await page.clock.fastForward('03:10');
  await expect(date).toHaveText('3 min ago');
  await page.clock.fastForward('26:00:00');
  await expect(date).toHaveText(/^(yesterday|2 days ago)$/);
});

test('without JavaScript the preview is full width and the times absolute', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await signIn(page, service, EMAIL);
  const box = await mailbox('no-script');
  await service.send({ from: 'app@example.com', to: 'no-script@mailwright.test', subject: 'Plain page', html: '<p id="hello">Hello</p>', text: 'Hello' });
  await openMessage(page, box, 'Plain page');
  await expect(page.getByRole('button', { name: 'Phone' })).toBeHidden();
  const frame = frameOf(page);
  expect(await frame.evaluate((f) => f.clientWidth)).toBe(await page.locator('.preview').evaluate((p) => p.clientWidth - 2));
  expect(await frame.evaluate((f) => f.clientHeight)).toBeGreaterThan(300); // most of the window: no JavaScript to measure the mail
  await expect(page.getByRole('definition').locator('time.relative')).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  await context.close();
});
