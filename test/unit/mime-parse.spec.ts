// Unit tests of reading stored sources (src/server/mime/parse.ts): the header-only summary
// ingestion stores agrees with the whole parse; the fallback used when the MIME parser gives
// up keeps non-ASCII header bytes from shifting the body.
import { readdirSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { test, expect } from '@playwright/test';
import { alternativeTextParts, parseBody, parseBodyWhole, parseFallback, parseMessage, parseSummary, singleTextPart } from '../../src/server/mime/parse.js';

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

test('the header-only summary equals the whole parse on every sample message and on awkward headers', async () => {
  const samples = sampleEmails();
  const awkward: Array<[string, string]> = [
    ['folded, encoded, grouped', 'From: =?UTF-8?B?Wm/DqQ==?=\r\n <zoe@example.test>\r\nTo: team: a@example.test, "B, b" <b@example.test>;\r\nCc: c@example.test\r\nCc: d@example.test\r\nSubject: =?ISO-8859-1?Q?Gr=FC=DFe?=\r\n  from\tK\u00f6ln\r\n\r\nbody\r\n'],
    ['LF only, empty first From', 'From:\nFrom: second@example.test\nSubject: x\n\nbody'],
    ['no body at all', 'Subject: only headers\r\nTo: t@example.test'],
    ['raw UTF-8 (SMTPUTF8)', 'From: Zo\u00eb <zo\u00eb@b\u00fccher.example>\r\nSubject: Gr\u00fc\u00dfe \u6771\u4eac\r\n\r\nhi'],
    ['starts with a blank line', '\r\nSubject: not a header\r\n'],
    ['bare CR inside a value', 'Subject: a\rb\r\nFrom: x@example.test\r\n\r\n'],
  ];
  for (const [name, text] of awkward) samples.push({ name, raw: Buffer.from(text, 'utf8') });
  // Plain addresses are read without the address parser: they, and their near misses, read as the parser reads them.
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

test('the single-part shortcut reads every sample and every generated single part as the whole parse does', async () => {
  const samples = sampleEmails();
  const types = [
    null, 'text/plain', 'TEXT/HTML', 'text/plain; charset=utf-8', 'text/html; charset="UTF-8"', 'text/plain; charset=us-ascii',
    'text/plain; charset=iso-8859-1', 'text/plain ; charset = utf-8 ', 'text/plain; format=flowed', 'text/plain; charset=utf-16le',
    'text/plain; charset=koi8-r', 'text/plain (a comment)', 'application/json', '', 'text/plain; charset=utf-8;',
    'text/plain; charset=latin1', 'text/html; charset=ascii', 'text/plain; charset=windows-1252', 'text/plain; charset=ISO-8859-15', 'text/plain; charset=utf8',
  ];
  const encodings = [null, '7bit', '8BIT', 'binary', 'quoted-printable', 'Quoted-Printable', 'base64', 'x-uuencode', '(c) base64', ''];
  const bodies: Array<string | Buffer> = [
    'Your code is 123456\r\n', 'a\nb\r\nc', 'no newline at the end', '', '\r\n', 'line=\r\nsoft break', '=3D=41=4x=\r\n==\r\n=',
    'Z3LDvMOfZQ==\r\nYWJj\r\n', 'YW=Jj\r\n==\r\nQQ', 'QUJDR\r\n', ' \t\r\r\n\r\n', 'Gr\u00fc\u00dfe =C3=BC <b>&</b>\r\n',
    'bare\rCR\r\n\r\n\r\ntwo blank lines above\n', `${'x'.repeat(300)}\r\n`, Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69, 0x0d, 0x0a]),
    Buffer.from([0x61, 0xff, 0xc3, 0x28, 0xe9, 0x0a, 0xc3, 0xa9]), Buffer.from('=EF=BB=BFbom\r\n=FF=C3(\r\n'),
  ];
  const heads = [
    (type: string | null, encoding: string | null) => [type === null ? '' : `Content-Type: ${type}\r\n`, encoding === null ? '' : `Content-Transfer-Encoding: ${encoding}\r\n`].join(''),
    (type: string | null, encoding: string | null) => `Content-Type: ${type ?? 'text/plain'}\r\nContent-Type: multipart/mixed; boundary=x\r\nContent-Transfer-Encoding: ${encoding ?? '7bit'}\r\nContent-Transfer-Encoding: base64\r\n`,
    (type: string | null) => `Content-Type: ${type ?? 'text/plain'};\r\n\tcharset=utf-8\r\nContent-Disposition: inline\r\n`,
  ];
  for (const head of heads) {
    for (const type of types) {
      for (const encoding of encodings) {
        for (const [i, body] of bodies.entries()) {
          const top = `From: App <app@example.test>\r\nTo: u@mailwright.test\r\nSubject: variant ${i}\r\n${head(type, encoding)}`;
          samples.push({ name: `${JSON.stringify(top)} + body ${i}`, raw: Buffer.concat([Buffer.from(`${top}\r\n`), Buffer.from(body)]) });
        }
      }
    }
  }
  samples.push({ name: 'headers only', raw: Buffer.from('Subject: only\r\nContent-Type: text/plain') });
  samples.push({ name: 'blank first line', raw: Buffer.from('\r\nSubject: body\r\n') });
  let read = 0;
  for (const { name, raw } of samples) {
    if (singleTextPart(raw)) read++;
    const [body, whole] = [await parseBody(raw), await parseBodyWhole(raw)];
    if (!isDeepStrictEqual(body, whole)) expect(body, name).toEqual(whole);
  }
  // The shortcut is really taken: every encoding and both types of the sample set, most of the variants.
  expect(read).toBeGreaterThan(1_000);
  expect(samples.filter(({ raw }) => singleTextPart(raw)).length).toBe(read);
  const sampleHits = sampleEmails().filter(({ raw }) => singleTextPart(raw)).length;
  expect(sampleHits).toBeGreaterThan(60);
});

test('the alternative shortcut reads every sample and every generated text + HTML alternative as the whole parse does', async () => {
  const samples = sampleEmails();
  // The multipart's own Content-Type: boundaries as nodemailer and others write them, and shapes the shortcut leaves to the parser.
  const tops: Array<[string, string]> = [
    ['multipart/alternative; boundary="b"', 'b'],
    ['multipart/alternative;\r\n boundary="--_NmP-0123abcd-Part_1"', '--_NmP-0123abcd-Part_1'],
    ['Multipart/Alternative; BOUNDARY=b1=_x?y/z', 'b1=_x?y/z'],
    ['multipart/alternative ; boundary = "b.c:d"', 'b.c:d'],
    ['multipart/alternative; boundary="b"; charset=utf-8', 'b'],
    ['multipart/alternative; boundary="b c"', 'b c'],
    ['multipart/alternative; boundary="b" (comment)', 'b'],
    ['multipart/mixed; boundary="b"', 'b'],
    ['multipart/alternative; boundary*=\'\'b', 'b'],
  ];
  const partHeads = [
    (type: string) => `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n`,
    (type: string) => `Content-Type: ${type}; charset="ISO-8859-1"\r\nContent-Transfer-Encoding: quoted-printable\r\n`,
    (type: string) => `Content-Type: ${type}\r\nContent-Transfer-Encoding: base64\r\n`,
    (type: string) => (type === 'text/plain' ? '' : `Content-Type: ${type}\r\n`),
    (type: string) => `Content-Type: ${type}; format=flowed\r\n`,
    (type: string) => `Content-Type: ${type}\r\nContent-Disposition: inline\r\n`,
    (type: string) => `Content-Type: ${type};\r\n\tcharset=windows-1252\r\nContent-ID: <p@x>\r\n`,
  ];
  const bodies = [
    'Your code is 123456\r\n', 'Gr\u00fc\u00dfe =C3=BC <b>&</b>\r\n', 'Z3LDvMOfZQ==\r\nYWJj\r\n', 'line=\r\nsoft break\r\n', '',
    'a\nb\r\n\r\n', '--b-but-not-a-boundary\r\n--bx\r\n--b-x\r\n -- b\r\n', ' \t\r\r\n',
  ];
  // How the parts are laid out between the top-level header block and the end.
  const layouts: Array<(d: string, parts: string[]) => string> = [
    (d, [a, b]) => `\r\n${d}\r\n${a}\r\n${d}\r\n${b}\r\n${d}--\r\n`,
    (d, [a, b]) => `\r\nThis is a multi-part message.\r\n${d}\r\n${a}\r\n${d}\t \r\n${b}\r\n${d}-- \r\nepilogue\r\n${d}\r\nignored\r\n`,
    (d, [a, b]) => `\n${d}\n${a}\n${d}\n${b}\n${d}--`.replace(/\r\n/g, '\n'),
    (d, [a, b]) => `\r\n${d}\r\n${a}\r\n${d}\r\n${b}\r\n`,
    (d, [a, b]) => `\r\n${d}\r\n${a}\r\n${d}\r\n${b}\r\n${d}\r\n${a}\r\n${d}--\r\n`,
    (d, [a]) => `\r\n${d}\r\n${a}\r\n${d}--\r\n`,
    (d, [a, b]) => `\r\n${d}--\r\n${d}\r\n${a}\r\n${d}\r\n${b}\r\n${d}--\r\n`,
    (d, [a, b]) => `\r\n${d}\r\n${a}\r\n${d}x\r\n${b}\r\n${d}--\r\n`,
    (d, [a, b]) => `\r\n${d}\r\n${a}\r\n${d}\r\n${b}\r\n${d}\r\n`,
  ];
  const part = (head: string, body: string) => `${head}\r\n${body}`;
  for (const [t, [top, boundary]] of tops.entries()) {
    for (const [h, head] of partHeads.entries()) {
      for (const [i, body] of bodies.entries()) {
        for (const [l, layout] of layouts.entries()) {
          const orders = [['text/plain', 'text/html'], ['text/html', 'text/plain'], ...(i % 4 === 0 ? [['text/plain', 'text/plain']] : [])];
          for (const order of orders) {
            // The HTML part takes the next body of the list, so the two parts differ.
            const parts = order.map((type, k) => part(k === 1 ? partHeads[(h + 3) % partHeads.length]!(type) : head(type), bodies[(i + k) % bodies.length]!));
            const headers = `From: App <app@example.test>\r\nTo: u@mailwright.test\r\nSubject: alternative ${t}/${h}/${i}/${l}\r\nMIME-Version: 1.0\r\nContent-Type: ${top}\r\n`;
            const raw = Buffer.from(headers + layout(`--${boundary}`, parts), 'latin1');
            const name = `${JSON.stringify(top)} head ${h} body ${i} layout ${l} ${order.join(',')}`;
            samples.push({ name, raw });
            // The plainest of them, as nodemailer writes them (either order, with a preamble, an epilogue or LF-only lines), take the shortcut.
            if (t < 4 && h === 0 && i === 0 && l < 3 && order[0] !== order[1]) expect(alternativeTextParts(raw), name).not.toBeNull();
          }
        }
      }
    }
  }
  // A part without the blank line that ends its headers, a boundary line with other text after
  // it, and part headers that take the message past postal-mime's header size limit (2 MB).
  const pad = 'x'.repeat(1_100_000);
  samples.push({ name: 'part headers past the limit', raw: Buffer.from(`X-Pad: ${pad}\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nX-Pad: ${pad}\r\n\r\nx\r\n--b\r\nContent-Type: text/html\r\n\r\n<p>x</p>\r\n--b--\r\n`) });
  samples.push({ name: 'part of headers only', raw: Buffer.from('Content-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n--b\r\nContent-Type: text/html\r\n\r\n<p>x</p>\r\n--b--\r\n') });
  samples.push({ name: 'boundary with trailing text', raw: Buffer.from('Content-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\n\r\nx\r\n--b y\r\n\r\n<p>x</p>\r\n--b--\r\n') });
  let read = 0;
  for (const { name, raw } of samples) {
    const fast = alternativeTextParts(raw);
    if (fast) read++;
    const [body, whole] = [await parseBody(raw), await parseBodyWhole(raw)];
    if (!isDeepStrictEqual(body, whole)) expect(body, name).toEqual(whole);
    if (fast && !isDeepStrictEqual(fast, whole)) expect(fast, name).toEqual(whole);
  }
  // The shortcut is really taken: both orders, every encoding, with a preamble and an epilogue, LF-only lines.
  expect(read).toBeGreaterThan(300);
  expect(samples.length - read).toBeGreaterThan(2_000);
  const sampleHits = sampleEmails().filter(({ raw }) => alternativeTextParts(raw)).length;
  expect(sampleHits).toBeGreaterThan(0);
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
