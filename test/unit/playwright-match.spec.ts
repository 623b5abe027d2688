// Unit tests of message matching and its readable description (src/playwright/match.ts).
import { test, expect } from '@playwright/test';
import type { Message } from '../../src/protocol/index.js';
import { describeMatch, matchesMessage, validateMatch } from '../../src/playwright/match.js';
import { MailMessage } from '../../src/playwright/message.js';

function message(overrides: Partial<Message> = {}): MailMessage {
  return new MailMessage({
    id: 'm1',
    mailboxId: 'b1',
    mailbox: 'alice@mailwright.test',
    from: { address: 'noreply@app.test', name: 'Demo App' },
    to: [{ address: 'alice@mailwright.test', name: '' }],
    cc: [{ address: 'boss@mailwright.test', name: 'Boss' }],
    subject: 'Please verify your email',
    receivedAt: '2026-01-02T03:04:05.678Z',
    size: 1234,
    headers: { subject: 'Please verify your email' },
    text: 'Your code is 123456',
    html: '<p>Your code is <b>123456</b></p>',
    attachments: [],
    ...overrides,
  });
}

test.describe('matchesMessage', () => {
  test('no match accepts every message', () => {
    expect(matchesMessage(undefined, message())).toBe(true);
    expect(matchesMessage({}, message())).toBe(true);
  });

  test('strings are case-insensitive substrings', () => {
    expect(matchesMessage({ subject: 'VERIFY' }, message())).toBe(true);
    expect(matchesMessage({ subject: 'reset' }, message())).toBe(false);
    expect(matchesMessage({ text: 'code is 1234' }, message())).toBe(true);
    expect(matchesMessage({ html: '<b>123456</b>' }, message())).toBe(true);
  });

  test('from matches the display name and the address', () => {
    expect(matchesMessage({ from: 'demo app' }, message())).toBe(true);
    expect(matchesMessage({ from: 'noreply@app.test' }, message())).toBe(true);
    expect(matchesMessage({ from: /@app\.test>$/ }, message())).toBe(true);
    expect(matchesMessage({ from: 'other.test' }, message())).toBe(false);
  });

  test('to matches a recipient exactly (To or Cc), ignoring case', () => {
    expect(matchesMessage({ to: 'alice@mailwright.test' }, message())).toBe(true);
    expect(matchesMessage({ to: 'ALICE@mailwright.test' }, message())).toBe(true);
    expect(matchesMessage({ to: 'boss@mailwright.test' }, message())).toBe(true);
    expect(matchesMessage({ to: 'lice@mailwright.test' }, message())).toBe(false);
    expect(matchesMessage({ to: 'alice' }, message())).toBe(false);
    expect(matchesMessage({ to: /^alice@/ }, message())).toBe(true);
    expect(matchesMessage({ to: (address) => address.startsWith('boss') }, message())).toBe(true);
  });

  test('RegExp is used as given, and a /g RegExp gives the same answer twice', () => {
    expect(matchesMessage({ subject: /verify/ }, message())).toBe(true);
    expect(matchesMessage({ subject: /VERIFY/ }, message())).toBe(false);
    const global = /verify/g;
    expect(matchesMessage({ subject: global }, message())).toBe(true);
    expect(matchesMessage({ subject: global }, message())).toBe(true);
  });

  test('every field must match', () => {
    expect(matchesMessage({ subject: 'verify', from: 'app.test' }, message())).toBe(true);
    expect(matchesMessage({ subject: 'verify', from: 'elsewhere' }, message())).toBe(false);
  });

  test('missing bodies match as empty strings', () => {
    const bare = message({ text: null, html: null, from: null });
    expect(matchesMessage({ text: '' }, bare)).toBe(true);
    expect(matchesMessage({ html: 'x' }, bare)).toBe(false);
    expect(matchesMessage({ from: 'x' }, bare)).toBe(false);
  });

  test('predicates get the field, or the whole message', () => {
    expect(matchesMessage({ subject: (s) => s.length > 5 }, message())).toBe(true);
    expect(matchesMessage((m) => m.to.includes('alice@mailwright.test'), message())).toBe(true);
    expect(matchesMessage(() => false, message())).toBe(false);
  });
});

test.describe('describeMatch', () => {
  test('describes each kind of matcher readably', () => {
    expect(describeMatch(undefined)).toBe('any message');
    expect(describeMatch({})).toBe('any message');
    expect(describeMatch({ subject: 'Verify' })).toBe('subject ~ "Verify"');
    expect(describeMatch({ subject: /verify/i, to: 'a@x.test' })).toBe('subject ~ /verify/i and to = "a@x.test"');
    function hasLink(text: string) {
      return text.includes('http');
    }
    expect(describeMatch({ text: hasLink })).toBe('text satisfies hasLink()');
    expect(describeMatch({ html: (h) => h.length > 0 })).toBe('html satisfies a predicate');
    expect(describeMatch(function isWelcome() {
      return true;
    })).toBe('message satisfies isWelcome()');
  });

  test('long strings are shortened', () => {
    expect(describeMatch({ text: 'x'.repeat(100) })).toBe(`text ~ "${'x'.repeat(59)}…"`);
  });
});

test.describe('validateMatch', () => {
  test('refuses options passed as the match, naming the fix', () => {
    expect(() => validateMatch({ timeout: 5000 } as never, 'waitForCode')).toThrow(
      /waitForCode\(\) match has an unknown key "timeout"; match keys are subject, from, to, text, html\. Options go in the second argument/,
    );
    try {
      validateMatch({ subjet: 'x' } as never);
    } catch (error) {
      expect((error as { code: string }).code).toBe('MW_ERR_INVALID_MATCH');
    }
  });

  test('refuses values that are not string, RegExp or function', () => {
    expect(() => validateMatch({ subject: 42 } as never)).toThrow(/"subject" must be a string, a RegExp or a function, got number/);
  });

  test('accepts the valid forms', () => {
    expect(validateMatch(undefined)).toBeUndefined();
    const fn = () => true;
    expect(validateMatch(fn)).toBe(fn);
    expect(validateMatch({ subject: 'a', from: /b/, to: (x: string) => !!x })).toBeTruthy();
  });
});
