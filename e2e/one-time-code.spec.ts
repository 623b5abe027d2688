import { test, expect } from 'mailwright';

test('sign in with a 6-digit one-time code', async ({ page, inbox }) => {
  await page.goto('/login');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Send code' }).click();

  const code = await inbox.waitForCode({ subject: 'Your sign-in code' });
  expect(code).toMatch(/^\d{6}$/);
  await page.getByLabel('Code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText(`Welcome, ${inbox.address}`)).toBeVisible();
});

test('a wrong code is refused; only the newest code counts', async ({ page, inbox }) => {
  await page.goto('/login');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Send code' }).click();
  const code = await inbox.waitForCode();

  await page.getByLabel('Code').fill(code === '000000' ? '111111' : '000000');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('Invalid code')).toBeVisible();

  await page.getByLabel('Code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText(`Welcome, ${inbox.address}`)).toBeVisible();
  const [message] = await inbox.messages();
  expect(message?.subject).toBe('Your sign-in code');
  expect(message?.code).toBe(code);
});
