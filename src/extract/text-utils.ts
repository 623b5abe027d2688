// Owns small text helpers shared by link and code extraction: normalisation, entity decoding and word matching.

/** Characters that render as nothing (zero-width joiners, soft hyphens, BOM, combining grapheme joiner, …). */
const INVISIBLE = /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u206A-\u206F\u3164\uFEFF\uFFA0]/g;

/** Windows-1252 characters for bytes 0x80–0x9F, for text that was decoded as ISO-8859-1 by mistake. */
const CP1252 = '€ ‚ƒ„…†‡ˆ‰Š‹Œ Ž  ‘’“”•–—˜™š›œ žŸ';

/**
 * Normalises text for scanning without changing what it says: invisible characters go, non-breaking
 * and other exotic spaces become plain spaces, full-width digits and Latin letters become ASCII, typographic apostrophes (`didn’t`) plain ones.
 */
export function normalizeText(input: string): string {
  return input
    .replace(/\r\n?/g, '\n')
    .replace(INVISIBLE, '')
    .replace(/[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/g, ' ')
    .replace(/[\uFF10-\uFF1A\uFF21-\uFF3A\uFF41-\uFF5A]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) - 0xfee0))
    .replace(/[\u0080-\u009F]/g, (ch) => CP1252[ch.charCodeAt(0) - 0x80] ?? ' ')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/[\u2018\u2019\u02BC\u2032]/g, "'");
}

const LATIN_ACCENTED = /[\u00C0-\u024F]/;

/**
 * Folds accents on Latin letters one character at a time (`é` → `e`), so the result has the same
 * length as the input and indexes still line up. Other scripts are left alone.
 */
export function foldLatin(input: string): string {
  if (!LATIN_ACCENTED.test(input)) return input;
  let out = '';
  for (const ch of input) {
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0xc0 && code <= 0x24f) {
      const base = ch.normalize('NFD')[0] ?? ch;
      out += base.length === ch.length ? base : ch;
    } else {
      out += ch;
    }
  }
  return out;
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', sol: '/', equals: '=', quest: '?', num: '#', percnt: '%',
};

/** Decodes the HTML entities that show up in URLs (`&amp;`, `&#38;`, `&#x26;`, …), repeatedly for double escapes. */
export function decodeEntities(input: string): string {
  let current = input;
  for (let i = 0; i < 3 && current.includes('&'); i++) {
    const next = current.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, body: string) => {
      if (body[0] === '#') {
        const hex = body[1] === 'x' || body[1] === 'X';
        const code = Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
        return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
      }
      return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
    });
    if (next === current) break;
    current = next;
  }
  return current;
}

/** Collapses runs of white space to one space and trims. */
export function collapseSpace(input: string): string {
  return input.replace(/\s+/g, ' ').trim();
}

const CJK = /[\u3040-\u30FF\u3400-\u9FFF\uAC00-\uD7AF\u1100-\u11FF\u3130-\u318F]/;
/** Escapes the characters that have a meaning in a regular expression, so `s` matches itself. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Compiles a word list into one case-insensitive regular expression.
 *
 * - Words in scripts without spaces (Chinese, Japanese, Korean) match anywhere.
 * - Other words match at word boundaries; a leading `*` lets the word end a compound
 *   (`*code` matches `Bestätigungscode`), a trailing `*` lets it take any ending
 *   (`подтверд*` matches `подтвердите`).
 * - Spaces inside a phrase match any run of spaces or hyphens.
 * - Accents on Latin letters are folded, so match against {@link foldLatin} output.
 */
export function wordRegExp(words: readonly string[], flags = 'giu'): RegExp {
  const plain: string[] = [];
  const compound: string[] = [];
  const open: string[] = [];
  const cjk: string[] = [];
  for (const raw of [...new Set(words)].sort((a, b) => b.length - a.length)) {
    const word = foldLatin(raw);
    const prefix = word.startsWith('*');
    const suffix = word.endsWith('*');
    const core = word.replace(/^\*|\*$/g, '');
    const body = escapeRegExp(core).replace(/ /g, '[\\s\\-]+');
    if (CJK.test(core)) cjk.push(body);
    else if (prefix) compound.push(suffix ? `${body}\\p{L}*` : body);
    else if (suffix) open.push(body);
    else plain.push(body);
  }
  // One lookbehind per position, then the alternatives: far faster than a lookbehind per alternative.
  const groups: string[] = [];
  if (plain.length > 0) groups.push(`(?<![\\p{L}\\p{N}])(?:${plain.join('|')})(?![\\p{L}\\p{N}])`);
  if (open.length > 0) groups.push(`(?<![\\p{L}\\p{N}])(?:${open.join('|')})\\p{L}*(?![\\p{L}\\p{N}])`);
  if (compound.length > 0) groups.push(`(?<![\\p{L}\\p{N}])\\p{L}*?(?:${compound.join('|')})(?![\\p{L}\\p{N}])`);
  if (cjk.length > 0) groups.push(`(?:${cjk.join('|')})`);
  return new RegExp(groups.join('|') || '(?!)', flags);
}

/** One match of a word list in a text. */
export interface WordHit {
  word: string;
  index: number;
  end: number;
}

/** All matches of `pattern` (a global {@link wordRegExp}) in `text`, accents folded. */
export function findWords(pattern: RegExp, text: string): WordHit[] {
  const folded = foldLatin(text);
  const hits: WordHit[] = [];
  pattern.lastIndex = 0;
  for (const m of folded.matchAll(pattern)) {
    const index = m.index ?? 0;
    hits.push({ word: text.slice(index, index + m[0].length), index, end: index + m[0].length });
  }
  return hits;
}

/** The first match of `pattern` in `text`, without looking for the rest. */
function firstHit(pattern: RegExp, text: string): WordHit | undefined {
  pattern.lastIndex = 0;
  const m = pattern.exec(foldLatin(text));
  pattern.lastIndex = 0;
  if (!m) return undefined;
  return { word: text.slice(m.index, m.index + m[0].length), index: m.index, end: m.index + m[0].length };
}

/** Whether `text` contains any word of `pattern`. */
export function hasWord(pattern: RegExp, text: string): boolean {
  return firstHit(pattern, text) !== undefined;
}

/** The first word of `pattern` found in `text`, if any. */
export function firstWord(pattern: RegExp, text: string): string | undefined {
  return firstHit(pattern, text)?.word;
}

/** The sentences of a run of text, split after `.`, `!`, `?` and their full-width forms. */
export function sentences(text: string): string[] {
  return text.split(/(?<=[.!?。！？])\s+/);
}
