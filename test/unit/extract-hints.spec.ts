// Hints narrow extraction when the test author knows more than the email says: `urlIncludes` for
// links, `digits` / `pattern` for codes. Wrong hints fail at once with a coded TypeError.
import { expect, test } from '@playwright/test';
import { explainCode, explainVerificationLink, findCode, findVerificationLink } from '../../src/extract/index.js';

const both = {
  subject: 'Your account',
  text: 'Verify your email: https://app.test/verify?t=1\nReset your password: https://app.test/reset?t=2\n',
};

test.describe('link hints', () => {
  test('without a hint two equally labelled actions give no answer; urlIncludes picks one', () => {
    expect(findVerificationLink(both)).toBeUndefined();
    expect(findVerificationLink(both, { urlIncludes: '/reset' })).toBe('https://app.test/reset?t=2');
    expect(findVerificationLink(both, { urlIncludes: /verify\?t=\d$/ })).toBe('https://app.test/verify?t=1');
    // a global RegExp is used without its lastIndex state: the same answer every time
    const global = /reset/g;
    expect(findVerificationLink(both, { urlIncludes: global })).toBe('https://app.test/reset?t=2');
    expect(findVerificationLink(both, { urlIncludes: global })).toBe('https://app.test/reset?t=2');
  });

  test('the links a hint leaves out are listed as rejected with the reason', () => {
    const explained = explainVerificationLink(both, { urlIncludes: '/reset' });
    expect(explained.rejected.find((r) => r.value === 'https://app.test/verify?t=1')?.reasons.at(-1)).toBe('the URL does not include /reset (urlIncludes)');
  });

  test('a hint never makes an unsubscribe link the answer', () => {
    const msg = { text: 'Stop these emails: https://app.test/reset-notifications/unsubscribe?u=1\n' };
    expect(findVerificationLink(msg, { urlIncludes: '/reset' })).toBeUndefined();
  });

  test('the only link a hint leaves is the answer even without words that say what it is', () => {
    const msg = { subject: 'Hello', text: 'Your link: http://localhost:3000/x/42\nDocs: http://localhost:3000/docs\n' };
    expect(findVerificationLink(msg)).toBeUndefined();
    expect(findVerificationLink(msg, { urlIncludes: '/x/' })).toBe('http://localhost:3000/x/42');
  });

  test('bad hints throw naming the hint and the fix', () => {
    expect(() => findVerificationLink(both, { urlInclude: '/reset' } as never)).toThrow('unknown hint "urlInclude"; the link hint is urlIncludes (a string or RegExp)');
    expect(() => findVerificationLink(both, { urlIncludes: '' })).toThrow('urlIncludes must be a non-empty string or a RegExp');
    expect(() => findVerificationLink(both, { urlIncludes: 5 } as never)).toThrow(TypeError);
  });
});

test.describe('code hints', () => {
  const msg = { subject: 'Your codes', text: 'Your code is 4821.\nBackup: 73910245\nTicket AB12CD34 stays with support.\nKey: QX7P2M9K\n' };

  test('digits keeps only codes of that length', () => {
    expect(findCode(msg, { digits: 8 })).toBe('73910245');
    expect(findCode(msg, { digits: 4 })).toBe('4821');
    expect(findCode(msg, { digits: 6 })).toBeUndefined();
  });

  test('pattern keeps only codes that match it as a whole; labelled references stay out', () => {
    // 73910245 and QX7P2M9K both have eight capitals or digits: too close to call
    expect(findCode(msg, { pattern: /[A-Z0-9]{8}/ })).toBeUndefined();
    expect(findCode(msg, { pattern: /[A-Z]{2}[A-Z0-9]{6}/ })).toBe('QX7P2M9K');
    expect(explainCode(msg, { pattern: /[A-Z]{2}[A-Z0-9]{6}/ }).rejected.map((r) => r.value)).toContain('AB12CD34');
  });

  test('pattern finds text the scanner would not call a code', () => {
    const words = { subject: 'Sign in', text: 'Type the words: maple-river-stone\n' };
    expect(findCode(words)).toBeUndefined();
    expect(findCode(words, { pattern: /[a-z]+-[a-z]+-[a-z]+/ })).toBe('maple-river-stone');
  });

  test('a hint never turns a price, a date or a year into a code', () => {
    const receipt = { subject: 'Receipt', text: 'Total: $1299 paid on 2025-03-04. Member since 2019.\n' };
    expect(findCode(receipt, { digits: 4 })).toBeUndefined();
  });

  test('bad hints throw naming the hint and the fix', () => {
    expect(() => findCode(msg, { digit: 6 } as never)).toThrow('unknown hint "digit"; the code hints are digits (a number) and pattern (a RegExp)');
    expect(() => findCode(msg, { digits: 0 })).toThrow('digits must be a whole number from 1 to 12, got 0');
    expect(() => findCode(msg, { pattern: '[0-9]{6}' } as never)).toThrow('pattern must be a RegExp');
  });
});
