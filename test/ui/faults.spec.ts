// Fault rules on the mailbox page in Chromium: a rule added through the API shows as a row,
// "Clear fault rules" clears them (the page then says how to add one), it fits a phone's
// width, and another account cannot clear them.
import { expect, test } from '@playwright/test';
import { signIn, startUiService, type UiService } from './helpers.js';

let service: UiService;
let carolKey: string;
test.beforeAll(async () => {
  service = await startUiService();
  carolKey = await service.person('carol@example.com');
  await service.person('dave@example.com');
});
test.afterAll(() => service.close());

async function carolsMailbox(name: string): Promise<string> {
  const created = await service.api('POST', '/api/emails/generate', { key: carolKey, body: { name, expiryTime: 3_600_000 } });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

test('a rule added through the API shows on the mailbox page, and "Clear fault rules" clears it', async ({ page }, testInfo) => {
  const id = await carolsMailbox('flaky-signup');
  const added = await service.api('POST', `/api/emails/${id}/faults`, { key: carolKey, body: { at: 'rcpt', code: 451, enhancedCode: '4.7.1', message: 'Try again later', times: 3, probability: 0.5 } });
  expect(added.status).toBe(201);

  await signIn(page, service, 'carol@example.com');
  await page.getByRole('link', { name: 'flaky-signup@mailwright.test' }).click();
  const section = page.getByRole('region', { name: 'Fault rules' });
  await expect(section.getByRole('columnheader')).toHaveText(['Rule', 'Chance', 'Times', 'Hits']);
  const rows = section.getByRole('row').filter({ hasNot: page.getByRole('columnheader') });
  await expect(rows).toHaveCount(1);
  await expect(rows.first().getByRole('cell')).toHaveText([/^451 4\.7\.1 at rcpt\s*“Try again later”$/, '50 %', '3 of 3 left', '0']);
  await expect(section.getByText('No fault rules')).toHaveCount(0);
  await testInfo.attach('fault rules', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });

  await section.getByRole('button', { name: 'Clear fault rules' }).click();
  await expect(page).toHaveURL(`${service.httpUrl}/mailboxes/${id}`);
  await expect(section.getByRole('table')).toHaveCount(0);
  await expect(section.getByRole('button', { name: 'Clear fault rules' })).toHaveCount(0);
  await expect(section).toContainText(`No fault rules: mail to this mailbox is accepted normally. To make SMTP refuse, delay or drop it, add one with POST /api/emails/${id}/faults, or inbox.injectFault(...) in a test.`);
  expect((await service.api('GET', `/api/emails/${id}/faults`, { key: carolKey })).body).toEqual({ faults: [] });
});

test('the fault rules fit a narrow screen without the page scrolling sideways', async ({ page }) => {
  const id = await carolsMailbox('narrow-faults');
  for (const body of [{ at: 'data', code: 554, enhancedCode: '5.7.1', message: 'Message rejected as spam by a very long policy text', delay: 60_000 }, { at: 'rcpt', disconnect: true, times: 1 }]) {
    expect((await service.api('POST', `/api/emails/${id}/faults`, { key: carolKey, body })).status).toBe(201);
  }
  await page.setViewportSize({ width: 360, height: 740 });
  await signIn(page, service, 'carol@example.com');
  await page.goto(`${service.httpUrl}/mailboxes/${id}`);
  const section = page.getByRole('region', { name: 'Fault rules' });
  await expect(section.getByRole('row').filter({ hasText: 'disconnect at rcpt' }).getByRole('cell')).toHaveText(['disconnect at rcpt', '100 %', '1 of 1 left', '0']);
  const clear = section.getByRole('button', { name: 'Clear fault rules' });
  await clear.scrollIntoViewIfNeeded();
  await expect(clear).toBeInViewport({ ratio: 1 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
});

test("another account cannot clear a mailbox's fault rules: 404, and they stay", async ({ page }) => {
  const id = await carolsMailbox('carols-faults');
  const added = await service.api('POST', `/api/emails/${id}/faults`, { key: carolKey, body: { at: 'rcpt', code: 550 } });
  expect(added.status).toBe(201);

  await signIn(page, service, 'dave@example.com');
  // A form token of Dave's own session, from a page of his.
  const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
  const cleared = await page.request.post(`${service.httpUrl}/mailboxes/${id}/faults/clear`, { form: { _csrf: csrf }, maxRedirects: 0 });
  expect(cleared.status()).toBe(404);
  const opened = await page.goto(`${service.httpUrl}/mailboxes/${id}`);
  expect(opened!.status()).toBe(404);
  expect((await service.api('GET', `/api/emails/${id}/faults`, { key: carolKey })).body).toEqual({ faults: [added.body] });
});
