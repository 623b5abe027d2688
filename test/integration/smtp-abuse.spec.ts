// Integration: SMTP abuse is bounded as postfix bounds it by default. A connection may collect
// 20 refused recipients (the 21st refusal: 421 4.7.0, closed), a message may carry 100 RCPTs
// (the 101st: 452 4.5.3), the service serves `smtpMaxClients` clients at once (one more: 421),
// and only the first 5 refusals of a connection are kept for the refusals endpoint.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import { SmtpDialog } from './helpers/smtp-dialog.js';
import { startTestService, type TestService } from './helpers/service.js';

const HOUR = 3_600_000;
const DOMAIN = 'mailwright.test';
const TOO_MANY_REFUSED = '421 4.7.0 too many refused recipients (20) in this session; closing. Create the mailboxes first, or check the addresses';
let svc: TestService;

test.beforeAll(async () => {
  svc = await startTestService();
});
test.afterAll(async () => {
  await svc.close();
});

async function mailbox(service = svc) {
  return (await service.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR } })).body as { id: string; email: string };
}

/** A local-part prefix no other test uses: each test finds its own refusals by it. */
function unknownPrefix(): string {
  return `ghost-${randomUUID().slice(0, 8)}`;
}

/** Addresses of the refusals the service kept since `since` whose address starts with `prefix`, oldest first. */
async function keptRefusals(since: string, prefix: string): Promise<string[]> {
  const list = await svc.api('GET', `/api/emails/refusals?since=${encodeURIComponent(since)}&limit=100`);
  expect(list.status).toBe(200);
  return (list.body.refusals as Array<{ address: string }>).map((r) => r.address).filter((address) => address.startsWith(prefix));
}

/** Sends one message to `to` over `smtp` and expects it stored (250). */
async function deliver(smtp: SmtpDialog, to: string, subject: string): Promise<void> {
  expect(await smtp.command('EHLO client.test')).toMatch(/^250/);
  expect(await smtp.command('MAIL FROM:<sender@example.test>')).toMatch(/^250 /);
  expect(await smtp.command(`RCPT TO:<${to}>`)).toMatch(/^250 /);
  expect(await smtp.command('DATA')).toMatch(/^354/);
  smtp.write(`Subject: ${subject}\r\nFrom: sender@example.test\r\n\r\nbody\r\n.\r\n`);
  expect(await smtp.reply()).toMatch(/^250 /);
}

/** Opens a connection that has said EHLO and MAIL FROM. */
async function transaction(port: number, localAddress?: string): Promise<SmtpDialog> {
  const smtp = await SmtpDialog.open(port, localAddress ? { localAddress } : {});
  expect(await smtp.command('EHLO abuser.test')).toMatch(/^250/);
  expect(await smtp.command('MAIL FROM:<forged@example.test>')).toMatch(/^250 /);
  return smtp;
}

test('the 21st refused recipient of a connection gets 421 4.7.0 and the connection is closed; 5 refusals are kept; other clients are served', async () => {
  const since = new Date(Date.now() - 1_000).toISOString();
  const box = await mailbox();
  const bystander = await SmtpDialog.open(svc.smtpPort);
  const abuser = await transaction(svc.smtpPort);
  const prefix = unknownPrefix();
  const address = (i: number) => `${prefix}-${i}@${DOMAIN}`;
  // Counted per connection across transactions: RSET and a new MAIL FROM do not start over.
  for (let i = 1; i <= 20; i++) {
    if (i === 11) {
      expect(await abuser.command('RSET')).toMatch(/^250 /);
      expect(await abuser.command('MAIL FROM:<other@example.test>')).toMatch(/^250 /);
    }
    expect(await abuser.command(`RCPT TO:<${address(i)}>`)).toBe(`550 5.1.1 <${address(i)}>: no such mailbox here; create it first with POST /api/emails/generate`);
  }
  // Pipelined, as an attacker would: the 21st is answered 421, the rest never.
  abuser.write([21, 22, 23, 24, 25].map((i) => `RCPT TO:<${address(i)}>\r\n`).join(''));
  expect(await abuser.reply()).toBe(TOO_MANY_REFUSED);
  await abuser.ended;
  await expect(abuser.reply()).rejects.toThrow(/closed the connection/);

  expect(await keptRefusals(since, prefix)).toEqual([1, 2, 3, 4, 5].map(address));

  // A client connected all along is served as before.
  await deliver(bystander, box.email, 'after the abuse');
  bystander.close();
  expect((await svc.api('GET', `/api/emails/${box.id}`)).body.messages.map((m: { subject: string }) => m.subject)).toEqual(['after the abuse']);
});

test('a message carries at most 100 recipients, refused ones counted: the 101st gets 452 4.5.3, and the first 100 get the message once', async () => {
  const box = await mailbox();
  const [local] = box.email.split('@');
  const prefix = unknownPrefix();
  const smtp = await transaction(svc.smtpPort);
  // Every tenth is unknown (10 refusals, below the connection's 20); the 101st is a live mailbox's.
  const recipients = Array.from({ length: 101 }, (_, i) => (i % 10 === 5 ? `${prefix}-${i}@${DOMAIN}` : `${local}+r${i}@${DOMAIN}`));
  smtp.write(recipients.map((to) => `RCPT TO:<${to}>\r\n`).join(''));
  const replies: string[] = [];
  for (let i = 0; i < recipients.length; i++) replies.push(await smtp.reply());
  expect(replies.slice(0, 100).map((reply, i) => `${recipients[i]} ${reply.slice(0, 9)}`)).toEqual(
    recipients.slice(0, 100).map((to) => `${to} ${to.startsWith(prefix) ? '550 5.1.1' : '250 2.1.5'}`),
  );
  expect(replies[100]).toBe('452 4.5.3 Too many recipients: at most 100 per message; send to the rest in another message');
  expect(await smtp.command('DATA')).toMatch(/^354/);
  smtp.write('Subject: to a hundred\r\nFrom: sender@example.test\r\n\r\nbody\r\n.\r\n');
  expect(await smtp.reply()).toMatch(/^250 /);
  // A new transaction counts from zero.
  expect(await smtp.command('MAIL FROM:<sender@example.test>')).toMatch(/^250 /);
  expect(await smtp.command(`RCPT TO:<${box.email}>`)).toMatch(/^250 /);
  expect(await smtp.command('RSET')).toMatch(/^250 /);
  smtp.close();
  const list = await svc.api('GET', `/api/emails/${box.id}`);
  expect(list.body.messages.map((m: { subject: string }) => m.subject)).toEqual(['to a hundred']);
});

test('with smtpMaxClients 2 a third client at once gets 421 and is closed; the two are served, and once one leaves a new one is', async () => {
  const small = await startTestService({ smtpMaxClients: 2 });
  const open: SmtpDialog[] = [];
  try {
    const box = await mailbox(small);
    for (let i = 0; i < 2; i++) open.push(await SmtpDialog.open(small.smtpPort));
    const [first, second] = open as [SmtpDialog, SmtpDialog];
    expect([first.greeting, second.greeting]).toEqual([expect.stringMatching(/^220 /), expect.stringMatching(/^220 /)]);

    const third = await SmtpDialog.open(small.smtpPort);
    open.push(third);
    expect(third.greeting).toMatch(/^421 .*Too many connected clients/);
    await third.ended;

    await deliver(first, box.email, 'first');
    await deliver(second, box.email, 'second');
    expect(await first.command('QUIT')).toMatch(/^221 /);
    await first.ended;

    const fourth = await SmtpDialog.open(small.smtpPort);
    open.push(fourth);
    expect(fourth.greeting).toMatch(/^220 /);
    await deliver(fourth, box.email, 'fourth');
    const list = await small.api('GET', `/api/emails/${box.id}`);
    expect(list.body.messages.map((m: { subject: string }) => m.subject).sort()).toEqual(['first', 'fourth', 'second']);
  } finally {
    for (const smtp of open) smtp.destroy();
    await small.close();
  }
});

test('refused recipients are counted per connection: one from 127.0.0.2 has its own 20 beside one from 127.0.0.1', async () => {
  const prefix = unknownPrefix();
  const one = await transaction(svc.smtpPort);
  let two: SmtpDialog;
  try {
    two = await transaction(svc.smtpPort, '127.0.0.2');
  } catch (error) {
    one.destroy();
    const code = (error as NodeJS.ErrnoException).code ?? '';
    test.skip(['EADDRNOTAVAIL', 'EINVAL', 'EACCES'].includes(code), `cannot connect from 127.0.0.2 here (${code})`);
    throw error;
  }
  for (const [name, smtp] of [['one', one], ['two', two]] as const) {
    for (let i = 1; i <= 20; i++) expect(await smtp.command(`RCPT TO:<${prefix}-${name}-${i}@${DOMAIN}>`), `${name} #${i}`).toMatch(/^550 5\.1\.1 /);
  }
  for (const smtp of [one, two]) {
    expect(await smtp.command(`RCPT TO:<${prefix}-21@${DOMAIN}>`)).toBe(TOO_MANY_REFUSED);
    await smtp.ended;
  }
});

test('an independent client (Python smtplib) sending 30 unknown recipients gets 20 refusals, a 421, and is disconnected', async () => {
  const prefix = unknownPrefix();
  const script = `
import json, smtplib, sys
s = smtplib.SMTP('127.0.0.1', int(sys.argv[1]), timeout=10)
s.ehlo('python.test')
s.mail('forged@example.test')
seen = []
try:
    for i in range(30):
        code, text = s.rcpt('%s-%d@%s' % (sys.argv[2], i, sys.argv[3]))
        seen.append([code, text.decode()])
except smtplib.SMTPServerDisconnected:
    seen.append('disconnected')
print(json.dumps(seen))
`;
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)('python3', ['-c', script, String(svc.smtpPort), prefix, DOMAIN]));
  } catch (error) {
    test.skip((error as NodeJS.ErrnoException).code === 'ENOENT', 'python3 is not installed');
    throw error;
  }
  const seen = JSON.parse(stdout) as Array<[number, string] | 'disconnected'>;
  expect(seen.slice(0, 20).map((entry) => entry[0])).toEqual(Array(20).fill(550));
  expect(seen.slice(20)).toEqual([[421, TOO_MANY_REFUSED.slice('421 '.length)], 'disconnected']);
});
