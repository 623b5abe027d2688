import { test, expect } from 'mailwright';

test('sign-up sends a verification link', async ({ page, inbox }) => {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByRole('heading', { name: 'Check your inbox' })).toBeVisible();

  const link = await inbox.waitForVerificationLink({ subject: 'Verify your email address' });
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Email verified' })).toBeVisible();
});

test('signing in before verifying is refused, and works after', async ({ page, inbox }) => {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('s3cret-pass');
  await page.getByRole('button', { name: 'Create account' }).click();

  await page.goto('/login/password');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('s3cret-pass');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('Please verify your email address before signing in')).toBeVisible();

  await page.goto(await inbox.waitForVerificationLink());
  await page.goto('/login/password');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('s3cret-pass');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText(`Welcome, ${inbox.address}`)).toBeVisible();
  await expect(inbox).toHaveMessageCount(1);
});
