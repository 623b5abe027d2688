// --catch-all: mail to any address at a served domain creates its mailbox on the first delivery
// (local development); off by default, refused on a public host unless allowed, and said in the banner.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import { runCli } from './helpers/cli-process.js';
import { spawnServe } from './helpers/serve-process.js';
import { SmtpDialog } from './helpers/smtp-dialog.js';
import { accountWithKey, startTestService, tempDir, type TestService } from './helpers/service.js';

const HOUR = 3_600_000;

/** Sends one message; resolves the SMTP error (code and reply) or undefined when it was accepted. */
async function sendTo(svc: TestService, to: string, subject = 'hello'): Promise<{ responseCode: number; response: string } | undefined> {
  return svc.send({ from: 'dev-server@example.test', to, subject, text: `to ${to}` }).then(() => undefined, (error: { responseCode: number; response: string }) => error);
}

/** One transaction on its own connection up to RCPT; returns the dialog and the RCPT reply. */
async function toRcpt(port: number, recipient: string): Promise<{ smtp: SmtpDialog; rcpt: Promise<string> }> {
  const smtp = await SmtpDialog.open(port);
  await smtp.command('EHLO client.test');
  expect(await smtp.command('MAIL FROM:<app@example.test>')).toMatch(/^250 /);
  return { smtp, rcpt: smtp.command(`RCPT TO:<${recipient}>`) };
}

test.describe('with --catch-all', () => {
  let svc: TestService;
  test.beforeAll(async () => {
    svc = await startTestService({ catchAll: true });
  });
  test.afterAll(async () => {
    await svc.close();
  });

  test('mail to a new address is kept in a mailbox created for the admin, with the standard expiry of an hour', async () => {
    expect(svc.catchAll).toEqual({ domains: ['mailwright.test'], owner: 'admin@mailwright.local' });
    expect((await svc.api('GET', '/api/emails/signup-flow@mailwright.test')).status).toBe(404);
    expect(await sendTo(svc, 'signup-flow@mailwright.test', 'Welcome')).toBeUndefined();
    const box = await svc.api('GET', '/api/emails/signup-flow@mailwright.test');
    expect(box.status).toBe(200);
    expect(box.body.mailbox.email).toBe('signup-flow@mailwright.test');
    expect(Date.parse(box.body.mailbox.expiresAt) - Date.parse(box.body.mailbox.createdAt)).toBe(HOUR);
    expect(box.body.messages.map((m: any) => m.subject)).toEqual(['Welcome']);
    // The admin's poll across its mailboxes has it too.
    const all = await svc.api('GET', `/api/emails?mailbox=${box.body.mailbox.id}`);
    expect(all.body.messages.map((m: any) => [m.mailbox, m.subject])).toEqual([['signup-flow@mailwright.test', 'Welcome']]);
    // Nothing was refused.
    expect((await svc.api('GET', '/api/emails/refusals')).body.refusals.map((r: any) => r.address)).not.toContain('signup-flow@mailwright.test');
  });

  test('plus-addressing reaches the base address: one mailbox for user+tag and user', async () => {
    expect(await sendTo(svc, 'Reset+Tag1@MailWright.test', 'first')).toBeUndefined();
    expect(await sendTo(svc, 'reset+other@mailwright.test', 'second')).toBeUndefined();
    expect(await sendTo(svc, 'reset@mailwright.test', 'third')).toBeUndefined();
    const box = await svc.api('GET', '/api/emails/reset@mailwright.test');
    expect(box.status).toBe(200);
    expect(box.body.total).toBe(3);
    expect((await svc.api('GET', '/api/emails/reset+tag1@mailwright.test')).status).toBe(404);
  });

  test('concurrent deliveries to one new address are all accepted, into one mailbox', async () => {
    const address = 'racing@mailwright.test';
    const opened = await Promise.all(Array.from({ length: 6 }, () => toRcpt(svc.smtpPort, address)));
    const replies = await Promise.all(opened.map((o) => o.rcpt));
    for (const reply of replies) expect(reply).toMatch(/^250 /);
    for (const [i, { smtp }] of opened.entries()) {
      expect(await smtp.command('DATA')).toMatch(/^354/);
      smtp.write(`Subject: copy ${i}\r\n\r\nbody\r\n.\r\n`);
      expect(await smtp.reply()).toMatch(/^250 /);
      smtp.close();
    }
    const box = await svc.api('GET', `/api/emails/${address}`);
    expect(box.body.total).toBe(opened.length);
    expect(new Set(box.body.messages.map((m: any) => m.mailboxId))).toEqual(new Set([box.body.mailbox.id]));
  });

  test('an expired mailbox keeps its 550 "expired"; unserved domains and unusable names are still refused', async () => {
    const made = await svc.api('POST', '/api/emails/generate', { body: { name: 'ended', expiryTime: HOUR } });
    expect((await svc.api('POST', `/api/emails/${made.body.id}/expire`)).status).toBe(200);
    const expired = await sendTo(svc, 'ended@mailwright.test');
    expect(expired?.responseCode).toBe(550);
    expect(expired?.response).toMatch(/^550 5\.1\.1 <ended@mailwright\.test>: this mailbox expired at \d{4}-/);
    const unserved = await sendTo(svc, 'someone@other-domain.test');
    expect(unserved?.response).toMatch(/^550 5\.1\.1 <someone@other-domain\.test>: this service does not serve the domain other-domain\.test/);

    const smtp = await SmtpDialog.open(svc.smtpPort);
    await smtp.command('EHLO client.test');
    await smtp.command('MAIL FROM:<app@example.test>');
    expect(await smtp.command("RCPT TO:<o'brien@mailwright.test>")).toBe(
      "550 5.1.1 <o'brien@mailwright.test>: no such mailbox, and the catch-all cannot create one: a mailbox name is 1-64 of a-z 0-9 . _ -, starting and ending with a letter or digit; send to such an address",
    );
    smtp.close();
    const refusals = (await svc.api('GET', '/api/emails/refusals')).body.refusals.map((r: any) => [r.address, r.reason]);
    expect(refusals).toEqual(expect.arrayContaining([
      ['ended@mailwright.test', 'expired_mailbox'],
      ['someone@other-domain.test', 'unserved_domain'],
      ["o'brien@mailwright.test", 'unknown_mailbox'],
    ]));
  });

  test('an independent client (Python smtplib) sends to a new address and it is kept', async () => {
    const script = `
import smtplib, sys
from email.message import EmailMessage
m = EmailMessage()
m['Subject'] = 'Ihr Bestätigungscode'
m['From'] = 'Dienst <noreply@example.test>'
m['To'] = sys.argv[2]
m.set_content('Ihr Code lautet 731905')
with smtplib.SMTP('127.0.0.1', int(sys.argv[1])) as s:
    s.send_message(m)
`;
    try {
      await promisify(execFile)('python3', ['-c', script, String(svc.smtpPort), 'python-client+dev@mailwright.test']);
    } catch (error) {
      test.skip((error as NodeJS.ErrnoException).code === 'ENOENT', 'python3 is not installed');
      throw error;
    }
    const box = await svc.api('GET', '/api/emails/python-client@mailwright.test');
    expect(box.status).toBe(200);
    const one = await svc.api('GET', `/api/emails/${box.body.mailbox.id}/${box.body.messages[0].id}`);
    expect(one.body.message).toMatchObject({ subject: 'Ihr Bestätigungscode', from: { address: 'noreply@example.test', name: 'Dienst' } });
    expect(one.body.message.text).toContain('731905');
  });
});

test('an expired catch-all address is refused until the sweeper deletes it, then the next mail makes a new mailbox', async () => {
  const svc = await startTestService({ catchAll: true, sweepIntervalMs: 200 });
  try {
    expect(await sendTo(svc, 'cycle@mailwright.test', 'one')).toBeUndefined();
    const first = (await svc.api('GET', '/api/emails/cycle@mailwright.test')).body.mailbox;
    expect((await svc.api('POST', `/api/emails/${first.id}/expire`)).status).toBe(200);
    // Refused while it is expired; once swept, the catch-all makes a new one.
    await expect.poll(async () => (await sendTo(svc, 'cycle@mailwright.test', 'two'))?.responseCode ?? 250, { timeout: 15_000 }).toBe(250);
    const second = await svc.api('GET', '/api/emails/cycle@mailwright.test');
    expect(second.body.mailbox.id).not.toBe(first.id);
    expect(second.body.messages.map((m: any) => m.subject)).toEqual(['two']);
  } finally {
    await svc.close();
  }
});

test('without --catch-all, mail to a new address gets 550 and is recorded as a refusal', async () => {
  const svc = await startTestService();
  try {
    expect(svc.catchAll).toBeNull();
    const error = await sendTo(svc, 'nobody-made-me@mailwright.test');
    expect(error?.responseCode).toBe(550);
    expect(error?.response).toBe('550 5.1.1 <nobody-made-me@mailwright.test>: no such mailbox here; create it first with POST /api/emails/generate');
    expect((await svc.api('GET', '/api/emails/nobody-made-me@mailwright.test')).status).toBe(404);
    await expect.poll(async () => (await svc.api('GET', '/api/emails/refusals')).body.refusals.map((r: any) => [r.address, r.reason]))
      .toEqual([['nobody-made-me@mailwright.test', 'unknown_mailbox']]);
  } finally {
    await svc.close();
  }
});

test('--catch-all-owner: another account owns the mailboxes, within its role limits (452 4.2.2 at its live-mailbox limit)', async () => {
  const data = join(tempDir(), 'store.db');
  const key = await accountWithKey(data, 'dev@example.test');
  const svc = await startTestService({ data, catchAll: true, catchAllOwner: 'Dev@Example.test', roles: { civilian: { maxMailboxes: 2 } } });
  try {
    expect(svc.catchAll).toEqual({ domains: ['mailwright.test'], owner: 'dev@example.test' });
    expect(await sendTo(svc, 'owned-one@mailwright.test')).toBeUndefined();
    const owned = await svc.api('GET', '/api/emails/owned-one@mailwright.test', { key });
    expect(owned.status).toBe(200);
    expect(owned.body.total).toBe(1);
    // Not the admin's.
    expect((await svc.api('GET', '/api/emails/owned-one@mailwright.test')).status).toBe(404);

    expect(await sendTo(svc, 'owned-two@mailwright.test')).toBeUndefined();
    const full = await sendTo(svc, 'owned-three@mailwright.test');
    expect(full?.responseCode).toBe(452);
    expect(full?.response).toBe(
      '452 4.2.2 <owned-three@mailwright.test>: the catch-all owner dev@example.test has reached its limit of 2 live mailboxes (role civilian); ' +
        'expire mailboxes it is done with (POST /api/emails/{id}/expire), move the account to a role with a higher limit, or start with another --catch-all-owner',
    );
    // Mail to a mailbox it has still arrives.
    expect(await sendTo(svc, 'owned-one+again@mailwright.test')).toBeUndefined();
    expect((await svc.api('GET', '/api/emails/owned-one@mailwright.test', { key })).body.total).toBe(2);
    // Ending one makes room.
    expect((await svc.api('POST', '/api/emails/owned-two@mailwright.test/expire', { key })).status).toBe(200);
    expect(await sendTo(svc, 'owned-three@mailwright.test')).toBeUndefined();
    // A civilian's mailbox lives an hour too (its role allows up to three days).
    const third = (await svc.api('GET', '/api/emails/owned-three@mailwright.test', { key })).body.mailbox;
    expect(Date.parse(third.expiresAt) - Date.parse(third.createdAt)).toBe(HOUR);
  } finally {
    await svc.close();
  }
});

test('an unknown --catch-all-owner fails the start, naming the flag', async () => {
  const failed = await startTestService({ catchAll: true, catchAllOwner: 'ghost@example.test' }).then(() => null, (error: Error & { code?: string }) => error);
  expect(failed?.code).toBe('MW_ERR_CONFIG');
  expect(failed?.message).toContain('--catch-all-owner ghost@example.test: no account has this email');
  expect(failed?.message).toContain('leave --catch-all-owner out');
  // An owner without the catch-all is a mistake said at once.
  const alone = await startTestService({ catchAllOwner: 'dev@example.test' }).then(() => null, (error: Error & { code?: string }) => error);
  expect(alone?.code).toBe('MW_ERR_CONFIG');
  expect(alone?.message).toContain('--catch-all-owner dev@example.test has no effect without --catch-all');
});

test('on a public host the catch-all is refused at start unless --allow-catch-all-public', async () => {
  const failed = await startTestService({ host: '0.0.0.0', catchAll: true }).then(() => null, (error: Error & { code?: string }) => error);
  expect(failed?.code).toBe('MW_ERR_CONFIG');
  expect(failed?.message).toContain('--catch-all on host 0.0.0.0 is refused');
  expect(failed?.message).toContain('anyone who reaches the SMTP port could fill the store');
  expect(failed?.message).toContain('--allow-catch-all-public');
  // Loopback names are fine.
  const local = await startTestService({ host: 'localhost', catchAll: true });
  await local.close();
  const allowed = await startTestService({ host: '0.0.0.0', catchAll: true, allowCatchAllPublic: true });
  try {
    expect(await sendTo(allowed, 'public@mailwright.test')).toBeUndefined();
    expect((await allowed.api('GET', '/api/emails/public@mailwright.test')).body.total).toBe(1);
  } finally {
    await allowed.close();
  }
});

test.describe('mailwright serve', () => {
  test('the banner says which mail is kept: created mailboxes only, or the catch-all with its domains and owner', async () => {
    const plain = await spawnServe(['--data', ':memory:']);
    try {
      await expect.poll(() => plain.output()).toContain('  Mail       Only created mailboxes accept mail (start with --catch-all to keep mail to any address)\n');
    } finally {
      plain.child.kill('SIGTERM');
      await plain.exited;
    }
    const on = await spawnServe(['--data', ':memory:', '--catch-all', '--domain', 'dev.test', '--domain', 'mailwright.test']);
    try {
      await expect.poll(() => on.output()).toContain('  Mail       Catch-all: mail to any address @dev.test, @mailwright.test is kept (owner admin@mailwright.local)\n');
      expect(on.output()).not.toContain('Only created mailboxes');
      // It does what it says.
      const smtp = await SmtpDialog.open(on.smtpPort);
      await smtp.command('EHLO client.test');
      await smtp.command('MAIL FROM:<app@example.test>');
      expect(await smtp.command('RCPT TO:<anyone@dev.test>')).toMatch(/^250 /);
      smtp.close();
    } finally {
      on.child.kill('SIGTERM');
      await on.exited;
    }
  });

  test('the catch-all flags fail the start with a usage error naming the flag', async () => {
    const base = ['serve', '--http-port', '0', '--smtp-port', '0', '--data', ':memory:'];
    const owner = await runCli(...base, '--catch-all', '--catch-all-owner', 'ghost@example.test');
    expect(owner).toMatchObject({ code: 2, stdout: '' });
    expect(owner.stderr).toMatch(/^mailwright: --catch-all-owner ghost@example\.test: no account has this email/);
    const publicHost = await runCli(...base, '--catch-all', '--host', '0.0.0.0');
    expect(publicHost).toMatchObject({ code: 2, stdout: '' });
    expect(publicHost.stderr).toContain('mailwright: --catch-all on host 0.0.0.0 is refused');
    expect(publicHost.stderr).toContain('--allow-catch-all-public');
  });
});
