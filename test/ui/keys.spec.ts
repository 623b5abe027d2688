// The profile page in Chromium: a key generated here works on the API at once, a revoked one
// answers 401 at once, rotation replaces a key, and redeeming a code raises the quota.
import { expect, test } from '@playwright/test';
import { cli, lastLine } from '../integration/helpers/service.js';
import { signIn, startUiService, type UiService } from './helpers.js';

let service: UiService;
test.beforeAll(async () => {
  service = await startUiService();
  await service.person('kim@example.com');
});
test.afterAll(() => service.close());

test('a key generated on the profile works on the API; revoked, it answers 401 at once', async ({ page }, testInfo) => {
  await signIn(page, service, 'kim@example.com');
  await page.getByRole('link', { name: 'Profile' }).click();
  await page.getByLabel('Name').fill('ci');
  await page.getByRole('button', { name: 'Generate key' }).click();
  await expect(page.getByText('it will not be shown again')).toBeVisible();
  const key = (await page.getByTestId('new-key').textContent())!.trim();
  expect(key).toMatch(/^mw_[a-z0-9]{40}$/);

  const ok = await service.api('GET', '/api/config', { key });
  expect(ok.status).toBe(200);
  expect(ok.body.role).toBe('civilian');
  await page.goto(service.httpUrl + '/profile');
  await expect(page.getByTestId('new-key')).toHaveCount(0); // shown once
  const row = page.getByRole('row').filter({ hasText: key.slice(0, 8) });
  await expect(row).toContainText('ci');
  await expect(row).not.toContainText('never'); // "last used" was recorded by the call above
  await testInfo.attach('profile', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });

  await row.getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByText('Revoked the key')).toBeVisible();
  const refused = await service.api('GET', '/api/config', { key });
  expect(refused.status).toBe(401);
  expect(refused.body.code).toBe('invalid_api_key');
});

test('rotating a key shows a new one once and revokes the old one', async ({ page }) => {
  await signIn(page, service, 'kim@example.com');
  await page.goto(service.httpUrl + '/profile');
  await page.getByLabel('Name').fill('deploy');
  await page.getByRole('checkbox', { name: 'config' }).uncheck();
  await page.getByRole('button', { name: 'Generate key' }).click();
  const first = (await page.getByTestId('new-key').textContent())!.trim();
  await page.getByRole('row').filter({ hasText: first.slice(0, 8) }).getByRole('button', { name: 'Rotate' }).click();
  await expect(page.getByText('Rotated key “deploy”')).toBeVisible();
  const second = (await page.getByTestId('new-key').textContent())!.trim();
  expect(second).not.toBe(first);
  expect((await service.api('GET', '/api/config', { key: first })).status).toBe(401);
  // Same name and scopes: emails only.
  expect((await service.api('POST', '/api/emails/generate', { key: second, body: { expiryTime: 3_600_000 } })).status).toBe(201);
  expect((await service.api('GET', '/api/config', { key: second })).body.code).toBe('scope_denied');
});

test('a redeemed code raises the month\'s allowance on the quota bar', async ({ page }) => {
  const code = lastLine(await cli('quota', 'code', '--calls', '250', '--data', service.data));
  await signIn(page, service, 'kim@example.com');
  await page.goto(service.httpUrl + '/profile');
  await expect(page.getByText('top-ups 0')).toBeVisible();
  await page.getByLabel('Redeem code').fill(code);
  await page.getByRole('button', { name: 'Redeem code' }).click();
  await expect(page.getByText('Redeemed: 250 calls')).toBeVisible();
  await expect(page.getByText('top-ups 250')).toBeVisible();
  await page.getByLabel('Redeem code').fill(code);
  await page.getByRole('button', { name: 'Redeem code' }).click();
  await expect(page.getByText('already redeemed')).toBeVisible();
});
