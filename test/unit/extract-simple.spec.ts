// The mails a test author writes first, tried the way a new user would: short tokens, ids in the
// path, fragments or no token at all; bare URLs in a sentence; four-digit and leading-zero codes.
// Each row is [subject, text, html, expected link, expected code]; null means "no answer".
import { expect, test } from '@playwright/test';
import { explainCode, explainVerificationLink } from '../../src/extract/index.js';

type Row = [string, string | null, string | null, string | null, string | null];
const H = (b: string): string => `<html><body>${b}</body></html>`;
const cases: Row[] = [
  // [subject, text, html, link, code]
  ['Verify your email', null, H('<p>Click <a href="http://localhost:3000/verify-email/5">here</a> to verify your email.</p>'), 'http://localhost:3000/verify-email/5', null],
  ['Your magic link', 'Your magic link: http://localhost:3000/magic/abc\n', null, 'http://localhost:3000/magic/abc', null],
  ['Reset your password', 'Reset your password\n\nhttp://localhost:3000/password/reset/3\n', null, 'http://localhost:3000/password/reset/3', null],
  ['Confirm your new email', null, H('<p>You asked to change your email.</p><p><a href="http://localhost:3000/email/confirm?id=3">Confirm new email</a></p>'), 'http://localhost:3000/email/confirm?id=3', null],
  ['Log in to Demo', 'Hi,\nLog in: http://localhost:3000/session/new?token=1\n', null, 'http://localhost:3000/session/new?token=1', null],
  ['Confirm your account', 'Confirm your account: http://localhost:3000/c?t=2\n\nUnsubscribe: http://localhost:3000/unsubscribe\nPrivacy: http://localhost:3000/privacy\n', null, 'http://localhost:3000/c?t=2', null],
  ['Verify', null, H('<p><a href="http://localhost:3000/v/1" style="background:#000;padding:10px">Verify email</a></p><p>Or copy this link: <a href="http://localhost:3000/v/1">http://localhost:3000/v/1</a></p>'), 'http://localhost:3000/v/1', null],
  ['Welcome to App', 'Welcome!\nGo to your dashboard: http://localhost:3000/dashboard\n', null, null, null],
  ['Your account is confirmed', null, H('<p>All set.</p><p><a href="http://localhost:3000/login">Log in</a></p>'), null, null],
  ['You are invited to Acme', "You've been invited to join Acme.\nAccept invitation: http://localhost:3000/invite/77\n", null, 'http://localhost:3000/invite/77', null],
  ['Activate', 'Activate your account by clicking the link below\nhttp://localhost:3000/activate?id=9\n', null, 'http://localhost:3000/activate?id=9', null],
  ['Hi', 'Please confirm your subscription:\nhttp://localhost:3000/subscribe/confirm/3\n', null, 'http://localhost:3000/subscribe/confirm/3', null],
  ['Password reset', null, H('<p>Hello,</p><p>To choose a new password, <a href="https://app.test/pw?k=1">click here</a>.</p><p><a href="https://app.test/">App</a></p>'), 'https://app.test/pw?k=1', null],
  ['Sign in', null, H('<a href="https://app.test/"><img alt="logo" src="x.png"></a><p><a href="https://app.test/m#abc">Sign in</a></p>'), 'https://app.test/m#abc', null],
  ['Weekly digest', null, H('<p><a href="https://news.test/posts/confirm-the-rumour">Confirm the rumour?</a></p><p><a href="https://news.test/unsubscribe">Unsubscribe</a></p>'), null, null],
  ['Verify your email', null, H('<p><a href="https://a.test/verify?t=1">Verify</a> <a href="https://a.test/verify?t=2">Verify</a></p>'), null, null],
  ['Your order has shipped', 'Track it: https://shop.test/track/1Z999\n', null, null, null],
  // codes
  ['Your code', 'Your verification code is 123456\n', null, null, '123456'],
  ['Login', 'Code: 0042\n', null, null, '0042'],
  ['Sign in', 'Enter 7788 in the app to sign in.\n', null, null, '7788'],
  ['OTP', 'Your OTP: 998877\n', null, null, '998877'],
  ['Hi', 'Use code 4321 to log in.\n', null, null, '4321'],
  ['Your order', 'Your order 123456 has shipped.\n', null, null, null],
  ['Receipt', 'Total: 1234.00\n', null, null, null],
  ['Newsletter', '© 2025 Acme\n', null, null, null],
  ['Call us', 'Call 555-1234 anytime.\n', null, null, null],
  ['Verify your email', null, H('<p>Your code</p><p style="font-size:28px;font-weight:bold">052981</p>'), null, '052981'],
  ['Your login code is 3311', 'Hello,\n3311\n', null, null, '3311'],
  ['Meeting at 1030', 'See you at 1030 tomorrow.\n', null, null, null],
  ['Sign in to App', 'Sign in to App\n\n2024\n', null, null, null],
  ['Sign in to App', 'Sign in to App with\n\n1945\n', null, null, null],
];

const more: Row[] = [
  ['Booking confirmation', 'Thanks for booking with us.\n\nhttps://hotel.test/bookings/ABC123\n', null, null, null],
  ['You are invited: launch party', null, H('<p>Join us on Friday.</p><p><a href="https://cal.test/event/accept?eid=1">Accept</a></p>'), null, null],
  ['Email confirmation', 'Thanks for signing up.\n\nhttps://app.test/e/1\n', null, 'https://app.test/e/1', null],
  ['Your export is ready', null, H('<p><a href="https://app.test/exports/8f7a6b5c4d3e2f1a.zip">Download</a></p>'), null, null],
];

for (const [subject, text, html, link, code] of [...cases, ...more]) {
  test(`${subject} | ${(text ?? html ?? '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 60)}`, () => {
    const msg = { subject, text, html };
    const l = explainVerificationLink(msg);
    const c = explainCode(msg);
    expect(l.answer ?? null, l.verdict).toBe(link);
    expect(c.answer ?? null, c.verdict).toBe(code);
  });
}
