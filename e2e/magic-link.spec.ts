import { test, expect } from 'mailwright';

test('magic link signs the user in', async ({ page, inbox }) => {
  await page.goto('/magic');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Email me a link' }).click();

  await expect(inbox).toReceive({ subject: 'Your magic sign-in link', from: 'no-reply@demo.test' });
  await page.goto(await inbox.waitForVerificationLink());
  await expect(page.getByText(`Welcome, ${inbox.address}`)).toBeVisible();
});
