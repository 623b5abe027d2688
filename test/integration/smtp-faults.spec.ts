// SMTP honours a mailbox's fault rules, for that mailbox only: at RCPT a rule refuses, delays or
// drops its recipient and no other; at DATA it answers for the whole transaction after the body;
// what is refused or dropped is never stored; a delay holds no other session; a spent rule stops
// at once; a fleet shares the count. Real sockets, rules set through the HTTP API.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import { freshSchema, NO_POSTGRES, REQUIRE_POSTGRES, TEST_DATABASE_URL } from '../helpers/postgres.js';
import { SmtpDialog } from './helpers/smtp-dialog.js';
import { startTestService, type TestService } from './helpers/service.js';

const run = promisify(execFile);

async function mailbox(service: TestService, name: string): Promise<{ id: string; email: string }> {
  const created = await service.api('POST', '/api/emails/generate', { body: { name, expiryTime: 3_600_000 } });
  expect(created.status).toBe(201);
  return created.body;
}

async function fault(service: TestService, box: { id: string }, rule: Record<string, unknown>): Promise<{ id: string }> {
  const added = await service.api('POST', `/api/emails/${box.id}/faults`, { body: rule });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  return added.body;
}

async function stored(service: TestService, box: { id: string }): Promise<string[]> {
  const listed = await service.api('GET', `/api/emails/${box.id}`);
  return listed.body.messages.map((m: { subject: string }) => m.subject);
}

/** One transaction: MAIL FROM, each RCPT (their replies), then DATA with `subject` when any was accepted (its final reply). */
async function transaction(dialog: SmtpDialog, recipients: string[], subject: string) {
  await dialog.command('MAIL FROM:<app@example.com>');
  const rcpt: string[] = [];
  for (const to of recipients) rcpt.push(await dialog.command(`RCPT TO:<${to}>`));
  if (!rcpt.some((r) => r.startsWith('250'))) return { rcpt, data: null };
  expect(await dialog.command('DATA')).toMatch(/^354/);
  dialog.write(`Subject: ${subject}\r\nFrom: app@example.com\r\n\r\nbody of ${subject}\r\n.\r\n`);
  return { rcpt, data: await dialog.reply(70_000) };
}

let service: TestService;
test.beforeEach(async () => {
  service = await startTestService();
});
test.afterEach(async () => {
  await service.close();
});

test('a rule at rcpt refuses its recipient and no other in the same transaction, for its times, then stops', async () => {
  const faulty = await mailbox(service, 'faulty');
  const clean = await mailbox(service, 'clean');
  await fault(service, faulty, { at: 'rcpt', code: 451, enhancedCode: '4.3.2', message: 'try again later', times: 1 });
  const dialog = await SmtpDialog.open(service.smtpPort);
  await dialog.command('EHLO app.example.com');
  const first = await transaction(dialog, [faulty.email, clean.email], 'first');
  expect(first.rcpt[0]).toBe('451 4.3.2 try again later');
  expect(first.rcpt[1]).toMatch(/^250/);
  expect(first.data).toMatch(/^250/);
  // Spent: the retry goes through.
  const retry = await transaction(dialog, [faulty.email], 'retry');
  expect(retry.rcpt[0]).toMatch(/^250/);
  dialog.close();
  expect(await stored(service, faulty)).toEqual(['retry']);
  expect(await stored(service, clean)).toEqual(['first']);
  const rules = (await service.api('GET', `/api/emails/${faulty.id}/faults`)).body.faults;
  expect(rules).toEqual([expect.objectContaining({ at: 'rcpt', code: 451, times: 1, hits: 1, remaining: 0 })]);
});

test('421 at rcpt replies and closes the connection; disconnect closes it without a reply; neither stores anything', async () => {
  const closing = await mailbox(service, 'closing');
  const dropping = await mailbox(service, 'dropping');
  await fault(service, closing, { at: 'rcpt', code: 421 });
  await fault(service, dropping, { at: 'rcpt', disconnect: true });
  const first = await SmtpDialog.open(service.smtpPort);
  await first.command('EHLO app.example.com');
  await first.command('MAIL FROM:<app@example.com>');
  expect(await first.command(`RCPT TO:<${closing.email}>`)).toMatch(/^421 4\.0\.0 <closing@mailwright\.test>: refused by this mailbox's fault rule 421 4\.0\.0 at rcpt/);
  await first.ended;
  const second = await SmtpDialog.open(service.smtpPort);
  await second.command('EHLO app.example.com');
  await second.command('MAIL FROM:<app@example.com>');
  second.write(`RCPT TO:<${dropping.email}>\r\n`);
  await second.ended;
  await expect(second.reply(1_000)).rejects.toThrow();
  expect(await stored(service, closing)).toEqual([]);
  expect(await stored(service, dropping)).toEqual([]);
});

test('a rule at data answers after the body for the whole transaction, and nothing of it is stored', async () => {
  const faulty = await mailbox(service, 'data-faulty');
  const clean = await mailbox(service, 'data-clean');
  await fault(service, faulty, { at: 'data', code: 550, message: 'content rejected' });
  const dialog = await SmtpDialog.open(service.smtpPort);
  await dialog.command('EHLO app.example.com');
  const refused = await transaction(dialog, [clean.email, faulty.email], 'refused');
  expect(refused.rcpt.every((r) => r.startsWith('250'))).toBe(true);
  expect(refused.data).toBe('550 5.0.0 content rejected');
  // Without the faulty recipient the same session is served as usual.
  const fine = await transaction(dialog, [clean.email], 'fine');
  expect(fine.data).toMatch(/^250/);
  dialog.close();
  expect(await stored(service, clean)).toEqual(['fine']);
  expect(await stored(service, faulty)).toEqual([]);
});

test('a dropped connection after the body stores nothing; the sender may retry once the rule is spent', async () => {
  const box = await mailbox(service, 'dropped');
  await fault(service, box, { at: 'data', disconnect: true, times: 1 });
  const dialog = await SmtpDialog.open(service.smtpPort);
  await dialog.command('EHLO app.example.com');
  await dialog.command('MAIL FROM:<app@example.com>');
  await dialog.command(`RCPT TO:<${box.email}>`);
  await dialog.command('DATA');
  dialog.write('Subject: lost\r\n\r\nlost\r\n.\r\n');
  await dialog.ended;
  expect(await stored(service, box)).toEqual([]);
  const again = await SmtpDialog.open(service.smtpPort);
  await again.command('EHLO app.example.com');
  expect((await transaction(again, [box.email], 'kept')).data).toMatch(/^250/);
  again.close();
  expect(await stored(service, box)).toEqual(['kept']);
});

test('a delay holds its own reply only: another session is served meanwhile', async () => {
  const slow = await mailbox(service, 'slow');
  const fast = await mailbox(service, 'fast');
  await fault(service, slow, { at: 'data', delay: 1_500 });
  const slowDialog = await SmtpDialog.open(service.smtpPort);
  await slowDialog.command('EHLO slow.example.com');
  const order: string[] = [];
  const slowDone = transaction(slowDialog, [slow.email], 'slow').then((r) => order.push(`slow ${r.data?.slice(0, 3)}`));
  // The slow transaction's body is in; the fast one starts and ends while it waits.
  await expect.poll(async () => (await service.api('GET', `/api/emails/${slow.id}/faults`)).body.faults[0].hits).toBe(1);
  const fastDialog = await SmtpDialog.open(service.smtpPort);
  await fastDialog.command('EHLO fast.example.com');
  order.push(`fast ${(await transaction(fastDialog, [fast.email], 'fast')).data?.slice(0, 3)}`);
  await slowDone;
  expect(order).toEqual(['fast 250', 'slow 250']);
  slowDialog.close();
  fastDialog.close();
  expect(await stored(service, slow)).toEqual(['slow']);
});

test('probability: over 120 recipients a rule of 0.5 applies to about half, and hits count each', async () => {
  const box = await mailbox(service, 'coin');
  await fault(service, box, { at: 'rcpt', code: 450, probability: 0.5 });
  const dialog = await SmtpDialog.open(service.smtpPort);
  await dialog.command('EHLO app.example.com');
  let refused = 0;
  for (let i = 0; i < 120; i++) {
    await dialog.command('RSET');
    await dialog.command('MAIL FROM:<app@example.com>');
    if ((await dialog.command(`RCPT TO:<${box.email}>`)).startsWith('450 4.0.0')) refused++;
  }
  dialog.close();
  // Binomial(120, 0.5): 60 ± 5.5; 30..90 is more than five deviations either way.
  expect(refused).toBeGreaterThan(30);
  expect(refused).toBeLessThan(90);
  expect((await service.api('GET', `/api/emails/${box.id}/faults`)).body.faults[0].hits).toBe(refused);
});

test('an independent client (Python smtplib) meets a 451 once and succeeds on its retry', async () => {
  const box = await mailbox(service, 'python');
  await fault(service, box, { at: 'rcpt', code: 451, times: 1 });
  const script = `
import smtplib, sys
port, to = int(sys.argv[1]), sys.argv[2]
for attempt in (1, 2):
    try:
        with smtplib.SMTP('127.0.0.1', port) as s:
            s.sendmail('app@example.com', [to], 'Subject: attempt %d\\r\\n\\r\\nhello' % attempt)
        print('sent on attempt', attempt)
        break
    except smtplib.SMTPRecipientsRefused as e:
        code, text = e.recipients[to]
        print('refused', code, text.decode()[:10])
`;
  const { stdout } = await run('python3', ['-c', script, String(service.smtpPort), box.email]);
  expect(stdout.trim().split('\n')).toEqual(['refused 451 4.0.0 <pyt', 'sent on attempt 2']);
  expect(await stored(service, box)).toEqual(['attempt 2']);
});

test.describe('a fleet', () => {
  test.skip(TEST_DATABASE_URL === undefined && !REQUIRE_POSTGRES, NO_POSTGRES);

  test('two instances share a rule and its count: times 3 refuses exactly three deliveries across both', async () => {
    await using schema = await freshSchema();
    const [a, b] = await Promise.all([startTestService({ databaseUrl: schema.url }), startTestService({ databaseUrl: schema.url })]);
    try {
      const box = await mailbox(a, 'shared');
      // Both instances have looked the mailbox up (b's cached answer must learn of the rule).
      for (const instance of [a, b]) await instance.send({ from: 'app@example.com', to: box.email, subject: 'before', text: 'x' });
      await fault(a, box, { at: 'rcpt', code: 451, times: 3 });
      const dialogs = await Promise.all([a, b].map(async (s) => {
        const d = await SmtpDialog.open(s.smtpPort);
        await d.command('EHLO app.example.com');
        return d;
      }));
      let refused = 0;
      for (let i = 0; i < 10; i++) {
        const d = dialogs[i % 2]!;
        await d.command('RSET');
        await d.command('MAIL FROM:<app@example.com>');
        if ((await d.command(`RCPT TO:<${box.email}>`)).startsWith('451')) refused++;
      }
      for (const d of dialogs) d.close();
      expect(refused).toBe(3);
      expect((await b.api('GET', `/api/emails/${box.id}/faults`)).body.faults[0]).toMatchObject({ hits: 3, remaining: 0 });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
