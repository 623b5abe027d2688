// Runs findVerificationLink and findCode over the sample corpus (fixtures/emails) against each part's expected.json.
// The tuned parts (samples, study) must be answered exactly. The check part is held out: its test asserts
// only that nothing is answered wrong (a miss is allowed) and reports totals, so a failing run names no mail to tune to.
import { expect, test } from '@playwright/test';
import { explainCode, explainVerificationLink, findCode, findLinks, findVerificationLink } from '../../src/extract/index.js';
import { corpusFiles, expectedAnswers, loadEml } from './extract/corpus.js';
import type { CorpusPart } from './extract/corpus.js';

for (const part of ['samples', 'study'] as const satisfies readonly CorpusPart[]) {
  const files = corpusFiles(part);
  const expected = expectedAnswers(part);

  test.describe(`corpus part "${part}"`, () => {
    test('every file has an expected answer', () => {
      expect(Object.keys(expected).sort()).toEqual(files);
    });

    for (const file of files) {
      test(file, async () => {
        const msg = await loadEml(file, part);
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
}

test.describe('corpus size', () => {
  test('the samples part is big enough and keeps its negatives', () => {
    const files = corpusFiles('samples');
    expect(files.length).toBeGreaterThanOrEqual(45);
    const nothing = files.filter((f) => f.startsWith('none-'));
    expect(nothing.length).toBeGreaterThanOrEqual(8);
    const expected = expectedAnswers('samples');
    // Each file's answer is checked by its own test above; this keeps the negatives in the corpus.
    for (const file of nothing) expect(expected[file], file).toMatchObject({ verificationLink: null, code: null });
  });
});

test.describe('held-out check part', () => {
  // Its precision and recall are measured by bench/extract.js (totals only). Here it must be well formed and
  // answered with nothing wrong (a miss is allowed); failures and the annotation give totals only, no mail named.
  test('is well formed and nothing in it is answered wrong (totals only, no mail named)', async () => {
    const files = corpusFiles('check');
    const expected = expectedAnswers('check');
    expect(Object.keys(expected).sort()).toEqual(files);
    let right = 0;
    let wrong = 0;
    let missed = 0;
    let absent = 0;
    for (const file of files) {
      const msg = await loadEml(file, 'check');
      const want = expected[file] as { verificationLink: string | null; code: string | null };
      const shown = `${msg.subject ?? ''}\n${msg.text ?? ''}\n${(msg.html ?? '').replaceAll('&amp;', '&')}`.replace(/[\s-]/g, '');
      for (const truth of [want.verificationLink, want.code]) if (truth !== null && !shown.includes(truth.replace(/[\s-]/g, ''))) absent++;
      for (const [got, truth] of [[findVerificationLink(msg) ?? null, want.verificationLink], [findCode(msg) ?? null, want.code]] as const) {
        if (got === null) missed += truth === null ? 0 : 1;
        else if (got === truth) right++;
        else wrong++;
      }
    }
    const totals = `${files.length} mails: ${right} right, ${wrong} wrong, ${missed} missed`;
    test.info().annotations.push({ type: 'check part', description: totals });
    expect(absent, 'expected answers of the check part that do not occur in their mail').toBe(0);
    expect(wrong, `answers of the held-out check part that are wrong (${totals})`).toBe(0);
  });
});
