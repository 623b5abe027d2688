// Unit tests of the timeout error's text (src/playwright/errors.ts): it names the address,
// the match, the timeout, the delivery mode, what arrived, and gives a hint.
import { test, expect } from '@playwright/test';
import { formatClock, formatDuration, MailwrightTimeoutError, type WaitTimeoutDetails } from '../../src/playwright/errors.js';
import { MailwrightError } from '../../src/client/index.js';

const base: WaitTimeoutDetails = {
  address: 'abc@mailwright.test',
  match: 'subject ~ "Verify"',
  target: 'message',
  timeout: 5_000,
  delivery: 'webhook',
  arrived: [],
  startedAt: new Date(2026, 0, 2, 3, 4, 5, 6),
};

test('formatDuration and formatClock', () => {
  expect(formatDuration(850)).toBe('850 ms');
  expect(formatDuration(5_000)).toBe('5 s');
  expect(formatDuration(2_500)).toBe('2.5 s');
  expect(formatDuration(180_000)).toBe('3 min');
  expect(formatClock(new Date(2026, 0, 2, 3, 4, 5, 6))).toBe('03:04:05.006');
});

test('nothing arrived', () => {
  const error = new MailwrightTimeoutError(base);
  expect(error).toBeInstanceOf(MailwrightError);
  expect(error.code).toBe('MW_ERR_WAIT_TIMEOUT');
  expect(error.name).toBe('MailwrightTimeoutError');
  expect(error.message).toBe(
    'no message arrived at abc@mailwright.test matching subject ~ "Verify" within 5 s (delivery: webhook).\n' +
      'Nothing arrived at abc@mailwright.test since the inbox was created.\n' +
      'Hint: check that the app under test sends to exactly abc@mailwright.test through the mailwright SMTP server, and that the step that sends it ran; raise { timeout } if the app is slow.',
  );
});

test('lists what arrived when nothing matched', () => {
  const error = new MailwrightTimeoutError({
    ...base,
    delivery: 'webhook+poll fallback',
    since: new Date(2026, 0, 2, 3, 4, 0, 0),
    arrived: [
      { subject: 'Welcome aboard', from: 'Demo <noreply@app.test>', receivedAt: new Date(2026, 0, 2, 3, 4, 6, 100), matched: false },
      { subject: 'Your receipt', from: 'shop@app.test', receivedAt: new Date(2026, 0, 2, 3, 4, 7, 200), matched: false },
    ],
  });
  expect(error.message).toContain('within 5 s (delivery: webhook+poll fallback).');
  expect(error.message).toContain('2 messages arrived since 03:04:00.000, none matching:');
  expect(error.message).toContain('  1. "Welcome aboard" from Demo <noreply@app.test> at 03:04:06.100');
  expect(error.message).toContain('  2. "Your receipt" from shop@app.test at 03:04:07.200');
  expect(error.message).toMatch(/Hint: compare the match with the subjects and senders above/);
});

test('a code wait says the matching messages held no code', () => {
  const error = new MailwrightTimeoutError({
    ...base,
    target: 'code',
    match: 'any message',
    delivery: 'poll',
    arrived: [{ subject: 'Hello', from: 'a@app.test', receivedAt: new Date(2026, 0, 2, 3, 4, 6, 0), matched: true }],
    lastError: 'polling failed: MW_ERR_CONNECTION: refused',
  });
  expect(error.message.split('\n')[0]).toBe('no code arrived at abc@mailwright.test within 5 s (delivery: poll).');
  expect(error.message).toContain('1 message arrived since the inbox was created; 1 matched but no code was found in it:');
  expect(error.message).toContain('"Hello" from a@app.test at 03:04:06.000 [matched, no code]');
  expect(error.message).toContain('Last delivery error: polling failed: MW_ERR_CONNECTION: refused.');
  expect(error.message).toMatch(/Hint: read the reasons above, or open the message in the report/);
});

test('a link wait lists, per matching message, the verdict and the candidates extraction turned down', () => {
  const error = new MailwrightTimeoutError({
    ...base,
    target: 'verification link',
    arrived: [{
      subject: 'Reset your password',
      from: 'shop@shop.test',
      receivedAt: new Date(2026, 0, 2, 3, 4, 6, 0),
      matched: true,
      why: ['no link says verify, confirm, reset or sign in with enough evidence', 'https://shop.test/unsubscribe?k=9 — rejected: unsubscribe links are never the verification link'],
    }],
  });
  const lines = error.message.split('\n');
  const entry = lines.findIndex((l) => l.includes('"Reset your password" from shop@shop.test'));
  expect(lines[entry + 1]).toBe('     why: no link says verify, confirm, reset or sign in with enough evidence');
  expect(lines[entry + 2]).toBe('     - https://shop.test/unsubscribe?k=9 — rejected: unsubscribe links are never the verification link');
  expect(error.message).toContain("pass { urlIncludes: '/your-path' } when you know the link's URL");
});

test('long lists are cut after ten', () => {
  const arrived = Array.from({ length: 13 }, (_, i) => ({ subject: `n${i}`, from: 'x@y.test', receivedAt: new Date(), matched: false }));
  const error = new MailwrightTimeoutError({ ...base, arrived });
  expect(error.message).toContain('13 messages arrived');
  expect(error.message).toContain('  10. "n9"');
  expect(error.message).not.toContain('"n10"');
  expect(error.message).toContain('  … and 3 more');
});

test('a refused key: the message names the key (shortened unless it is the public default), its source and the fix for that source', async () => {
  const { explainRefusedKey } = await import('../../src/playwright/refused-key.js');
  const { MailwrightApiError } = await import('../../src/client/index.js');
  const refused = new MailwrightApiError({ status: 401, code: 'invalid_api_key', detail: 'unknown key', method: 'POST', url: 'http://x/api/emails/generate', message: 'generic' });
  const fromOption = explainRefusedKey(refused, { baseURL: 'http://127.0.0.1:9000', apiKey: 'mw_0123456789abcdefghij', apiKeySource: 'option' }) as Error & { code: string };
  expect(fromOption.code).toBe('invalid_api_key');
  expect(fromOption.message).toContain('does not know the API key mw_0123456…');
  expect(fromOption.message).not.toContain('abcdefghij');
  expect(fromOption.message).toContain('the key came from the "apiKey" option');
  expect(fromOption.message).toContain('npx mailwright keys create');
  const fromEnv = explainRefusedKey(refused, { baseURL: 'http://h', apiKey: 'mw_k', apiKeySource: 'environment' }) as Error;
  expect(fromEnv.message).toContain('MAILWRIGHT_API_KEY environment variable');
  const other = new Error('boom');
  expect(explainRefusedKey(other, { baseURL: 'http://h', apiKey: 'k', apiKeySource: 'option' })).toBe(other);
});

test('refusals in the window become the cause and the hint', () => {
  const text = new MailwrightTimeoutError({
    ...base,
    refused: [
      { address: 'old@mailwright.test', reason: 'expired_mailbox', reply: '550 5.1.1 <old@mailwright.test>: this mailbox expired at …', from: 'app@app.test', at: new Date(2026, 0, 2, 3, 4, 4, 0) },
      { address: 'abc@exmaple.com', reason: 'unserved_domain', reply: '550 5.1.1 <abc@exmaple.com>: this service does not serve the domain exmaple.com', from: null, at: new Date(2026, 0, 2, 3, 4, 6, 7) },
    ],
  }).message;
  expect(text).toContain('The service refused mail in this window: your app sent to abc@exmaple.com, which this service does not serve.');
  expect(text).toContain('  - old@mailwright.test from app@app.test at 03:04:04.000: 550 5.1.1 <old@mailwright.test>: this mailbox expired at …');
  expect(text).toContain('  - abc@exmaple.com from (no sender) at 03:04:06.007: 550 5.1.1');
  expect(text).toContain(`Hint: make the app send to exactly ${base.address}`);
});
