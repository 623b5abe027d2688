// Checks extraction's vocabulary module by module: every language has words, lists are clean and every word compiles.
import { expect, test } from '@playwright/test';
import {
  ACCOUNT_WORDS, CONFIRMATION_NOUN, COPULA, DONE_NOTICE, FILLER_WORDS, LANGUAGES,
} from '../../src/extract/vocabulary/index.js';
import type { Vocabulary } from '../../src/extract/vocabulary/index.js';
import { foldLatin, wordRegExp } from '../../src/extract/text-utils.js';

test('every language module is listed once and has at least one list', () => {
  const codes = LANGUAGES.map((language) => language.code);
  expect(new Set(codes).size).toBe(codes.length);
  expect(codes).toEqual(expect.arrayContaining(['en', 'de', 'fr', 'es', 'ru', 'uk', 'ja', 'zh', 'ko', 'common']));
  for (const { code, words } of LANGUAGES) {
    const lists = (Object.values(words) as Array<readonly string[]>).filter((list) => list.length > 0);
    expect(lists.length, `lists of ${code}`).toBeGreaterThan(0);
  }
});

/** Every word with where it is, `code.role`. */
const entries = LANGUAGES.flatMap(({ code, words }) =>
  (Object.entries(words) as Array<[string, readonly string[]]>).flatMap(([role, list]) =>
    list.map((word, index) => ({ word, index, list, where: `${code}.${role}` })),
  ),
);

test('no list has duplicates, empty strings, padding or capitals', () => {
  expect(entries.length).toBeGreaterThan(1000);
  const problems = entries.flatMap(({ word, index, list, where }) => [
    ...(list.indexOf(word) !== index ? [`${where}: "${word}" twice`] : []),
    ...(word.replace(/\*/g, '').trim() === '' ? [`${where}: empty word`] : []),
    ...(word !== word.trim() ? [`${where}: "${word}" padded`] : []),
    ...(word !== word.toLowerCase() ? [`${where}: "${word}" not lower case`] : []),
  ]);
  expect(problems).toEqual([]);
});

test('every word compiles and matches itself', () => {
  const unmatched = entries.filter(({ word }) => {
    // The word as it would appear in a message: the wildcards stand for letters.
    const sample = word.replace(/^\*/, 'x').replace(/\*$/, 'x');
    return foldLatin(sample).match(wordRegExp([word]))?.length !== 1;
  });
  expect(unmatched.map(({ word, where }) => `${where}: "${word}"`)).toEqual([]);
});

test('every word of a list matched verbatim is matched by its pattern', () => {
  const verbatim: Array<[keyof Vocabulary, RegExp]> = [
    ['doneNotice', DONE_NOTICE], ['confirmationNoun', CONFIRMATION_NOUN], ['account', ACCOUNT_WORDS],
    ['filler', FILLER_WORDS], ['copula', new RegExp(`^(?:${COPULA})$`, 'iu')],
  ];
  const unmatched = verbatim.flatMap(([role, pattern]) =>
    entries
      .filter(({ where }) => where.endsWith(`.${role}`))
      .filter(({ word }) => word.search(pattern) !== 0 || word.toUpperCase().search(pattern) !== 0),
  );
  expect(unmatched.map(({ word, where }) => `${where}: "${word}"`)).toEqual([]);
});
