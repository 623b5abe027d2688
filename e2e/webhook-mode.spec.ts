import { test, expect } from 'mailwright';
import { describeAllFlows } from './flows/all-flows.js';

test.use({ mailwright: { delivery: 'webhook' } });

test.describe('delivery: webhook', () => {
  describeAllFlows(test);

  test('messages came by webhook', async ({ page, inbox, mail }) => {
    await page.goto('/magic');
    await page.getByLabel('Email').fill(inbox.address);
    await page.getByRole('button', { name: 'Email me a link' }).click();
    await inbox.waitForVerificationLink();
    expect(mail.delivery).toBe('webhook');
    expect(mail.stats.webhook).toBeGreaterThan(0);
  });
});
