// The accessibility check of a mail in Chromium, on the mail exactly as `inbox.open()` shows it
// (showMail: its own origin, a policy that lets no script run): an inaccessible mail reports each
// rule once with its element, its accessible twin reports nothing, data tables are not taken for
// layout, the mail's script stays off while axe runs, a text-only mail is not blamed for the
// `lang` its view lacks, and the demo app's templates are checked (their findings are pinned
// below, for the team that owns fixtures/app).
import { mailMessage } from '../helpers/mail-message.js';
import { expect, test, type Page } from '@playwright/test';
import { checkMailAccessibility, LAYOUT_TABLE_RULE, MAIL_AXE_RULES, type AccessibilityViolation } from '../../src/playwright/accessibility.js';
import { showMail, type ShownMail } from '../../src/playwright/mail-view.js';
import { MailMessage } from '../../src/playwright/message.js';

/** A mail to show, built as the fixture builds it from the API's message. */
function mail(body: { html?: string; text?: string; subject?: string }): ShownMail {
  return { message: mailMessage({ subject: 'Your order', ...body }), source: async () => Buffer.from('') };
}

/** A 1×1 GIF: an image the policy lets load (data:). */
const PIXEL = 'data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==';

/** Rule → the number of elements it found at fault. */
const counts = (violations: AccessibilityViolation[]) => Object.fromEntries(violations.map((v) => [v.rule, v.nodes.length]));

async function check(page: Page, html: string): Promise<AccessibilityViolation[]> {
  await showMail(page, mail({ html }));
  return checkMailAccessibility(page);
}

test('an inaccessible mail: each rule once, with its element, most severe first', async ({ page }) => {
  const violations = await check(
    page,
    '<table width="100%"><tr><td>' +
      `<a href="https://shop.test/"><img src="${PIXEL}" width="40" height="40" alt=""></a>` +
      `<h1>Your order shipped</h1><img src="${PIXEL}" width="120" height="60">` +
      '<p style="color:#aaaaaa">Track it any time from your account.</p><p>Thanks for shopping with us.</p>' +
      '</td></tr></table>',
  );
  expect(counts(violations)).toEqual({ 'image-alt': 1, 'link-name': 1, 'color-contrast': 1, 'document-title': 1, 'html-has-lang': 1, [LAYOUT_TABLE_RULE]: 1 });
  expect(violations[0]?.rule).toBe('image-alt');
  expect(violations.slice(1).every((v) => v.impact === 'serious')).toBe(true);
  const at = (rule: string) => violations.find((v) => v.rule === rule)!.nodes[0]!;
  expect(at('image-alt').html).toMatch(/^<img [^>]*width="120"/);
  expect(at('link-name').html).toMatch(/^<a href="https:\/\/shop\.test\/">/);
  expect(at('color-contrast').html).toContain('Track it any time');
  expect(at('color-contrast').summary).toMatch(/^Fix any of the following: Element has insufficient color contrast of 2\.\d+ .*#aaaaaa.*Expected contrast ratio of 4\.5:1$/);
  expect(at('html-has-lang').target).toBe('html');
  expect(at(LAYOUT_TABLE_RULE).target).toBe('table');
  expect(at(LAYOUT_TABLE_RULE).html.length).toBeLessThanOrEqual(200);
  expect(at(LAYOUT_TABLE_RULE).summary).toBe('Fix any of the following: Layout table has no role="presentation" or role="none"');
  const layout = violations.find((v) => v.rule === LAYOUT_TABLE_RULE)!;
  expect(layout).toMatchObject({
    impact: 'serious',
    help: 'Layout tables must be marked role=presentation so screen readers do not announce rows and columns',
    helpUrl: 'https://www.w3.org/WAI/tutorials/tables/',
  });
  for (const violation of violations) expect(violation.nodes[0]!.summary).not.toContain('\n');
  // Why a layout table matters: Chromium exposes a role-less one as a table of rows and cells.
  await expect(page.locator('body')).toMatchAriaSnapshot('- table:\n  - rowgroup:\n    - row:\n      - cell');
  // Again on the same document (axe is there already), and narrowed to some rules.
  expect(counts(await checkMailAccessibility(page))).toEqual(counts(violations));
  expect(counts(await checkMailAccessibility(page, { rules: ['html-has-lang', LAYOUT_TABLE_RULE] }))).toEqual({ 'html-has-lang': 1, [LAYOUT_TABLE_RULE]: 1 });
});

test('its accessible twin: no violations', async ({ page }) => {
  const violations = await check(
    page,
    '<!DOCTYPE html><html lang="en"><head><title>Your order shipped</title></head><body>' +
      '<table role="presentation" width="100%"><tr><td>' +
      `<a href="https://shop.test/"><img src="${PIXEL}" width="40" height="40" alt="Shop home"></a>` +
      `<h1>Your order shipped</h1><img src="${PIXEL}" width="120" height="60" alt="A parcel on its way">` +
      '<p style="color:#333333">Track it any time from your account.</p>' +
      '<table role="none"><tr><td><a href="https://shop.test/track">Track your parcel</a></td></tr></table>' +
      '</td></tr></table></body></html>',
  );
  expect(violations).toEqual([]);
  await expect(page.locator('body')).not.toMatchAriaSnapshot('- table');
});

test('data tables are never taken for layout; nested layout tables count one by one', async ({ page }) => {
  const dataTables =
    '<table><tr><th>Item</th><th>Price</th></tr><tr><td>Tea</td><td>$4</td></tr></table>' +
    '<table><caption>Shipping</caption><tr><td>Standard</td><td>$0</td></tr></table>' +
    '<table summary="Totals"><tr><td>Total</td><td>$4</td></tr></table>' +
    '<table><tr><td scope="row">Tax</td><td>$0</td></tr></table>' +
    '<table role="table"><tr><td>Paid</td><td>Yes</td></tr></table>' +
    // A table in a data table's cell is part of its data.
    '<table><tr><th>Item</th></tr><tr><td><table><tr><td>Tea</td><td>1 × $4</td></tr></table></td></tr></table>';
  const page1 = `<html lang="en"><head><title>Receipt</title></head><body><table role="presentation"><tr><td>${dataTables}</td></tr></table></body></html>`;
  expect(await check(page, page1)).toEqual([]);

  // Outer and inner both role-less: two; the outer marked: the inner alone; and the data table inside stays out.
  const nested = (outerRole: string) =>
    `<html lang="en"><head><title>Receipt</title></head><body><table id="outer"${outerRole}><tr><td>` +
    '<table id="inner"><tr><td>Hello</td></tr></table>' +
    '<table><tr><th>Item</th></tr><tr><td>Tea</td></tr></table>' +
    '</td></tr></table></body></html>';
  const both = await check(page, nested(''));
  expect(both.map((v) => [v.rule, v.nodes.map((n) => n.target)])).toEqual([[LAYOUT_TABLE_RULE, ['#outer', '#inner']]]);
  const inner = await check(page, nested(' role="presentation"'));
  expect(inner.map((v) => [v.rule, v.nodes.map((n) => n.target)])).toEqual([[LAYOUT_TABLE_RULE, ['#inner']]]);
});

test("the mail's script does not run while axe does, and the mail's policy stays in force", async ({ page }) => {
  const violations = await check(
    page,
    '<html lang="en"><head><title>Hi</title><script>document.documentElement.dataset.ran = "head"</script></head><body>' +
      '<p id="p">Hello</p><script>document.getElementById("p").textContent = "changed"; document.title = ""</script>' +
      // id="axe" makes window.axe this element until axe is injected (named access): axe is injected all the same.
      `<img id="axe" src="${PIXEL}" width="10" height="10" onload="document.documentElement.dataset.ran = 'onload'"></body></html>`,
  );
  // axe ran: it found the image without alt text.
  expect(violations.map((v) => [v.rule, v.nodes.map((n) => n.target)])).toEqual([['image-alt', ['#axe']]]);
  // The mail's scripts did not: the DOM is as written.
  await expect(page.locator('#p')).toHaveText('Hello');
  expect(await page.evaluate(() => document.documentElement.dataset.ran)).toBeUndefined();
  expect(await page.title()).toBe('Hi');
  // axe ran through evaluate, outside the policy; code of the page itself still may not eval.
  const later = await page.evaluate(
    () =>
      new Promise<string>((resolve) =>
        setTimeout(() => {
          try {
            resolve(String(eval('1 + 1')));
          } catch (error) {
            resolve(String(error));
          }
        }, 0),
      ),
  );
  expect(later).toMatch(/^EvalError: .*Content Security Policy.*script-src 'none'/);
});

test('a text-only mail: its view has the subject as title and no lang, and is not blamed for the lang', async ({ page }) => {
  await showMail(page, mail({ text: 'Your code is 123456.\nOr follow https://shop.test/verify?t=1 to sign in.', subject: 'Your sign-in code' }));
  expect(await page.title()).toBe('Your sign-in code');
  expect(await page.locator('html').getAttribute('lang')).toBeNull();
  expect(await checkMailAccessibility(page)).toEqual([]);
  // The same text as an HTML mail of the sender's is blamed for it: the exception is the view's alone.
  const html = await check(page, '<head><title>Your sign-in code</title></head><pre>Your code is 123456.</pre>');
  expect(counts(html)).toEqual({ 'html-has-lang': 1 });
  // A text-only mail without a subject has an empty title: that is the sender's to fix.
  await showMail(page, mail({ text: 'Hello', subject: '' }));
  expect(counts(await checkMailAccessibility(page))).toEqual({ 'document-title': 1 });
});

test('rules it does not run, and a page that shows no mail, are refused with a code', async ({ page }) => {
  expect(MAIL_AXE_RULES).toContain(LAYOUT_TABLE_RULE);
  for (const off of ['region', 'landmark-one-main', 'bypass', 'page-has-heading-one', 'td-has-header']) expect(MAIL_AXE_RULES).not.toContain(off);
  await expect(checkMailAccessibility(page)).rejects.toMatchObject({ code: 'MW_ERR_INVALID_ARGUMENT', message: expect.stringContaining('call inbox.open(message, page) first') });
  await showMail(page, mail({ html: '<p>Hi</p>' }));
  await expect(checkMailAccessibility(page, { rules: ['region'] })).rejects.toMatchObject({ code: 'MW_ERR_INVALID_ARGUMENT', message: expect.stringContaining('region') });
});

/** The demo app's templates (plain JavaScript without types). */
type Template = (input: Record<string, string>) => { subject: string; text: string; html: string };

// The demo app's mails pass: their footer once failed color-contrast (12px #9ca3af text, 2.31:1,
// and #6b7280 links, 4.4:1, on #f4f4f7) and was darkened.
test("the demo app's mails", async ({ page }, testInfo) => {
  const templates = (await import(new URL('../../fixtures/app/mails.js', import.meta.url).href)) as Record<string, Template>;
  const input = { baseURL: 'https://demo.test', to: 'reader@example.com', url: 'https://demo.test/verify?t=1', code: '123456', newEmail: 'new@example.com', oldEmail: 'old@example.com', cancelURL: 'https://demo.test/cancel?t=1' };
  const findings: Record<string, AccessibilityViolation[]> = {};
  for (const [name, template] of Object.entries(templates)) {
    await showMail(page, mail(template(input)));
    findings[name] = await checkMailAccessibility(page);
  }
  await testInfo.attach('demo-app-accessibility.json', { body: JSON.stringify(findings, null, 2), contentType: 'application/json' });
  expect(Object.keys(findings).sort()).toEqual(['codeMail', 'emailChangeConfirmMail', 'emailChangeNoticeMail', 'magicLinkMail', 'resetMail', 'verificationMail']);
  for (const [name, violations] of Object.entries(findings)) expect(counts(violations), name).toEqual({});
});
