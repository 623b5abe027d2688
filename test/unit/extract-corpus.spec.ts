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
  const nothing = files.filter((f) => f.startsWith('none-'));

  test('newsletters, receipts, shipping, invitations and notifications give neither a link nor a code', async () => {
    expect(nothing.length).toBeGreaterThanOrEqual(8);
    const wrong: string[] = [];
    for (const file of nothing) {
      const msg = await loadEml(file);
      const link = findVerificationLink(msg);
      const code = findCode(msg);
      if (link !== undefined) wrong.push(`${file}: link ${link}`);
      if (code !== undefined) wrong.push(`${file}: code ${code}`);
    }
    expect(wrong).toEqual([]);
  });

  test('every email the corpus marks as having no answer gets undefined, not a guess', async () => {
    for (const file of files) {
      const want = expected[file];
      const msg = await loadEml(file);
      if (want?.verificationLink === null) expect(findVerificationLink(msg), file).toBeUndefined();
      if (want?.code === null) expect(findCode(msg), file).toBeUndefined();
    }
  });
});
