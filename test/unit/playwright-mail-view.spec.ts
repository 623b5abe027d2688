// Unit: the document inbox.open() shows for a mail — what is taken out of its HTML, where its
// `cid:` references point, how a text-only mail becomes a page of text with links — and that
// open() refuses a target that is not a page or context before touching any browser.
import { mailMessage } from '../helpers/mail-message.js';
import { expect, test } from '@playwright/test';
import { load } from 'cheerio';
import { Inbox, type InboxHost } from '../../src/playwright/inbox.js';
import { MailMessage } from '../../src/playwright/message.js';
import { mailDocument } from '../../src/playwright/mail-view.js';
import type { Message } from '../../src/protocol/index.js';

const BASE = 'http://mail.mailwright.invalid/7/';

const message = mailMessage;

test('HTML: links, refresh, frames, forms, scripts, inline handlers and javascript: URLs are taken out; content stays', () => {
  const { html, links } = mailDocument(
    message({
      html:
        '<html><head><link rel="preconnect" href="http://t.test"><link rel="stylesheet" href="http://t.test/s.css">' +
        '<meta http-equiv="refresh" content="0;url=http://t.test/r"><meta name="viewport" content="width=device-width"><style>p { color: red }</style></head>' +
        '<body onload="go()"><h1 onclick="go()">Hi</h1><script>go()</script><iframe src="http://t.test/f"></iframe><object data="http://t.test/o"></object>' +
        '<form action="http://t.test/post" method="post"><input name="q"><button formaction="http://t.test/other">Send</button></form>' +
        '<a href=" java\tscript:go()">x</a><a href="https://app.test/verify?t=1" target="_blank">Verify</a><img src="http://t.test/p.gif" alt="pixel"></body></html>',
    }),
    BASE,
  );
  const $ = load(html);
  expect($('link, script, iframe, object, form, meta[http-equiv]')).toHaveLength(0);
  expect($('meta[name="viewport"]')).toHaveLength(1);
  expect($('style').text()).toBe('p { color: red }');
  expect(html).not.toMatch(/onload|onclick|javascript|formaction|t\.test\/post/i);
  expect($('a[target="_blank"]').attr('href')).toBe('https://app.test/verify?t=1');
  // The links the page follows as a mail client would (the javascript: one is gone).
  expect([...links.values()]).toEqual(['https://app.test/verify?t=1']);
  expect($('input[name="q"]')).toHaveLength(1);
  // Left to the policy and routing: the pixel is not fetched, but the mail's markup keeps it.
  expect($('img[alt="pixel"]').attr('src')).toBe('http://t.test/p.gif');
});

test('cid: references in src, background and CSS point under the mail origin; a cid: link is left alone', () => {
  const { html } = mailDocument(
    message({
      html:
        '<style>.hero { background: url("cid:hero@x") }</style><table background="cid:bg@x"><tr><td style="background-image: url(cid:cell%40x)">' +
        '<img src="cid:logo@app.test" alt="logo"><img src=" CID:Upper@x "><a href="cid:doc@x">doc</a></td></tr></table>',
    }),
    BASE,
  );
  const $ = load(html);
  expect($('img[alt="logo"]').attr('src')).toBe(`${BASE}cid/logo%40app.test`);
  expect($('img').eq(1).attr('src')).toBe(`${BASE}cid/Upper%40x`);
  expect($('table').attr('background')).toBe(`${BASE}cid/bg%40x`);
  expect($('td').attr('style')).toBe(`background-image: url("${BASE}cid/cell%40x")`);
  expect($('style').text()).toBe(`.hero { background: url("${BASE}cid/hero%40x") }`);
  expect($('a').attr('href')).toBe('cid:doc@x');
});

test('text-only: the text in a wrapped <pre>, escaped, each URL a link (one that begins another is not cut short)', () => {
  const text = 'Hi <b>there</b>,\n\nVerify: https://app.test/verify?t=abc&x=1.\nOr https://app.test/verify and https://app.test/verify?t=abc&x=1 again.';
  const shown = mailDocument(message({ text, subject: 'Verify your email' }), BASE);
  const $ = load(shown.html);
  expect([...shown.links.values()]).toEqual(['https://app.test/verify?t=abc&x=1', 'https://app.test/verify']);
  expect($('title').text()).toBe('Verify your email');
  expect($('pre').attr('style')).toContain('white-space: pre-wrap');
  expect($('pre').text()).toBe(text);
  expect($('b')).toHaveLength(0);
  expect($('a').map((_, a) => $(a).attr('href')).get()).toEqual(['https://app.test/verify?t=abc&x=1', 'https://app.test/verify', 'https://app.test/verify?t=abc&x=1']);
  expect($('a').first().text()).toBe('https://app.test/verify?t=abc&x=1');
});

test('an HTML mail with a text part shows the HTML; a mail with neither is an empty page', () => {
  expect(load(mailDocument(message({ html: '<p>the html</p>', text: 'the text' }), BASE).html)('body').text()).toBe('the html');
  expect(load(mailDocument(message({}), BASE).html)('pre').text()).toBe('');
});

test('open() refuses a target that is not a page or context, a message of another inbox and unusable options, naming them', async () => {
  const inbox = new Inbox({} as InboxHost, { id: 'mbx_1', email: 'user@mailwright.test', expiresAt: new Date(Date.now() + 60_000).toISOString() } as never);
  const own = message({ html: '<p>x</p>', subject: 'Sign in' });
  await expect(inbox.open(own, {} as never)).rejects.toMatchObject({ code: 'MW_ERR_INVALID_ARGUMENT', message: expect.stringContaining('inbox.open(message, page)') });
  const other = new MailMessage({ ...own.data, mailboxId: 'mbx_2', mailbox: 'other@mailwright.test' });
  await expect(inbox.open(other, {} as never)).rejects.toMatchObject({ code: 'MW_ERR_INVALID_ARGUMENT', message: expect.stringContaining('a message received by other@mailwright.test') });
  const page = { goto() {}, mainFrame() {} } as never;
  await expect(inbox.open(own, page, { remote: 'yes' as never })).rejects.toMatchObject({ code: 'MW_ERR_INVALID_ARGUMENT', message: expect.stringContaining("'block' (the default") });
  await expect(inbox.open(own, page, { width: 0 })).rejects.toMatchObject({ code: 'MW_ERR_INVALID_ARGUMENT', message: expect.stringContaining('width: 0') });
});

test('links resolve against the mail\'s <base href>, else the mail origin; each is known by its URL without fragment', () => {
  const withBase = mailDocument(message({ html: '<base href="https://shop.test/app/"><a href="verify?t=1">v</a><a href="/help">h</a><a href="#top">t</a>' }), BASE);
  expect([...withBase.links]).toEqual([
    ['https://shop.test/app/verify?t=1', 'https://shop.test/app/verify?t=1'],
    ['https://shop.test/help', 'https://shop.test/help'],
    ['https://shop.test/app/', 'https://shop.test/app/#top'],
  ]);
  const without = mailDocument(message({ html: '<a href="a b">x</a>' }), BASE);
  expect([...without.links.values()]).toEqual([`${BASE}a%20b`]);
});
