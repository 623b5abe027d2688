// The Checks tab of the message view in Chromium: the HTML check by mail client (default
// clients, then the ones typed in; an unknown client says which exist), and "Check every link",
// run by the service itself: on loopback here, so a local server's links are reachable.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { signIn, startUiService, type UiService } from './helpers.js';

let service: UiService;
let key: string;
let site: Server;
let origin: string;

test.beforeAll(async () => {
  service = await startUiService();
  key = await service.person('erin@example.com');
  site = createServer((req, res) => {
    if (req.url === '/ok') res.writeHead(200).end('ok');
    else if (req.url === '/moved') res.writeHead(302, { location: '/ok' }).end();
    else if (req.url === '/no-head') res.writeHead(req.method === 'HEAD' ? 405 : 200).end();
    else res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
  await service.close();
});

test('the Checks tab shows what each client lacks, and checks every link through the service', async ({ page }, testInfo) => {
  const created = await service.api('POST', '/api/emails/generate', { key, body: { name: 'newsletter', expiryTime: 3_600_000 } });
  await service.send({
    from: 'news@example.com',
    to: 'newsletter@mailwright.test',
    subject: 'Spring news',
    html: `<html><body><div style="display:flex"><video src="${origin}/clip.mp4"></video><a href="${origin}/ok">Read</a> <a href="${origin}/moved">Moved</a> <a href="${origin}/no-head">Old</a> <a href="${origin}/gone">Gone</a> <a href="mailto:x@example.com">Mail</a></div></body></html>`,
    text: `Read: ${origin}/ok`,
  });
  await signIn(page, service, 'erin@example.com');
  await page.goto(`${service.httpUrl}/mailboxes/${created.body.id}`);
  await page.getByRole('link', { name: 'Spring news' }).click();
  await page.getByRole('link', { name: 'Checks' }).click();

  const report = page.getByTestId('html-check');
  await expect(page.getByTestId('html-check-summary')).toContainText('by the caniemail.com data of');
  await expect(report.getByRole('row', { name: /display:flex/ }).getByRole('cell').first()).toContainText('Outlook Windows');
  await expect(report.getByRole('row', { name: /<video> element/i })).toContainText('line 1');

  await page.getByLabel('Clients').fill('gmail.desktop-webmail');
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  await expect(page.getByTestId('html-check-summary')).toContainText('1 client');
  await expect(report.getByRole('row', { name: /display:flex/ })).toHaveCount(0);
  await page.getByLabel('Clients').fill('lotus.notes');
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  await expect(page.getByRole('alert')).toContainText('lotus.notes');

  await page.getByRole('button', { name: 'Check every link' }).click();
  await expect(page.getByTestId('link-check-summary')).toHaveText('1 of 4 links do not work.');
  const links = page.getByTestId('link-check');
  await expect(links.getByRole('row', { name: `${origin}/moved` })).toContainText(`→ ${origin}/ok`);
  await expect(links.getByRole('row', { name: `${origin}/no-head` })).toContainText('GET 200');
  await expect(links.getByRole('row', { name: `${origin}/gone` })).toContainText('404');
  await expect(links).not.toContainText('mailto:');
  await testInfo.attach('checks tab', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });
});
