import { test, expect } from 'mailwright';
import { describeAllFlows } from './flows/all-flows.js';

test.use({ mailwright: { delivery: 'poll' } });

test.describe('delivery: poll', () => {
  describeAllFlows(test);

  test('mail arrives through the poll loop, never a webhook', async ({ page, inbox, mail }) => {
    const before = mail.stats;
    await page.goto('/login');
    await page.getByLabel('Email').fill(inbox.address);
    await page.getByRole('button', { name: 'Send code' }).click();
    expect(await inbox.waitForCode({ subject: 'Your sign-in code' })).toMatch(/^\d{6}$/);
    const after = mail.stats;
    expect(after.pollRequests).toBeGreaterThan(before.pollRequests);
    expect(after.webhook).toBe(0);
    expect(mail.webhookURL).toBeUndefined();
  });
});
