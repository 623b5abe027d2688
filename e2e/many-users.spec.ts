import { test, expect } from 'mailwright';

test('several users sign up at once and each gets only their own link', async ({ browser, mail }) => {
  const inboxes = await Promise.all([1, 2, 3].map(() => mail.createInbox()));
  await Promise.all(
    inboxes.map(async (inbox) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto('/signup');
      await page.getByLabel('Email').fill(inbox.address);
      await page.getByLabel('Password').fill('pw-for-everyone');
      await page.getByRole('button', { name: 'Create account' }).click();
      const link = await inbox.waitForVerificationLink();
      await page.goto(link);
      await expect(page.getByText('Email verified')).toBeVisible();
      await context.close();
    }),
  );
  for (const inbox of inboxes) {
    const messages = await inbox.messages();
    expect(messages).toHaveLength(1);
    expect(messages[0]!.to).toEqual([inbox.address]);
  }
});
