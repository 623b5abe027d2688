// Mail checks in the test that triggered the mail: the demo app's mails pass the HTML check (for
// the clients most readers use, minus the features they degrade gracefully without), the link
// check (every link and image answers, fetched through this test's own network) and the
// accessibility check (axe-core on the mail as inbox.open shows it); a mail written broken on
// purpose fails each, with a message that says what failed, where, for whom and the way out.
import nodemailer from 'nodemailer';
import { test, expect } from 'mailwright';

test.describe.configure({ mode: 'parallel' });

/** Features of the demo app's mails that some clients lack, where the reader loses next to nothing. */
const DEGRADES_GRACEFULLY = [
  'html-doctype', // Outlook on Windows lays out with Word whatever the doctype says
  'html-body', // the body's background colour: the outer table paints the same colour
  'html-target', // webmail opens every link in a new tab anyway
  'html-role', // Windows Mail ignores role="presentation"; the tables still lay out
  'css-border-radius', // square corners on the card and the button in Outlook on Windows
  'css-word-break', // the fallback link wraps where the client breaks it
  'css-display-none', // the hidden preheader: where unsupported, a short line shows above the mail
  'css-max-height',
  'css-overflow',
];

test('the verification mail of the demo app passes the HTML, link and accessibility checks', async ({ page, inbox }) => {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Create account' }).click();
  const message = await inbox.waitForMessage({ subject: 'Verify your email address' });

  await expect(message).toPassHtmlCheck({ ignore: DEGRADES_GRACEFULLY });
  await expect(message).toHaveWorkingLinks();
  await expect(message).toBeAccessible({ page });
});

test('the one-time code mail passes them too, its links fetched with the browser context cookies', async ({ page, inbox }) => {
  await page.goto('/login');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Send code' }).click();
  const message = await inbox.waitForMessage({ subject: 'code' });

  const report = await inbox.checkHtml(message, { clients: ['outlook.windows', 'gmail.desktop-webmail', 'apple-mail.macos'] });
  expect(report.issues.filter((i) => i.clients.some((c) => c.support === 'no') && !DEGRADES_GRACEFULLY.includes(i.feature))).toEqual([]);
  const links = await inbox.checkLinks(message, { request: page.request });
  expect(links.length).toBeGreaterThan(3);
  expect(links.filter((link) => !link.ok)).toEqual([]);
  expect(await inbox.checkAccessibility(message, page.context())).toEqual([]);
});

test('a mail broken on purpose fails each check, saying what, where and for whom', async ({ page, inbox, baseURL }) => {
  const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: Number(new URL(process.env.MAILWRIGHT_SMTP_URL!).port), secure: false, ignoreTLS: true });
  await smtp.sendMail({
    from: 'Demo App <no-reply@demo.test>',
    to: inbox.address,
    subject: 'Our spring news',
    text: `Read it online: ${baseURL}/news/spring\n\nQuestions? help@demo.test`,
    html: `<!DOCTYPE html>
<html><head><meta charset="utf-8"></head>
<body>
<div style="display: flex; gap: 16px">
  <img src="${baseURL}/banner-spring.png" width="560" height="200">
  <p style="color: #c8c8c8; background-color: #ffffff">New this spring: flowers, in every colour.</p>
</div>
<a href="${baseURL}/news/spring"><img src="${baseURL}/logo.png" width="120" height="32"></a>
<p><a href="mailto:help@demo.test">Write to us</a></p>
</body></html>`,
  });
  const message = await inbox.waitForMessage({ subject: 'Our spring news' });

  const html = expect(message).toPassHtmlCheck({ clients: ['outlook.windows'] });
  await expect(html).rejects.toThrow(/display:flex \(css-display-flex\), 1 place:\n\s+line 4: <div style="display: flex; gap: 16px">\n\s+not supported in Outlook Windows \(outlook\.windows\)/);
  await expect(html).rejects.toThrow(/Way out: .*ignore: \[.*'css-display-flex'/);

  const links = expect(message).toHaveWorkingLinks();
  await expect(links).rejects.toThrow(/2 of 3 links in "Our spring news" do not work:/);
  await expect(links).rejects.toThrow(new RegExp(`${baseURL}/banner-spring\\.png → HEAD 404.*\\[in the html-image\\]`));
  await expect(links).rejects.toThrow(new RegExp(`${baseURL}/news/spring → HEAD 404.*\\[in the html-link, text\\]`));

  const a11y = expect(message).toBeAccessible({ page });
  await expect(a11y).rejects.toThrow(/html-has-lang \(serious\)/);
  await expect(a11y).rejects.toThrow(/image-alt \(critical\): [^\n]*\n[^\n]*banner-spring\.png/);
  await expect(a11y).rejects.toThrow(/link-name \(serious\)/);
  await expect(a11y).rejects.toThrow(/color-contrast \(serious\)/);
  await expect(a11y).rejects.toThrow(/document-title \(serious\)/);
});
