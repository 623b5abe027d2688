// Compile-time checks of the public types (run by `tsc`), plus a trivial runtime test:
// the inbox matchers exist only on inboxes, and are promises (so a missing await is caught).
import { test as base, expect as baseExpect, defineConfig, mergeTests } from '@playwright/test';
import { defineMailFixtures, expect, type Inbox, type MailMessage, type MailwrightConfig } from '../../src/index.js';

// Type-only: never called.
async function typeChecks(inbox: Inbox, page: { url(): string }) {
  const received: Promise<void> = expect(inbox).toReceive({ subject: 'x' }, { timeout: 1 });
  const count: Promise<void> = expect(inbox).not.toHaveMessageCount(2);
  await Promise.all([received, count]);
  // @ts-expect-error -- not an inbox
  await expect(page).toReceive({ subject: 'x' });
  const message: MailMessage = await inbox.waitForMessage({ to: inbox.address, subject: /x/, from: (f) => f.length > 0 });
  const link: string = await inbox.waitForVerificationLink(undefined, { since: new Date() });
  const code: string = await inbox.waitForCode((m) => m.subject.includes('code'), { timeout: 5 });
  return [message, link, code];
}

// A config's `use: { mailwright }` is typed, in the top-level use and in a project's.
const config = defineConfig<MailwrightConfig>({
  use: { mailwright: { delivery: 'poll', expiryTime: 600_000, attach: 'always' } },
  projects: [{ name: 'mail', use: { mailwright: { timeout: 10_000 } } }],
});
// @ts-expect-error -- a misspelt option is caught by tsc
defineConfig<MailwrightConfig>({ use: { mailwright: { delivry: 'poll' } } });
// @ts-expect-error -- a wrong value is caught by tsc
defineConfig<MailwrightConfig>({ use: { mailwright: { delivery: 'carrier-pigeon' } } });

const composed = mergeTests(base.extend(defineMailFixtures({ delivery: 'poll' })), base.extend<{ extra: number }>({ extra: 1 }));
// Type-only: a test declared against the composed fixtures inside a function never called.
function composedBody() {
  composed('composed fixtures are typed', async ({ inbox, mail, extra }) => {
    baseExpect(typeof inbox.address + typeof mail.delivery + typeof extra).toBe('stringstringnumber');
  });
}

// The compile-time checks above are the point; these only keep the names used.
void [typeChecks, composedBody, config];

base('the matchers are registered on the exported expect and refuse what is not an inbox', async () => {
  const matchers = expect({ url: () => '' }) as unknown as Record<'toReceive' | 'toHaveMessageCount', (...args: unknown[]) => Promise<void>>;
  await baseExpect(matchers.toReceive({ subject: 'x' })).rejects.toThrow(/toReceive/);
  await baseExpect(matchers.toHaveMessageCount(1)).rejects.toThrow(/toHaveMessageCount/);
  // A coded fixture error, not a bare TypeError.
  await baseExpect(matchers.toReceive({ subject: 'x' })).rejects.toMatchObject({ code: 'MW_ERR_INVALID_ARGUMENT', name: 'MailwrightFixtureError' });
});
