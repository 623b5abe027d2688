// Runs findVerificationLink and findCode over every sample email in fixtures/emails against expected.json.
import { expect, test } from '@playwright/test';
import { explainCode, explainVerificationLink, findCode, findLinks, findVerificationLink } from '../../src/extract/index.js';
import { corpusFiles, expectedAnswers, loadEml } from './extract/corpus.js';

const files = corpusFiles();
const expected = expectedAnswers();

test.describe('sample corpus', () => {
  test('is big enough and every file has an expected answer', () => {
    expect(files.length).toBeGreaterThanOrEqual(45);
    expect(Object.keys(expected).sort()).toEqual(files);
    expect(files.filter((f) => f.startsWith('none-')).length).toBeGreaterThanOrEqual(8);
  });

  for (const file of files) {
    test(file, async () => {
      const msg = await loadEml(file);
      const want = expected[file];
      expect(want, `expected.json has ${file}`).toBeDefined();
      const link = findVerificationLink(msg) ?? null;
      const code = findCode(msg) ?? null;
      expect(link, `verification link of ${file}\n${explainVerificationLink(msg).verdict}`).toBe(want?.verificationLink);
      expect(code, `code of ${file}\n${explainCode(msg).verdict}`).toBe(want?.code);
      if (link) expect(findLinks(msg).find((l) => l.url === link)?.kind).toBe('verification');
    });
  }
});

test.describe('precision on emails with nothing to find', () => {
  test('the corpus marks newsletters, receipts and notifications as having neither a link nor a code', () => {
    // Each file's answer is checked by its own test above; this keeps the negatives in the corpus.
    const nothing = files.filter((f) => f.startsWith('none-'));
    expect(nothing.length).toBeGreaterThanOrEqual(8);
    for (const file of nothing) expect(expected[file], file).toMatchObject({ verificationLink: null, code: null });
  });
});
