// The web UI suite's service: a real mailwright on free ports with a store file, people made
// with the real CLI, and signing in the way a person does.
import { join } from 'node:path';
import { expect, type Page } from '@playwright/test';
import type { ServerOptions } from '../../src/server/index.js';
import { cli, lastLine, startTestService, tempDir, type TestService } from '../integration/helpers/service.js';

export const PASSWORD = 'correct horse battery staple';

export interface UiService extends TestService {
  /** Creates an account with {@link PASSWORD} (and an API key, returned) through the CLI. */
  person(email: string, opts?: { role?: string }): Promise<string>;
}

export async function startUiService(options: ServerOptions = {}): Promise<UiService> {
  const service = await startTestService({ data: join(tempDir('mailwright-ui-'), 'mailwright.db'), ...options });
  return Object.assign(service, {
    async person(email: string, opts: { role?: string } = {}) {
      await cli('accounts', 'create', '--email', email, '--password', PASSWORD, '--data', service.data, ...(opts.role ? ['--role', opts.role] : []));
      return lastLine(await cli('keys', 'create', '--email', email, '--data', service.data, '--name', 'cli'));
    },
  });
}

/** Signs in on the sign-in page with the labelled fields, as a person would. */
export async function signIn(page: Page, service: TestService, email: string, password = PASSWORD): Promise<void> {
  await page.goto(service.httpUrl + '/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Mailboxes', level: 1 })).toBeVisible();
}
