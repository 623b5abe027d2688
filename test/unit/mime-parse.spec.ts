// Unit tests of reading stored sources (src/server/mime/parse.ts): postal-mime reads the summary
// ingestion stores (from the header block alone, as from the whole message) and the body reads
// show; the fallback used when the MIME parser gives up keeps non-ASCII header bytes from
// shifting the body.
import { readdirSync, readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { parseBody, parseFallback, parseMessage, parseSummary, withBody } from '../../src/server/mime/parse.js';

/** The sample messages of fixtures/emails/, by file name. */
function sampleEmails(): Array<{ name: string; raw: Buffer }> {
  const dir = 'fixtures/emails/';
  return readdirSync(dir).filter((f) => f.endsWith('.eml')).map((f) => ({ name: f, raw: readFileSync(dir + f) }));
}

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

test('the summary is what postal-mime reads: folded, encoded and grouped addresses, repeated To and Cc, an encoded subject', async () => {
  const raw = Buffer.from('From: =?UTF-8?B?Wm/DqQ==?=\r\n <zoe@example.test>\r\nTo: team: a@example.test, "B, b" <b@example.test>;\r\nTo: c@example.test\r\n' +
    'Cc: d@example.test\r\nSubject: =?ISO-8859-1?Q?Gr=FC=DFe?= aus\r\n K\u00f6ln\r\n\r\nbody\r\n', 'utf8');
  const parsed = await parseMessage(raw);
  expect(parsed.from).toEqual({ address: 'zoe@example.test', name: 'Zoé' });
  expect(parsed.to).toEqual([{ address: 'a@example.test', name: '' }, { address: 'b@example.test', name: 'B, b' }, { address: 'c@example.test', name: '' }]);
  expect(parsed.cc).toEqual([{ address: 'd@example.test', name: '' }]);
  expect(parsed.subject).toBe('Grüße aus Köln');
  expect(parsed.text).toBe('body\n');
  // The body a read shows is the same parse's.
  expect(await parseBody(raw)).toEqual({ headers: parsed.headers, text: parsed.text, html: parsed.html, attachments: parsed.attachments });
});

test('the summary read from the header block equals the whole parse\'s on every sample message and on awkward headers', async () => {
  const samples = sampleEmails();
  const awkward: Array<[string, string]> = [
    ['folded, encoded, grouped', 'From: =?UTF-8?B?Wm/DqQ==?=\r\n <zoe@example.test>\r\nTo: team: a@example.test, "B, b" <b@example.test>;\r\nCc: c@example.test\r\nCc: d@example.test\r\nSubject: =?ISO-8859-1?Q?Gr=FC=DFe?=\r\n  from\tK\u00f6ln\r\n\r\nbody\r\n'],
    ['LF only, empty first From', 'From:\nFrom: second@example.test\nSubject: x\n\nbody'],
    ['no body at all', 'Subject: only headers\r\nTo: t@example.test'],
    ['raw UTF-8 (SMTPUTF8)', 'From: Zo\u00eb <zo\u00eb@b\u00fccher.example>\r\nSubject: Gr\u00fc\u00dfe \u6771\u4eac\r\n\r\nhi'],
    ['starts with a blank line', '\r\nSubject: not a header\r\n'],
    ['bare CR inside a value', 'Subject: a\rb\r\nFrom: x@example.test\r\n\r\n'],
    ['a line of CRs ends the block', 'Subject: a\r\n\r\r\nFrom: not-a-header@example.test\r\n'],
    ['no line end at all', 'Subject: a'],
  ];
  for (const [name, text] of awkward) samples.push({ name, raw: Buffer.from(text, 'utf8') });
  // Addresses plain and awkward, and their near misses.
  const addresses = [
    'app@example.test', 'App <app@example.test>', 'My App 2 <no-reply+tag@mail.example-app.test>', 'a.b_c-d@x.y', 'a@b',
    'a.@b.test', '.a@b.test', 'a..b@b.test', 'a@-b.test', 'a@b-', 'a@b.', '_a@b.test', 'A  B <a@b.test>', ' App <a@b.test>',
    'App <a@b.test> ', 'App<a@b.test>', '"App" <a@b.test>', 'App <a@b.test>, c@d.test', 'a@b.test (comment)', '<a@b.test>',
    'Zoë <a@b.test>', '=?UTF-8?Q?App?= <a@b.test>', 'app@exämple.test', 'team: a@b.test;', 'App <a@b.test', 'A.B <a@b.test>',
    '<.a@b.test>', ' <a@b.test>', '<a@b.test', '<<a@b.test>>', '<a@b.test>, <c@d.test>',
  ];
  const subjects = ['Your code', 'a  b\tc ', '=?UTF-8?B?R3LDvMOfZQ==?=', 'x =? y ?= z', '=?', 'Grüße', '_under_score_'];
  for (const [i, address] of addresses.entries()) {
    const text = `From: ${address}\r\nTo: ${address}\r\nTo: ${addresses[(i + 1) % addresses.length]}\r\nCc: ${address}\r\nSubject: ${subjects[i % subjects.length]}\r\n\r\nbody\r\n`;
    samples.push({ name: `address ${JSON.stringify(address)}`, raw: Buffer.from(text, 'utf8') });
  }
  expect(samples.length).toBeGreaterThan(100);
  for (const { name, raw } of samples) {
    const whole = await parseMessage(raw);
    const summary = await parseSummary(raw);
    expect(summary, name).toEqual({ from: whole.from, to: whole.to, cc: whole.cc, subject: whole.subject });
  }
});

test('every sample message parses, and a body already read is kept', async () => {
  for (const { name, raw } of sampleEmails()) {
    const parsed = await parseMessage(raw);
    expect(parsed.text ?? parsed.html, name).not.toBeNull();
    const body = { headers: {}, text: 'kept', html: null, attachments: [] };
    const read: { name: string; body?: typeof body } = { name, body };
    expect((await withBody(read, raw)).body).toBe(body);
    expect((await withBody({ ...read, body: undefined }, raw)).body).toEqual(await parseBody(raw));
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
