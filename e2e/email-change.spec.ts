import { test, expect } from 'mailwright';

test('changing the email warns the old address and confirms the new one', async ({ page, inbox, mail }) => {
  const newInbox = await mail.createInbox();

  await page.goto('/magic');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Email me a link' }).click();
  await page.goto(await inbox.waitForVerificationLink());
  await expect(page.getByText(`Welcome, ${inbox.address}`)).toBeVisible();

  await page.goto('/account/email');
  await page.getByLabel('New email').fill(newInbox.address);
  await page.getByRole('button', { name: 'Change email' }).click();

  const notice = await inbox.waitForMessage({ subject: 'Your email is being changed' });
  expect(notice.text).toContain(newInbox.address);
  const confirm = await newInbox.waitForVerificationLink({ subject: 'Confirm your new email address' });
  await page.goto(confirm);
  await expect(page.getByText('Email changed')).toBeVisible();

  await page.goto('/account');
  await expect(page.getByText(`Welcome, ${newInbox.address}`)).toBeVisible();
  // Each inbox got exactly its own mail.
  await expect(newInbox).toHaveMessageCount(1);
});

test('"This wasn\'t me" in the old address\'s mail cancels the change', async ({ page, inbox, mail }) => {
  const attacker = await mail.createInbox();
  await page.goto('/magic');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Email me a link' }).click();
  await page.goto(await inbox.waitForVerificationLink());

  await page.goto('/account/email');
  await page.getByLabel('New email').fill(attacker.address);
  await page.getByRole('button', { name: 'Change email' }).click();

  const notice = await inbox.waitForMessage({ subject: 'Your email is being changed' });
  const cancel = notice.links.find((link) => /cancel/.test(link.url));
  expect(cancel, 'the notice carries a cancel link').toBeTruthy();
  await page.goto(cancel!.url);
  await expect(page.getByText('Email change cancelled')).toBeVisible();
});
