// Signing in and what guards it, in Chromium: the first start's one-time link, sign-out, the
// same answer for a wrong email and a wrong password, the failed sign-in limit, CSRF on every
// form, open sign-up, and the admin pages (404 for everyone else).
import { expect, test } from '@playwright/test';
import { PASSWORD, signIn, startUiService, type UiService } from './helpers.js';

test.describe('one service', () => {
  let service: UiService;
  test.beforeAll(async () => {
    service = await startUiService();
    await service.person('pat@example.com');
  });
  test.afterAll(() => service.close());

  test("the first start's one-time link lets the admin set a password and sign in with it", async ({ page }) => {
    expect(service.signInUrl).toMatch(/\/sign-in\/link\/[a-z0-9]{40}$/);
    await page.goto(service.signInUrl!);
    await expect(page.getByRole('heading', { name: 'Set your password' })).toBeVisible();
    await page.getByLabel('New password').fill('a new admin password');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await expect(page.getByRole('heading', { name: 'Mailboxes', level: 1 })).toBeVisible(); // a first password goes on to the mailboxes
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();

    const again = await page.goto(service.signInUrl!);
    expect(again!.status()).toBe(410); // one use
    await signIn(page, service, 'admin@mailwright.local', 'a new admin password');
    await expect(page.getByRole('link', { name: 'Admin' })).toBeVisible();
  });

  test('a wrong email and a wrong password get the same answer', async ({ page }) => {
    const answer = async (email: string) => {
      await page.goto(service.httpUrl + '/');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      return page.getByRole('alert').textContent();
    };
    expect(await answer('pat@example.com')).toBe('Wrong email or password.');
    expect(await answer('nobody@example.com')).toBe('Wrong email or password.');
  });

  test('form posts without the page\'s CSRF token are refused and change nothing', async ({ page }) => {
    await signIn(page, service, 'pat@example.com');
    const keysBefore = await page.goto(service.httpUrl + '/profile').then(() => page.getByRole('button', { name: /^Revoke/ }).count());
    for (const form of [{ name: 'forged', scopes: 'emails' }, { name: 'forged', scopes: 'emails', _csrf: 'not-a-token' }] as Array<Record<string, string>>) {
      const response = await page.request.post(service.httpUrl + '/profile/keys', { form });
      expect(response.status()).toBe(403);
      expect(await response.text()).toContain('This form has expired');
    }
    const signOut = await page.request.post(service.httpUrl + '/sign-out', { form: {} });
    expect(signOut.status()).toBe(403);
    await page.goto(service.httpUrl + '/profile');
    await expect(page.getByRole('button', { name: /^Revoke/ })).toHaveCount(keysBefore); // no key was made, still signed in
  });

  test('the admin pages are 404 for a non-admin', async ({ page }) => {
    await signIn(page, service, 'pat@example.com');
    await expect(page.getByRole('link', { name: 'Admin' })).toHaveCount(0);
    for (const path of ['/admin']) expect((await page.goto(service.httpUrl + path))!.status()).toBe(404);
    const post = await page.request.post(service.httpUrl + '/admin/codes', { form: { calls: '5' } });
    expect([403, 404]).toContain(post.status());
  });
});

test('failed sign-ins are limited per account: "try again in N s", even with the right password', async ({ page }) => {
  const service = await startUiService();
  try {
    await service.person('lee@example.com');
    for (let i = 0; i < 5; i++) {
      await page.goto(service.httpUrl + '/');
      await page.getByLabel('Email').fill('lee@example.com');
      await page.getByLabel('Password').fill(`wrong ${i}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('alert')).toHaveText('Wrong email or password.');
    }
    await page.goto(service.httpUrl + '/');
    await page.getByLabel('Email').fill('lee@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/sign-in')), page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(response.status()).toBe(429);
    expect(Number(response.headers()['retry-after'])).toBeGreaterThan(0);
    await expect(page.getByRole('heading', { name: 'Too many failed sign-ins' })).toBeVisible();
    await expect(page.getByText(/Try again in \d+ s/)).toBeVisible();
    // Another account from the same address is not locked out by lee's failures.
    await service.person('max@example.com');
    await signIn(page, service, 'max@example.com');
  } finally {
    await service.close();
  }
});

test('open sign-up makes civilian accounts; without --open-signup there is no such page', async ({ page }) => {
  const open = await startUiService({ openSignup: true });
  try {
    await page.goto(open.httpUrl + '/');
    await page.getByRole('link', { name: 'Create account' }).click();
    await page.getByLabel('Email').fill('new@example.com');
    await page.getByLabel('Password').fill('short');
    await page.getByLabel('Password').evaluate((input) => input.removeAttribute('minlength')); // the server checks too
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByRole('alert')).toContainText('at least 8');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByRole('heading', { name: 'Mailboxes', level: 1 })).toBeVisible();
    await page.getByRole('link', { name: 'Profile' }).click();
    await expect(page.getByText('civilian')).toBeVisible();
  } finally {
    await open.close();
  }
  const closed = await startUiService();
  try {
    await page.goto(closed.httpUrl + '/');
    await expect(page.getByRole('link', { name: 'Create account' })).toHaveCount(0);
    expect((await page.goto(closed.httpUrl + '/sign-up'))!.status()).toBe(404);
  } finally {
    await closed.close();
  }
});

test('an admin creates an account, sets roles, grants a top-up and mints a code that redeems', async ({ page }) => {
  const service = await startUiService();
  try {
    await service.person('pat@example.com');
    await page.goto(service.signInUrl!);
    await page.getByLabel('New password').fill('the admin password');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('link', { name: 'Admin' }).click();

    await page.getByLabel('Email', { exact: true }).fill('quinn@example.com');
    await page.getByLabel('Password', { exact: true }).fill('quinn password 1');
    await page.getByLabel('Role', { exact: true }).selectOption('knight');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByText('Created quinn@example.com (knight)')).toBeVisible();

    await page.getByLabel('Role of pat@example.com').selectOption('duke');
    await page.getByRole('row').filter({ hasText: 'pat@example.com' }).getByRole('button', { name: 'Set role' }).click();
    await expect(page.getByText('pat@example.com is now duke.')).toBeVisible();

    await page.getByLabel('Account email').fill('pat@example.com');
    await page.getByLabel('Calls', { exact: true }).fill('100');
    await page.getByRole('button', { name: 'Grant top-up' }).click();
    await expect(page.getByText('Granted 100 calls to pat@example.com')).toBeVisible();

    await page.getByLabel('Calls per code').fill('40');
    await page.getByRole('button', { name: 'Mint redeem code' }).click();
    const code = (await page.getByTestId('redeem-code').textContent())!.trim();
    expect(code).toMatch(/^MW-/);
    await page.getByRole('button', { name: 'Sign out' }).click();

    await signIn(page, service, 'quinn@example.com', 'quinn password 1');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, service, 'pat@example.com');
    await page.getByRole('link', { name: 'Profile' }).click();
    await expect(page.getByRole('definition').filter({ hasText: 'duke' })).toBeVisible();
    await page.getByLabel('Redeem code').fill(code);
    await page.getByRole('button', { name: 'Redeem code' }).click();
    await expect(page.getByText('top-ups 140')).toBeVisible();
  } finally {
    await service.close();
  }
});

test('a session survives a restart of the service on the same store', async ({ page }) => {
  const first = await startUiService();
  await first.person('rae@example.com');
  await signIn(page, first, 'rae@example.com');
  await first.close();
  const second = await startUiService({ data: first.data });
  try {
    // Cookies belong to the host, not the port: the browser sends the same session to the new instance.
    await page.goto(second.httpUrl + '/profile');
    await expect(page.getByRole('heading', { name: 'Profile' })).toBeVisible();
    await expect(page.getByText('rae@example.com').first()).toBeVisible();
  } finally {
    await second.close();
  }
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });
  test('every form still works: sign in, generate a key, create a mailbox, sign out', async ({ page }) => {
    const service = await startUiService();
    try {
      await service.person('noscript@example.com');
      await signIn(page, service, 'noscript@example.com');
      await page.getByLabel('Name').fill('plain');
      await page.getByRole('button', { name: 'New mailbox' }).click();
      await expect(page.getByRole('heading', { name: 'plain@mailwright.test' })).toBeVisible();
      await page.goto(service.httpUrl + '/profile');
      await page.getByLabel('Name').fill('nojs');
      await page.getByRole('button', { name: 'Generate key' }).click();
      const key = (await page.getByTestId('new-key').textContent())!.trim();
      expect((await service.api('GET', '/api/config', { key })).status).toBe(200);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    } finally {
      await service.close();
    }
  });
});
