// Unit tests of the fallback stored when the MIME parser gives up (src/server/smtp/parse.ts):
// non-ASCII bytes in the headers must not shift the body.
import { test, expect } from '@playwright/test';
import { parseFallback } from '../../src/server/smtp/parse.js';

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
