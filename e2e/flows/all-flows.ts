// The demo app's flows as one reusable block, so the same specs can run under every
// delivery mode (see poll-mode.spec.ts and receiver-unreachable.spec.ts).
import { expect, type test as mailTest } from 'mailwright';

export function describeAllFlows(test: typeof mailTest): void {
  test('verification link', async ({ page, inbox }) => {
    await page.goto('/signup');
    await page.getByLabel('Email').fill(inbox.address);
    await page.getByLabel('Password').fill('pw-123456');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.goto(await inbox.waitForVerificationLink());
    await expect(page.getByText('Email verified')).toBeVisible();
  });

  test('one-time code', async ({ page, inbox }) => {
    await page.goto('/login');
    await page.getByLabel('Email').fill(inbox.address);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code').fill(await inbox.waitForCode());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByText(`Welcome, ${inbox.address}`)).toBeVisible();
  });

  test('password reset', async ({ page, inbox }) => {
    await page.goto('/signup');
    await page.getByLabel('Email').fill(inbox.address);
    await page.getByLabel('Password').fill('old-password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.goto(await inbox.waitForVerificationLink());
    await page.goto('/forgot');
    await page.getByLabel('Email').fill(inbox.address);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.goto(await inbox.waitForVerificationLink({ subject: 'Reset your password' }));
    await page.getByLabel('New password').fill('new-password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect(page.getByText('Password updated')).toBeVisible();
  });

  test('magic link', async ({ page, inbox }) => {
    await page.goto('/magic');
    await page.getByLabel('Email').fill(inbox.address);
    await page.getByRole('button', { name: 'Email me a link' }).click();
    await page.goto(await inbox.waitForVerificationLink());
    await expect(page.getByText(`Welcome, ${inbox.address}`)).toBeVisible();
  });

  test('email change', async ({ page, inbox, mail }) => {
    const next = await mail.createInbox();
    await page.goto('/magic');
    await page.getByLabel('Email').fill(inbox.address);
    await page.getByRole('button', { name: 'Email me a link' }).click();
    await page.goto(await inbox.waitForVerificationLink());
    await page.goto('/account/email');
    await page.getByLabel('New email').fill(next.address);
    await page.getByRole('button', { name: 'Change email' }).click();
    await expect(inbox).toReceive({ subject: 'Your email is being changed' });
    await page.goto(await next.waitForVerificationLink());
    await expect(page.getByText('Email changed')).toBeVisible();
  });
}
