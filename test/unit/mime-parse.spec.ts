// Unit tests of reading stored sources (src/server/mime/parse.ts): the header-only summary
// ingestion stores agrees with the whole parse; the fallback used when the MIME parser gives
// up keeps non-ASCII header bytes from shifting the body.
import { readdirSync, readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { parseBody, parseFallback, parseMessage, parseSummary } from '../../src/server/mime/parse.js';

test('the fallback body is sliced from the bytes: non-ASCII headers neither lose nor repeat body bytes', () => {
  const raw = Buffer.from('Subject: Grüße aus Köln — 東京\r\nFrom: Zoë <zoe@example.test>\r\n\r\nBody starts here: ñ and ends here.\r\n', 'utf8');
  const parsed = parseFallback(raw);
  expect(parsed.text).toBe('Body starts here: ñ and ends here.');
  expect(parsed.subject).toBe('Grüße aus Köln — 東京');
  expect(parsed.headers.from).toBe('Zoë <zoe@example.test>');
});

test('a source without a blank line is all headers and no body', () => {
  const parsed = parseFallback(Buffer.from('Subject: only\r\nX-Id: 1', 'utf8'));
  expect(parsed.text).toBeNull();
  expect(parsed.subject).toBe('only');
});

test('the header-only summary equals the whole parse on every sample message and on awkward headers', async () => {
  const dir = 'fixtures/emails/';
  const samples = readdirSync(dir).filter((f) => f.endsWith('.eml')).map((f) => ({ name: f, raw: readFileSync(dir + f) }));
  const awkward: Array<[string, string]> = [
    ['folded, encoded, grouped', 'From: =?UTF-8?B?Wm/DqQ==?=\r\n <zoe@example.test>\r\nTo: team: a@example.test, "B, b" <b@example.test>;\r\nCc: c@example.test\r\nCc: d@example.test\r\nSubject: =?ISO-8859-1?Q?Gr=FC=DFe?=\r\n  from\tK\u00f6ln\r\n\r\nbody\r\n'],
    ['LF only, empty first From', 'From:\nFrom: second@example.test\nSubject: x\n\nbody'],
    ['no body at all', 'Subject: only headers\r\nTo: t@example.test'],
    ['raw UTF-8 (SMTPUTF8)', 'From: Zo\u00eb <zo\u00eb@b\u00fccher.example>\r\nSubject: Gr\u00fc\u00dfe \u6771\u4eac\r\n\r\nhi'],
    ['starts with a blank line', '\r\nSubject: not a header\r\n'],
    ['bare CR inside a value', 'Subject: a\rb\r\nFrom: x@example.test\r\n\r\n'],
  ];
  for (const [name, text] of awkward) samples.push({ name, raw: Buffer.from(text, 'utf8') });
  expect(samples.length).toBeGreaterThan(100);
  for (const { name, raw } of samples) {
    const whole = await parseMessage(raw);
    const summary = await parseSummary(raw);
    expect(summary, name).toEqual({ from: whole.from, to: whole.to, cc: whole.cc, subject: whole.subject });
  }
});

test('the body is read from the source: text, HTML, headers and attachment metadata', async () => {
  const raw = Buffer.from([
    'From: App <app@example.test>', 'To: u@mailwright.test', 'Subject: Files', 'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b"', '', '--b', 'Content-Type: text/plain; charset=utf-8', '', 'Your code is 482913', '--b',
    'Content-Type: text/html; charset=utf-8', '', '<p>Your code is <b>482913</b></p>', '--b',
    'Content-Type: application/pdf; name="a.pdf"', 'Content-Disposition: attachment; filename="a.pdf"', 'Content-Transfer-Encoding: base64', '', 'JVBERi0xLjQK', '--b--', '',
  ].join('\r\n'));
  const body = await parseBody(raw);
  expect(body.text).toContain('Your code is 482913');
  expect(body.html).toContain('<b>482913</b>');
  expect(body.headers.subject).toBe('Files');
  expect(body.attachments).toEqual([{ filename: 'a.pdf', contentType: 'application/pdf', size: 9, contentId: null }]);
});
