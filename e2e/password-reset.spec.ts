import { test, expect } from 'mailwright';

test('forgot password sends a reset link that sets a new password', async ({ page, inbox }) => {
  // An account to reset: sign up and verify.
  await page.goto('/signup');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('old-password');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.goto(await inbox.waitForVerificationLink({ subject: /verify/i }));

  await page.goto('/forgot');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Send reset link' }).click();

  // The verification mail arrived earlier in this test; the match picks the reset mail.
  const resetLink = await inbox.waitForVerificationLink({ subject: 'Reset your password' });
  await page.goto(resetLink);
  await page.getByLabel('New password').fill('new-password');
  await page.getByRole('button', { name: 'Set password' }).click();
  await expect(page.getByText('Password updated')).toBeVisible();

  await page.goto('/login/password');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('new-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText(`Welcome, ${inbox.address}`)).toBeVisible();
});

test('no reset mail goes to an address without an account', async ({ page, inbox }) => {
  await page.goto('/forgot');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByRole('heading', { name: 'Check your inbox' })).toBeVisible();
  await inbox.expectNoMessage({ subject: 'Reset your password' }, { within: 1_500 });
});
