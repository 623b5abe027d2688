// All mail and search in Chromium: every message of the person's live mailboxes, newest first,
// with a snippet, its mailbox and an attachment mark; the Search box finds by subject, sender,
// recipient and text, there and within one mailbox; pages go on with "Older messages".
import { expect, test } from '@playwright/test';
import { signIn, startUiService, type UiService } from './helpers.js';

let service: UiService;
let carolKey: string;
let daveKey: string;
test.beforeAll(async () => {
  service = await startUiService();
  carolKey = await service.person('carol@example.com');
  daveKey = await service.person('dave@example.com');
});
test.afterAll(() => service.close());

async function mailbox(key: string, name: string): Promise<string> {
  const created = await service.api('POST', '/api/emails/generate', { key, body: { name, expiryTime: 3_600_000 } });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

test('All mail lists both mailboxes\' mail with snippets and an attachment mark, and Search finds only the match', async ({ page }, testInfo) => {
  await mailbox(carolKey, 'orders');
  await mailbox(carolKey, 'news');
  await mailbox(daveKey, 'daves');
  await service.send({ from: '"Shop" <shop@store.example>', to: 'orders@mailwright.test', subject: 'Your order has shipped', text: 'Parcel 7731 is on its way\n\n   to you.' });
  await service.send({
    from: 'billing@utility.example', to: 'news@mailwright.test', subject: 'Monthly invoice', text: 'Your invoice for March is attached.',
    attachments: [{ filename: 'invoice.txt', content: 'total: 42 EUR\n', contentType: 'text/plain' }],
  });
  await service.send({ from: 'shop@store.example', to: 'daves@mailwright.test', subject: 'Not for Carol', text: 'Parcel 7731 too' });

  await signIn(page, service, 'carol@example.com');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'All mail' }).click();
  await expect(page.getByRole('heading', { name: 'All mail', level: 1 })).toBeVisible();
  await expect(page.getByRole('link', { name: 'All mail' })).toHaveAttribute('aria-current', 'page');

  const rows = page.getByRole('row').filter({ has: page.getByRole('link') });
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText('Monthly invoice'); // newest first
  const shipped = rows.filter({ hasText: 'Your order has shipped' });
  const invoice = rows.filter({ hasText: 'Monthly invoice' });
  await expect(shipped).toContainText('Parcel 7731 is on its way to you.'); // the snippet, whitespace collapsed
  await expect(shipped.locator('td[data-label="From"]')).toHaveText('Shop <shop@store.example>');
  await expect(shipped.locator('td[data-label="Mailbox"]')).toHaveText('orders@mailwright.test');
  await expect(shipped.getByRole('img', { name: 'has attachments' })).toHaveCount(0);
  await expect(invoice).toContainText('Your invoice for March is attached.');
  await expect(invoice.locator('td[data-label="Mailbox"]')).toHaveText('news@mailwright.test');
  await expect(invoice.getByRole('img', { name: 'has attachments' })).toBeVisible();
  const time = invoice.locator('td[data-label="Received"] time.relative');
  await expect(time).toHaveAttribute('datetime', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  await expect(time).toHaveAttribute('title', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
  await expect(page.getByText('Not for Carol')).toHaveCount(0); // another account's mail
  await testInfo.attach('all mail', { body: await page.screenshot({ fullPage: true }), contentType: 'image/png' });

  // Search: by a word of the text, by the sender, by a recipient, by the subject in another case.
  const search = page.getByRole('searchbox', { name: 'Search' });
  for (const [query, match] of [['parcel 7731', 'Your order has shipped'], ['utility.example', 'Monthly invoice'], ['orders@mailwright', 'Your order has shipped'], ['MONTHLY', 'Monthly invoice']] as const) {
    await search.fill(query);
    await search.press('Enter');
    await expect(page).toHaveURL(new RegExp(`/messages\\?q=${encodeURIComponent(query).replace(/%20/g, '(\\+|%20)')}$`));
    await expect(rows, query).toHaveCount(1);
    await expect(rows.first()).toContainText(match);
    await expect(search).toHaveValue(query);
  }
  await search.fill('nothing like this');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(rows).toHaveCount(0);
  await expect(page.getByText('No message in your live mailboxes matches “nothing like this”.')).toBeVisible();
  await page.getByRole('link', { name: 'Show all mail' }).click();
  await expect(rows).toHaveCount(2);

  // A row's subject opens the message.
  await rows.filter({ hasText: 'Monthly invoice' }).getByRole('link', { name: 'Monthly invoice' }).click();
  await expect(page.getByRole('heading', { name: 'Monthly invoice' })).toBeVisible();
});

test('on a mailbox page, live rows carry a snippet and the mark, and Search filters within the mailbox', async ({ page }) => {
  const id = await mailbox(carolKey, 'receipts');
  await mailbox(carolKey, 'elsewhere');
  await service.send({ from: 'cafe@food.example', to: 'receipts@mailwright.test', subject: 'Receipt: coffee', text: 'Flat white, 3.40' });
  await service.send({ from: 'cafe@food.example', to: 'elsewhere@mailwright.test', subject: 'Receipt: tea', text: 'Green tea, 2.10' });

  await signIn(page, service, 'carol@example.com');
  await page.goto(`${service.httpUrl}/mailboxes/${id}`);
  await expect(page.getByText('Live: new mail appears here')).toBeVisible();
  await service.send({
    from: 'cafe@food.example', to: 'receipts@mailwright.test', subject: 'Receipt: cake', text: 'Lemon cake, 4.20, receipt attached',
    attachments: [{ filename: 'receipt.txt', content: 'cake 4.20\n', contentType: 'text/plain' }],
  });
  const rows = page.getByRole('row').filter({ has: page.getByRole('link') });
  const cake = rows.filter({ hasText: 'Receipt: cake' });
  await expect(cake).toContainText('Lemon cake, 4.20, receipt attached'); // arrived live, with its snippet
  await expect(cake.getByRole('img', { name: 'has attachments' })).toBeVisible();
  await expect(cake.locator('time.relative')).toHaveAttribute('datetime', /Z$/);
  await expect(rows).toHaveCount(2);

  const search = page.getByRole('searchbox', { name: 'Search' });
  await search.fill('receipt');
  await search.press('Enter');
  await expect(page).toHaveURL(`${service.httpUrl}/mailboxes/${id}?q=receipt`);
  await expect(rows).toHaveCount(2); // not the other mailbox's "Receipt: tea"
  await search.fill('flat white');
  await search.press('Enter');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Receipt: coffee');
  await search.fill('green tea');
  await search.press('Enter');
  await expect(rows).toHaveCount(0);
  await expect(page.getByText('No message of this mailbox matches “green tea”.')).toBeVisible();
  await page.getByRole('link', { name: 'Show all messages' }).click();
  await expect(rows).toHaveCount(2);
});

test('"Older messages" pages on, 50 at a time, keeping the search', async ({ page }) => {
  await mailbox(await service.person('erin@example.com'), 'bulk');
  for (let i = 1; i <= 53; i++) await service.send({ from: 'bulk@news.example', to: 'bulk@mailwright.test', subject: `${i % 2 ? 'Odd' : 'Even'} letter ${i}`, text: `number ${i}` });
  await signIn(page, service, 'erin@example.com');
  await page.goto(`${service.httpUrl}/messages`);
  const rows = page.getByRole('row').filter({ has: page.getByRole('link') });
  await expect(rows).toHaveCount(50);
  await expect(rows.first()).toContainText('Odd letter 53');
  await page.getByRole('link', { name: 'Older messages' }).click();
  await expect(rows).toHaveCount(3);
  await expect(rows.first()).toContainText('Odd letter 3');
  await expect(page.getByRole('link', { name: 'Older messages' })).toHaveCount(0);

  await page.goto(`${service.httpUrl}/messages?q=odd`);
  await expect(rows).toHaveCount(27);
  await expect(page.getByRole('link', { name: 'Older messages' })).toHaveCount(0);
  await page.goto(`${service.httpUrl}/messages?q=letter`);
  await expect(rows).toHaveCount(50);
  await page.getByRole('link', { name: 'Older messages' }).click();
  await expect(page).toHaveURL(/[?&]q=letter&before=/);
  await expect(page.getByRole('searchbox', { name: 'Search' })).toHaveValue('letter');
  await expect(rows).toHaveCount(3);
  await expect(rows.last()).toContainText('Odd letter 1');
});
