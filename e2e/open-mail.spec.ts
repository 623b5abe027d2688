// A mail tested like a page: `inbox.open()` shows it in the test's own browser, where its
// button is clicked as a user would (the demo app's magic link works only in the browser that
// asked for it), nothing it references is fetched and nothing in it runs, a text-only mail
// shows its URLs as links, `cid:` images come from its own parts, and a snapshot holds.
// The mails other than the magic link are sent here over SMTP, as an app's mailer would.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import nodemailer from 'nodemailer';
import { test, expect } from 'mailwright';

test.describe.configure({ mode: 'parallel' });

const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: Number(new URL(process.env.MAILWRIGHT_SMTP_URL ?? 'smtp://127.0.0.1:0').port), secure: false, ignoreTLS: true });

/** Sends a mail as the app would; resolves once the service stored it. */
async function send(mail: Parameters<typeof smtp.sendMail>[0]): Promise<void> {
  await smtp.sendMail({ from: 'Demo App <no-reply@demo.test>', ...mail });
}

/** A loopback HTTP server that counts every connection and request: a tracking pixel's server. */
async function pixelServer() {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'image/gif' }).end(Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64'));
  });
  server.on('connection', () => hits.push('connection'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function requestMagicLink(page: Page, address: string): Promise<void> {
  await page.goto('/magic');
  await page.getByLabel('Email').fill(address);
  await page.getByRole('button', { name: 'Email me a link' }).click();
  await expect(page.getByRole('heading', { name: 'Check your inbox' })).toBeVisible();
}

test('the magic link in the mail signs in the browser that asked, in the same tab', async ({ page, inbox }) => {
  await requestMagicLink(page, inbox.address);
  const message = await inbox.waitForMessage({ subject: 'Your magic sign-in link' });
  await page.goto('/account');
  await expect(page.getByRole('heading', { name: 'Sign in with a code' })).toBeVisible();

  // The tab's history is kept: back from the mail is the app's page it showed before.
  const email = await inbox.open(message, page);
  expect(email).toBe(page);
  await expect(email.getByText('No password needed')).toBeVisible();
  await page.goBack();
  await expect(page.getByRole('heading', { name: 'Sign in with a code' })).toBeVisible();

  // The "or paste this link" fallback has no target: it opens in the same tab.
  await inbox.open(message, page);
  await email.getByRole('link', { name: '/magic/callback?token=' }).click();
  await expect(page.getByRole('heading', { name: `Welcome, ${inbox.address}` })).toBeVisible();
});

test('the magic link opens in a new tab of the context, and not in another browser', async ({ browser, page, context, inbox }) => {
  await requestMagicLink(page, inbox.address);
  const message = await inbox.waitForMessage({ subject: 'Your magic sign-in link' });

  // Another browser (a context without the cookie the request set) is refused; the link stays valid.
  const elsewhere = await browser.newContext();
  const other = await inbox.open(message, elsewhere);
  await other.getByRole('link', { name: '/magic/callback?token=' }).click();
  await expect(other.getByRole('heading', { name: 'Open this link in the browser where you asked for it' })).toBeVisible();
  await elsewhere.close();

  // The mail in a new tab of the test's context; its button (target="_blank") opens one more, as in a mail client.
  const email = await inbox.open(message, context);
  expect(email).not.toBe(page);
  const [signedIn] = await Promise.all([context.waitForEvent('page'), email.getByRole('link', { name: 'Sign in to Demo App' }).click()]);
  await expect(signedIn.getByRole('heading', { name: `Welcome, ${inbox.address}` })).toBeVisible();
  await page.goto('/account');
  await expect(page.getByRole('heading', { name: `Welcome, ${inbox.address}` })).toBeVisible();
});

test('a mail with a tracking pixel, scripts and inline handlers fetches nothing and runs nothing', async ({ browser, page, context, inbox, baseURL }) => {
  await using pixel = await pixelServer();
  const ran = `document.body.setAttribute('data-ran', 'yes')`;
  await send({
    to: inbox.address,
    subject: 'Your weekly digest',
    html:
      `<html><head><link rel="stylesheet" href="${pixel.url}/style.css"><link rel="preconnect" href="${pixel.url}"><link rel="prefetch" href="${pixel.url}/prefetch">` +
      `<meta http-equiv="refresh" content="3;url=${pixel.url}/refresh"><style>@import url(${pixel.url}/import.css); @font-face { font-family: Remote; src: url(${pixel.url}/font.woff) } ` +
      `body { font-family: Remote, sans-serif; background: url(${pixel.url}/background.png) }</style></head>` +
      `<body onload="${ran}"><h1>Your weekly digest</h1><img src="${pixel.url}/open.gif?u=1" width="1" height="1" alt="">` +
      `<img src="${pixel.url}/missing.png" onerror="${ran}" alt="promo"><iframe src="${pixel.url}/frame"></iframe>` +
      `<script>${ran}; new Image().src = '${pixel.url}/script';</script>` +
      `<form action="${pixel.url}/form" method="post"><button>Unsubscribe me</button></form>` +
      `<button type="button" onclick="${ran}">Show more</button> <a href="javascript:${ran}">Expand</a> ` +
      `<a href="${baseURL}/help" target="_blank">Help Center</a></body></html>`,
  });
  const message = await inbox.waitForMessage({ subject: 'Your weekly digest' });

  const email = await inbox.open(message, page);
  await expect(email.getByRole('heading', { name: 'Your weekly digest' })).toBeVisible();
  await email.getByRole('button', { name: 'Show more' }).click();
  await email.getByText('Expand').click(); // its javascript: URL is gone: no longer a link
  await email.getByRole('button', { name: 'Unsubscribe me' }).click();
  await expect(email.locator('body')).not.toHaveAttribute('data-ran');

  // A target="_blank" link opens a new tab of the context, as in a mail client.
  const [help] = await Promise.all([context.waitForEvent('page'), email.getByRole('link', { name: 'Help Center' }).click()]);
  await expect(help.getByRole('heading', { name: 'Help Center' })).toBeVisible();

  // A context that ignores page policies (bypassCSP) runs nothing of the mail either.
  const lax = await browser.newContext({ bypassCSP: true });
  const laxEmail = await inbox.open(message, lax);
  await laxEmail.getByRole('button', { name: 'Show more' }).click();
  await expect(laxEmail.locator('body')).not.toHaveAttribute('data-ran');
  await lax.close();
  expect(pixel.hits, 'nothing reached the pixel server').toEqual([]);

  // The pixel server counts: with remote images allowed the pixel fires.
  await inbox.open(message, page, { remote: 'allow' });
  await expect.poll(() => pixel.hits.filter((hit) => hit.startsWith('GET /open.gif')).length).toBeGreaterThan(0);
  expect(pixel.hits.filter((hit) => /\/(style|import|font|prefetch|frame|script|form|refresh)/.test(hit))).toEqual([]);
  await expect(email.locator('body')).not.toHaveAttribute('data-ran');
});

test('a text-only verification mail shows its text wrapped, its URLs as links', async ({ page, inbox, baseURL }) => {
  const url = `${baseURL}/help?from=verification-mail-with-a-long-query-string-that-has-to-wrap-${'x'.repeat(120)}`;
  await send({ to: inbox.address, subject: 'Verify your email', text: `Hi,\n\nPlease confirm your address by opening this link:\n${url}\n\nThanks,\nDemo App` });
  const message = await inbox.waitForMessage({ subject: 'Verify your email' });

  const email = await inbox.open(message, page);
  await expect(email.getByText('Please confirm your address by opening this link:')).toBeVisible();
  const link = email.getByRole('link', { name: url });
  await expect(link).toHaveAttribute('href', url);
  expect(await email.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await link.click();
  await expect(page.getByRole('heading', { name: 'Help Center' })).toBeVisible();
});

const LOGO = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32"><rect width="32" height="32" rx="8" fill="#4f46e5"/><rect x="40" y="8" width="72" height="16" fill="#111827"/></svg>',
);

test('cid: images come from the mail, and the mail matches its snapshot', async ({ page, inbox }) => {
  await send({
    to: inbox.address,
    subject: 'Welcome to Demo App',
    html:
      '<div style="font-family: sans-serif; width: 560px; margin: 24px auto; padding: 24px; border: 1px solid #e5e7eb">' +
      '<img src="cid:logo@demo.test" alt="Demo App logo" width="120" height="32">' +
      '<h1 style="font-size: 22px">Welcome aboard</h1><p>Your account is ready. Start by setting up your profile.</p>' +
      '<a href="https://demo.test/profile" style="display: inline-block; padding: 10px 16px; background: #4f46e5; color: #fff; text-decoration: none">Set up your profile</a></div>',
    attachments: [{ filename: 'logo.svg', content: LOGO, contentType: 'image/svg+xml', cid: 'logo@demo.test' }],
  });
  const message = await inbox.waitForMessage({ subject: 'Welcome to Demo App' });

  const email = await inbox.open(message, page);
  const logo = email.getByRole('img', { name: 'Demo App logo' });
  await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(120);
  await expect(email).toHaveScreenshot('welcome.png');
});
