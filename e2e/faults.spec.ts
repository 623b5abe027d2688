import { test, expect } from 'mailwright';

// Faults on demand: each test sets a fault rule on its own inbox, so the mail server refuses,
// or hangs up on, only that inbox's mail; the other specs running at the same time never see it.
// The demo app retries a temporary failure (4xx, dropped connection) and reports a permanent one.
test.describe.configure({ mode: 'parallel' });

test('a 451 once: the app retries and the user still verifies', async ({ page, inbox }) => {
  await inbox.injectFault({ at: 'rcpt', code: 451, enhancedCode: '4.3.0', message: 'try again later', times: 1 });

  await page.goto('/signup');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('retry-me-please');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByRole('heading', { name: 'Check your inbox' })).toBeVisible();

  await page.goto(await inbox.waitForVerificationLink({ subject: 'Verify your email address' }));
  await expect(page.getByRole('heading', { name: 'Email verified' })).toBeVisible();
  expect(await inbox.faults()).toMatchObject([{ at: 'rcpt', code: 451, enhancedCode: '4.3.0', times: 1, hits: 1, remaining: 0 }]);
  await expect(inbox).toHaveMessageCount(1);
});

test('a 550: the app tells the user and nothing is stored', async ({ page, inbox }) => {
  await inbox.injectFault({ at: 'rcpt', code: 550, enhancedCode: '5.1.1', message: 'mailbox unavailable' });

  await page.goto('/signup');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByLabel('Password').fill('never-arrives');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByRole('heading', { name: "We couldn't send the email" })).toBeVisible();
  await expect(page.getByRole('alert')).toContainText(`Sending to ${inbox.address} failed: the mail server refused it (550 5.1.1 mailbox unavailable)`);

  // A permanent refusal is not retried: the rule acted once, and no mail was stored.
  expect(await inbox.faults()).toMatchObject([{ code: 550, hits: 1 }]);
  expect(await inbox.messages()).toEqual([]);
  await inbox.clearFaults();
  expect(await inbox.faults()).toEqual([]);
});

test('a connection dropped after the body: the app retries and the mail arrives once', async ({ page, inbox }) => {
  await inbox.injectFault({ at: 'data', disconnect: true, times: 1 });

  await page.goto('/magic');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Email me a link' }).click();
  await expect(page.getByRole('heading', { name: 'Check your inbox' })).toBeVisible();

  await page.goto(await inbox.waitForVerificationLink({ subject: 'Your magic sign-in link' }));
  await expect(page.getByText(`Welcome, ${inbox.address}`)).toBeVisible();
  expect(await inbox.faults()).toMatchObject([{ at: 'data', disconnect: true, hits: 1, remaining: 0 }]);
  await expect(inbox).toHaveMessageCount(1);
});
