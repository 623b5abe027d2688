import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import { SmtpDialog } from './helpers/smtp-dialog.js';
import { startTestService, type TestService } from './helpers/service.js';

const HOUR = 3_600_000;
let svc: TestService;

test.beforeAll(async () => {
  svc = await startTestService({ maxMessageSize: 64 * 1024 });
});
test.afterAll(async () => {
  await svc.close();
});

async function mailbox(name?: string) {
  return (await svc.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR, ...(name ? { name } : {}) } })).body as { id: string; email: string };
}

test('EHLO advertises SIZE, PIPELINING, 8BITMIME, SMTPUTF8 and enhanced status codes', async () => {
  const smtp = await SmtpDialog.open(svc.smtpPort);
  const ehlo = await smtp.command('EHLO client.test');
  for (const feature of ['SIZE 65536', 'PIPELINING', '8BITMIME', 'SMTPUTF8', 'ENHANCEDSTATUSCODES']) expect(ehlo).toContain(feature);
  expect(ehlo).not.toContain('STARTTLS');
  smtp.close();
});

test('unknown recipients get 550 5.1.1; known and plus-addressed ones 250', async () => {
  const box = await mailbox();
  const smtp = await SmtpDialog.open(svc.smtpPort);
  await smtp.command('EHLO client.test');
  expect(await smtp.command('MAIL FROM:<sender@example.test>')).toMatch(/^250 /);
  expect(await smtp.command('RCPT TO:<nobody@mailwright.test>')).toMatch(/^550 5\.1\.1 /);
  expect(await smtp.command('RCPT TO:<someone@other-domain.test>')).toMatch(/^550 5\.1\.1 /);
  expect(await smtp.command(`RCPT TO:<${box.email.replace('@', '+signup@').toUpperCase()}>`)).toMatch(/^250 /);
  expect(await smtp.command('DATA')).toMatch(/^354/);
  smtp.write('Subject: tagged\r\nFrom: sender@example.test\r\n\r\nhello\r\n.\r\n');
  expect(await smtp.reply()).toMatch(/^250 /);
  smtp.close();
  const list = await svc.api('GET', `/api/emails/${box.id}`);
  expect(list.body.messages.map((m: any) => m.subject)).toEqual(['tagged']);
});

test('SIZE is enforced: a declared or actual oversize message gets 552 5.3.4 and is not stored', async () => {
  const box = await mailbox();
  const smtp = await SmtpDialog.open(svc.smtpPort);
  await smtp.command('EHLO client.test');
  expect(await smtp.command('MAIL FROM:<sender@example.test> SIZE=999999')).toMatch(/^552 5\.3\.4 /);
  expect(await smtp.command('MAIL FROM:<sender@example.test>')).toMatch(/^250 /);
  expect(await smtp.command(`RCPT TO:<${box.email}>`)).toMatch(/^250 /);
  expect(await smtp.command('DATA')).toMatch(/^354/);
  const line = `${'x'.repeat(998)}\r\n`;
  smtp.write(`Subject: too big\r\n\r\n${line.repeat(80)}.\r\n`);
  expect(await smtp.reply()).toMatch(/^552 5\.3\.4 /);
  // The connection stays usable.
  expect(await smtp.command('RSET')).toMatch(/^250 /);
  smtp.close();
  expect((await svc.api('GET', `/api/emails/${box.id}`)).body.total).toBe(0);
});

test('one copy per live mailbox, even when the same mailbox is named twice', async () => {
  const a = await mailbox();
  const b = await mailbox();
  await svc.send({ from: 'x@example.test', to: [a.email, b.email, a.email.replace('@', '+again@')], cc: 'nobody-here@mailwright.test', subject: 'fan-out', text: 'x' }).catch((error: unknown) => error);
  // nodemailer sends to the accepted recipients and reports the rejected one.
  expect((await svc.api('GET', `/api/emails/${a.id}`)).body.total).toBe(1);
  expect((await svc.api('GET', `/api/emails/${b.id}`)).body.total).toBe(1);
});

test('pipelined transactions are answered in order', async () => {
  const box = await mailbox();
  const smtp = await SmtpDialog.open(svc.smtpPort);
  await smtp.command('EHLO client.test');
  smtp.write(`MAIL FROM:<a@example.test>\r\nRCPT TO:<${box.email}>\r\nRCPT TO:<ghost@mailwright.test>\r\nDATA\r\n`);
  expect(await smtp.reply()).toMatch(/^250 /);
  expect(await smtp.reply()).toMatch(/^250 /);
  expect(await smtp.reply()).toMatch(/^550 5\.1\.1 /);
  expect(await smtp.reply()).toMatch(/^354/);
  smtp.write('Subject: piped\r\n\r\nbody\r\n.\r\n');
  expect(await smtp.reply()).toMatch(/^250 /);
  smtp.close();
  expect((await svc.api('GET', `/api/emails/${box.id}`)).body.messages[0].subject).toBe('piped');
});

test('malformed MIME is stored and served as well as it parses', async () => {
  const box = await mailbox();
  const sources = [
    'Subject: broken multipart\r\nContent-Type: multipart/alternative; boundary="never-closed"\r\n\r\n--never-closed\r\nContent-Type: text/plain\r\n\r\nvisible text\r\n',
    'Subject: bad encoding\r\nContent-Type: text/plain; charset=x-unknown-charset\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!not base64###\r\n',
    'no header block at all, just words\r\n',
    'Subject: =?utf-8?B?broken?=\r\nContent-Type: text/html\r\n\r\n<p>unclosed <b>html\r\n',
  ];
  for (const source of sources) {
    const smtp = await SmtpDialog.open(svc.smtpPort);
    await smtp.command('EHLO client.test');
    await smtp.command('MAIL FROM:<a@example.test>');
    await smtp.command(`RCPT TO:<${box.email}>`);
    await smtp.command('DATA');
    smtp.write(`${source}.\r\n`);
    expect(await smtp.reply()).toMatch(/^250 /);
    smtp.close();
  }
  const list = await svc.api('GET', `/api/emails/${box.id}?limit=10`);
  expect(list.body.total).toBe(sources.length);
  for (const summary of list.body.messages) {
    const one = await svc.api('GET', `/api/emails/${box.id}/${summary.id}`);
    expect(one.status).toBe(200);
    const raw = await svc.api('GET', `/api/emails/${box.id}/${summary.id}/raw`);
    expect(raw.status).toBe(200);
  }
  const subjects = list.body.messages.map((m: any) => m.subject);
  expect(subjects).toContain('broken multipart');
  const broken = list.body.messages.find((m: any) => m.subject === 'broken multipart');
  expect((await svc.api('GET', `/api/emails/${box.id}/${broken.id}`)).body.message.text).toContain('visible text');
  expect((await svc.api('GET', '/health', { key: null })).status).toBe(200);
});

test('an independent client (Python smtplib) delivers UTF-8 mail', async () => {
  const box = await mailbox();
  const script = `
import smtplib, sys
from email.message import EmailMessage
m = EmailMessage()
m['Subject'] = 'Bestätigen Sie Ihre E-Mail'
m['From'] = 'Dienst <noreply@example.test>'
m['To'] = sys.argv[2]
m.set_content('Ihr Code lautet 482913')
m.add_alternative('<p>Ihr Code lautet <b>482913</b></p>', subtype='html')
with smtplib.SMTP('127.0.0.1', int(sys.argv[1])) as s:
    s.send_message(m)
`;
  try {
    await promisify(execFile)('python3', ['-c', script, String(svc.smtpPort), box.email]);
  } catch (error) {
    test.skip((error as NodeJS.ErrnoException).code === 'ENOENT', 'python3 is not installed');
    throw error;
  }
  const list = await svc.api('GET', `/api/emails?mailbox=${box.id}&include=body`);
  expect(list.body.messages[0]).toMatchObject({ subject: 'Bestätigen Sie Ihre E-Mail', from: { address: 'noreply@example.test', name: 'Dienst' } });
  expect(list.body.messages[0].text).toContain('482913');
});
