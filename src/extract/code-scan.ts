// Owns finding one-time-code candidates in a run of text and judging each by the words around it.
import { findWords, hasWord } from './text-utils.js';
import type { WordHit } from './text-utils.js';
import {
  ADDRESS_WORDS, BOOKING_CODE_WORDS, CODE_WORDS, COPULA, ENTER_WORDS, CURRENCY, FAKE_CODE_WORDS, LOGIN_ACTION, MEETING_WORDS,
  MONTHS, NON_CODE_LABELS, PROMO_WORDS, RESET_ACTION, UNIT_AFTER, VERIFY_ACTION,
} from './vocabulary/index.js';
import { CODE_WEIGHTS as W } from './weights.js';

/** Where a code was seen. */
export type CodeSource = 'subject' | 'text' | 'html';

/** One sighting of a possible code. */
export interface CodeOccurrence {
  /** The code as a user types it: spaces and hyphens removed. */
  value: string;
  /** The code as shown. */
  shown: string;
  source: CodeSource;
  score: number;
  reasons: string[];
  /** Set when the sighting is thrown out: why. */
  rejected?: string;
  /** A code word was near. */
  local: boolean;
  /** A code word labels it directly (`code: 123456`, `Your code is 123456`). */
  direct: boolean;
  /** Letters only (no digit): acceptable only when labelled directly. */
  lettersOnly: boolean;
  /** Alone on its line (nothing but punctuation around it). */
  alone?: boolean;
  /** The rejection rules out the value everywhere (a promotion code, a meeting passcode). */
  veto?: boolean;
}

type Gap = 'space' | 'cell' | 'hyphen' | 'tight-hyphen' | 'dot' | 'comma' | 'colon' | 'slash' | 'break';

interface Token {
  text: string;
  start: number;
  end: number;
  digits: boolean;
}

const CJK = /[\u3040-\u30FF\u3400-\u9FFF\uAC00-\uD7AF\u1100-\u11FF\u3130-\u318F\uF900-\uFAFF]/;

function gapType(s: string): Gap {
  if (/^ {1,4}$/.test(s)) return 'space';
  if (/^[ \t]*\t[ \t]*$/.test(s)) return 'cell';
  if (s === '-') return 'tight-hyphen';
  if (/^ ?- ?$/.test(s)) return 'hyphen';
  if (s === '.') return 'dot';
  if (s === ',') return 'comma';
  if (s === ':') return 'colon';
  if (/^ ?\/ ?$/.test(s)) return 'slash';
  return 'break';
}

/** Replaces URLs and email addresses with spaces (same length), so nothing inside them is read as a code. */
export function mask(text: string): string {
  const blank = (m: string): string => ' '.repeat(m.length);
  return text
    .replace(/\b(?:https?:\/\/|www\.)[^\s<>"']+/gi, blank)
    .replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, blank)
    .replace(/<[^<>\s]*>/g, blank);
}

/** A stretch of text that might be one code. */
interface Cluster {
  tokens: Token[];
  value: string;
  shown: string;
  start: number;
  end: number;
  kind: 'digits' | 'grouped' | 'spaced' | 'alnum' | 'letters';
}

interface Rejection {
  start: number;
  end: number;
  shown: string;
  reason: string;
}

const UNIT_TOKEN = /^\d+(st|nd|rd|th|am|pm|h|hr|hrs|m|min|mins|s|sec|ms|kb|mb|gb|tb|px|pt|em|kg|g|km|cm|mm|ml|l|x|k|p|fps|hz|mhz|ghz|mp|gbps|mbps|v|w|kw|mah|d|y|yr|yrs)$/i;

function isCodeShape(value: string): Cluster['kind'] | undefined {
  if (/^\d{4,8}$/.test(value)) return 'digits';
  if (value.length < 4 || value.length > 10 || !/^[A-Za-z0-9]+$/.test(value)) return undefined;
  if (UNIT_TOKEN.test(value)) return undefined;
  const hasDigit = /\d/.test(value);
  if (hasDigit && /[A-Za-z]/.test(value)) return 'alnum';
  if (!hasDigit && /^[A-Z]{5,10}$/.test(value)) return 'letters';
  return undefined;
}

/** Splits masked text into candidate clusters and the number-like stretches that are thrown out. */
function clusters(masked: string): { found: Cluster[]; rejected: Rejection[] } {
  const tokens: Token[] = [...masked.matchAll(/[A-Za-z0-9]+/g)].map((m) => ({
    text: m[0],
    start: m.index ?? 0,
    end: (m.index ?? 0) + m[0].length,
    digits: /^\d+$/.test(m[0]),
  }));
  const found: Cluster[] = [];
  const rejected: Rejection[] = [];
  const gap = (i: number): Gap => {
    const a = tokens[i];
    const b = tokens[i + 1];
    return a && b ? gapType(masked.slice(a.end, b.start)) : 'break';
  };
  const make = (run: Token[], kind: Cluster['kind'], value: string): Cluster => {
    const first = run[0] as Token;
    const last = run[run.length - 1] as Token;
    return { tokens: run, kind, value, shown: masked.slice(first.start, last.end), start: first.start, end: last.end };
  };
  const reject = (run: Token[], reason: string): void => {
    const first = run[0] as Token;
    const last = run[run.length - 1] as Token;
    if (run.some((t) => t.digits && t.text.length >= 4)) {
      rejected.push({ start: first.start, end: last.end, shown: masked.slice(first.start, last.end), reason });
    }
  };

  let i = 0;
  while (i < tokens.length) {
    const token = tokens[i] as Token;
    // 1. Letter-spaced or boxed codes: single characters separated by spaces or table cells.
    if (token.text.length === 1) {
      let j = i;
      while (j + 1 < tokens.length && (tokens[j + 1] as Token).text.length === 1 && ['space', 'cell'].includes(gap(j))) j++;
      const run = tokens.slice(i, j + 1);
      const joined = run.map((t) => t.text).join('');
      const continues = j + 1 < tokens.length && ['space', 'cell', 'hyphen', 'tight-hyphen'].includes(gap(j)) && (tokens[j + 1] as Token).digits;
      if (run.length >= 4 && run.length <= 10 && /\d/.test(joined) && !continues && gap(i - 1) !== 'tight-hyphen') {
        found.push(make(run, 'spaced', joined));
        i = j + 1;
        continue;
      }
    }
    // 2. A run of tokens joined by separators that keep numbers together.
    let j = i;
    for (;;) {
      const g = gap(j);
      const next = tokens[j + 1];
      const current = tokens[j] as Token;
      if (!next || g === 'break' || g === 'cell') break;
      if (current.digits && next.digits) { j++; continue; }
      if (g === 'tight-hyphen') { j++; continue; }
      break;
    }
    const run = tokens.slice(i, j + 1);
    i = j + 1;
    evaluateRun(run);
  }
  return { found, rejected };

  function evaluateRun(run: Token[]): void {
    if (run.length === 1) {
      const t = run[0] as Token;
      const kind = isCodeShape(t.text);
      if (kind) found.push(make(run, kind, t.text));
      else if (t.digits && t.text.length > 8 && t.text.length <= 14) reject(run, 'too long for a code (account, phone or tracking number?)');
      return;
    }
    const gaps = run.slice(0, -1).map((t) => gapType(masked.slice(t.end, (run[run.indexOf(t) + 1] as Token).start)));
    const allDigits = run.every((t) => t.digits);
    if (allDigits) {
      const sameGap = gaps.every((g) => g === gaps[0]);
      const sameLength = run.every((t) => t.text.length === (run[0] as Token).text.length);
      const joined = run.map((t) => t.text).join('');
      const g0 = gaps[0];
      const spacedGroups = g0 === 'space' && run.length <= 3 && (run[0] as Token).text.length >= 2;
      const hyphenGroups = (g0 === 'hyphen' || g0 === 'tight-hyphen') && run.length === 2 && (run[0] as Token).text.length >= 3;
      if (sameGap && sameLength && (spacedGroups || hyphenGroups) && joined.length >= 4 && joined.length <= 8) {
        found.push(make(run, 'grouped', joined));
        return;
      }
      // "482913 10 minutes": a code followed by an unrelated short number
      const first = run[0] as Token;
      if (run.length === 2 && g0 === 'space' && first.text.length >= 4 && first.text.length <= 8 && (run[1] as Token).text.length <= 3) {
        found.push(make([first], 'digits', first.text));
        return;
      }
      const lengths = run.map((t) => t.text.length).join('-');
      const dateShape = run.length === 3 && /^(4-[12]-[12]|[12]-[12]-(2|4))$/.test(lengths);
      if (gaps.includes('colon')) reject(run, 'a time');
      else if (gaps.includes('slash') || (dateShape && gaps.every((g) => g === 'dot' || g === 'tight-hyphen'))) reject(run, 'a date');
      else if (gaps.includes('comma') || gaps.includes('dot')) reject(run, 'an amount or a decimal number');
      else reject(run, 'part of a longer number (phone, account or id)');
      return;
    }
    // Tokens with letters, joined by tight hyphens: "ABC-123", "X7K-P9Q"; "G-482913" keeps only the digits.
    const first = run[0] as Token;
    const second = run[1] as Token;
    if (run.length === 2 && /^[A-Z]{1,2}$/.test(first.text) && /^\d{4,8}$/.test(second.text)) {
      found.push(make([second], 'digits', second.text));
      return;
    }
    const joined = run.map((t) => t.text).join('');
    // "HXK-TQW", "wqtxh-bmrls": two or three groups of letters in one case, as some services print their
    // codes (letters-only codes in dashed groups). Accepted only when labelled.
    const oneCase = run.every((t) => /^[A-Z]{3,5}$/.test(t.text)) || run.every((t) => /^[a-z]{3,5}$/.test(t.text));
    if (run.length <= 3 && oneCase && joined.length <= 12) {
      found.push(make(run, 'letters', joined));
      return;
    }
    const partsOk = run.length <= 3 && run.every((t) => t.text.length >= 2 && t.text.length <= 6);
    const caseOk = run.every((t) => !/[a-z]/.test(t.text)) || run.every((t) => !/[A-Z]/.test(t.text));
    const noWords = run.every((t) => /\d/.test(t.text) || t.text.length <= 4 || t.text === t.text.toUpperCase());
    if (partsOk && caseOk && noWords && joined.length >= 4 && joined.length <= 10 && /\d/.test(joined)) {
      found.push(make(run, 'alnum', joined));
      return;
    }
    if (run.some((t) => t.digits && t.text.length >= 4)) reject(run, 'part of a reference with letters and numbers');
  }
}

/** The hit that ends last. */
function lastHit(hits: WordHit[]): WordHit | undefined {
  return hits.reduce<WordHit | undefined>((best, h) => (!best || h.end > best.end ? h : best), undefined);
}

function codeHits(text: string, booking = false): { positive: WordHit[]; negative: WordHit[] } {
  const fake = [...findWords(FAKE_CODE_WORDS, text), ...(booking ? findWords(BOOKING_CODE_WORDS, text) : [])];
  const positive = findWords(CODE_WORDS, text).filter((h) => !fake.some((f) => h.index < f.end && f.index < h.end));
  const negative = [...findWords(NON_CODE_LABELS, text), ...fake].filter(
    (n) => !positive.some((p) => n.index < p.end && p.index < n.end),
  );
  return { positive, negative };
}

/** Punctuation that may stand around what joins a code's label to the code. */
const LABEL_PUNCTUATION = '[\\s:：=>\\-–—»"\'“”„«(\\[*]*';

/** What may stand between a code's label and the code: punctuation, or a copula ("is", "lautet", "は") or a colon. */
const DIRECT_BETWEEN = new RegExp(`^${LABEL_PUNCTUATION}(?:(?:${COPULA}|:|—|：)\\s*[:：]?)?${LABEL_PUNCTUATION}$`, 'iu');

/** Whether the text asks to type a code ("Type this code in the new device", "Enter the code"). */
function asksToType(text: string, booking: boolean): boolean {
  return findWords(ENTER_WORDS, text).some((verb) => codeHits(text.slice(verb.end, verb.end + 16), booking).positive.length > 0);
}

/** Between a code word and a later label: the label says whose code it is ("code for your account is"). */
const POSSESSOR = /^\s*(?:for|of|to|on)\s+(?:your|the|this|my)\s*$/i;

/** Whether `line` reads like a postal address. */
function isAddressLine(line: string): boolean {
  return (
    findWords(ADDRESS_WORDS, line).length > 0 ||
    /\b[A-Z]{2}\s+\d{5}(-\d{4})?\b/.test(line) ||
    /〒/.test(line) ||
    /\b\d{1,5}\s+[A-Z][a-z]+\s+(St|Ave|Rd|Blvd|Dr|Ln|Way|Ct|Pl)\b/.test(line)
  );
}

interface Context {
  before: string;
  after: string;
  line: string;
  previous: string[];
  next: string;
}

function contextAt(masked: string, start: number, end: number): Context {
  const lineStart = masked.lastIndexOf('\n', start - 1) + 1;
  const lineEndRaw = masked.indexOf('\n', end);
  const lineEnd = lineEndRaw < 0 ? masked.length : lineEndRaw;
  const earlier: string[] = [];
  for (let end = lineStart - 1; end > 0 && earlier.length < 2; ) {
    const start = masked.lastIndexOf('\n', end - 1) + 1;
    const line = masked.slice(start, end);
    if (line.trim() !== '') earlier.unshift(line);
    end = start - 1;
  }
  let next = '';
  for (let start = lineEnd + 1; start < masked.length && next === ''; ) {
    const stop = masked.indexOf('\n', start);
    const line = masked.slice(start, stop < 0 ? masked.length : stop);
    if (line.trim() !== '') next = line;
    start = stop < 0 ? masked.length : stop + 1;
  }
  return {
    before: masked.slice(lineStart, start),
    after: masked.slice(end, lineEnd),
    line: masked.slice(lineStart, lineEnd),
    previous: earlier.slice(-2).reverse(),
    next,
  };
}

/** How to read a text. */
export interface ScanOptions {
  /** The email is about a booking or trip: "confirmation code" there is a booking reference. */
  booking?: boolean;
}

/** Finds code candidates in `raw` and scores each sighting by its neighbourhood. */
export function scanForCodes(raw: string, source: CodeSource, options: ScanOptions = {}): CodeOccurrence[] {
  const masked = mask(raw);
  const { found, rejected } = clusters(masked);
  const out: CodeOccurrence[] = [];
  for (const r of rejected) {
    out.push({ value: r.shown, shown: r.shown, source, score: 0, reasons: [], rejected: r.reason, local: false, direct: false, lettersOnly: false });
  }
  for (const cluster of found) {
    const occurrence = judge(masked, cluster, source, options.booking ?? false);
    if (occurrence) out.push(occurrence);
  }
  return out;
}

function judge(masked: string, cluster: Cluster, source: CodeSource, booking: boolean): CodeOccurrence | undefined {
  const { start, end, value, shown } = cluster;
  const charBefore = masked[start - 1] ?? '';
  const charAfter = masked[end] ?? '';
  // Glued to letters of an alphabetic script: part of a word, not a code.
  if ((/[\p{L}\p{N}_]/u.test(charBefore) && !CJK.test(charBefore)) || (/[\p{L}\p{N}_]/u.test(charAfter) && !CJK.test(charAfter))) return undefined;
  const ctx = contextAt(masked, start, end);
  const base = { value, shown, source, local: false, direct: false, lettersOnly: cluster.kind === 'letters' };
  const reject = (reason: string): CodeOccurrence => ({ ...base, score: 0, reasons: [], rejected: reason });
  const veto = (reason: string): CodeOccurrence => ({ ...reject(reason), veto: true });
  const digitsOnly = /^\d+$/.test(value);

  // --- origin-bound one-time codes (WebOTP format: "@example.com #123456")
  if (/@[a-z0-9.-]+\.[a-z]{2,}\s+#$/i.test(ctx.before)) {
    return { ...base, score: W.originBound, reasons: [`origin-bound code format "@domain #code" (+${W.originBound})`], local: true, direct: true };
  }

  // --- what sits right next to it
  if (/[#＃]\s*$/.test(ctx.before) || /(?:^|[\s(])(?:no|nr|n°|nº|№)\.?\s*$/i.test(ctx.before)) return reject('follows a number sign (#, No.)');
  if (/\+\s*\d{0,3}[\s-]*$/.test(ctx.before) || /\(\s*\d{1,4}\s*\)[\s-]*$/.test(ctx.before)) return reject('part of a phone number');
  if (/^\s*\(?\d{0,4}\)?[\s-]+\d{2,}/.test(ctx.after) && digitsOnly && /\(\s*$/.test(ctx.before)) return reject('part of a phone number');
  const currencyBefore = new RegExp(`${CURRENCY.source}\\s*$`, 'iu');
  const currencyAfter = new RegExp(`^\\s*${CURRENCY.source}`, 'iu');
  if (currencyBefore.test(ctx.before.slice(-8)) || currencyAfter.test(ctx.after.slice(0, 8))) return reject('an amount of money');
  if (/^\s*%/.test(ctx.after)) return reject('a percentage');
  if (/^[.,]\d/.test(ctx.after) || /\d[.,]$/.test(ctx.before)) return reject('an amount or a decimal number');
  if (/^[:/]\d/.test(ctx.after) || /\d[:/]$/.test(ctx.before)) return reject('a date or a time');
  const unit = findWords(UNIT_AFTER, ctx.after.slice(0, 24)).find((h) => /^[\s\-]*$/.test(ctx.after.slice(0, h.index)));
  if (unit) return reject(`followed by "${unit.word}" (a duration, time or quantity)`);
  const monthBefore = findWords(MONTHS, ctx.before).find((h) => /^[\s.,]*$/.test(ctx.before.slice(h.end)));
  const monthAfter = findWords(MONTHS, ctx.after.slice(0, 16)).find((h) => /^[\s.,]*$/.test(ctx.after.slice(0, h.index)));
  if (digitsOnly && (monthBefore || monthAfter)) return reject('part of a date');
  if (digitsOnly && /(?:[©]|\(c\)|copyright)[^©]{0,12}$/i.test(ctx.before)) return reject('a copyright year');

  // --- labels: the closest label word before it decides, then the first one after it
  const nearLeftRaw = ctx.before.slice(-48);
  const lastDigit = nearLeftRaw.search(/\d[^\d]*$/);
  const nearLeft = lastDigit >= 0 ? nearLeftRaw.slice(lastDigit + 1) : nearLeftRaw;
  const left = codeHits(nearLeft, booking);
  const leftPos = lastHit(left.positive);
  const leftNeg = lastHit(left.negative);
  // "The verification code for your account is 730419": a label after the code word that says whose code
  // it is ("for your account", "of your order") does not label the number.
  const possessor = leftNeg !== undefined && leftPos !== undefined && POSSESSOR.test(nearLeft.slice(leftPos.end, leftNeg.index));
  // "Approval code: X9T4Q2 … Type this code in the new device": a label that names payment codes elsewhere
  // is a code to type when the mail asks to type it.
  const typed = leftNeg !== undefined && !leftPos && hasWord(FAKE_CODE_WORDS, leftNeg.word) && asksToType(`${ctx.after}\n${ctx.next}`, booking);
  if (leftNeg && (!leftPos || leftNeg.end > leftPos.end) && !possessor && !typed) return reject(`labelled "${leftNeg.word.trim()}"`);
  const firstDigitAfter = ctx.after.search(/\d/);
  const nearRight = ctx.after.slice(0, firstDigitAfter >= 0 ? Math.min(firstDigitAfter, 40) : 40);
  const right = codeHits(nearRight, booking);
  const rightPos = right.positive[0];
  const rightNeg = right.negative[0];
  if (rightNeg && (!rightPos || rightNeg.index < rightPos.index) && rightNeg.index < 24) return reject(`followed by "${rightNeg.word.trim()}"`);

  const alone = (ctx.before + ctx.after).replace(/[\s:：.,;!?()[\]"'«»“”*|\-–—>]/g, '') === '';
  const labelOnly = !leftPos && ctx.before.replace(/[\s:：.,;!?()[\]"'«»“”*|\-–—>]/g, '') === '';
  const previousLines = alone || labelOnly || !leftPos ? ctx.previous : [];
  let previousPoints = 0;
  let previousWord = '';
  for (const [index, line] of previousLines.entries()) {
    const tail = line.slice(-60);
    const hits = codeHits(tail, booking);
    const pos = lastHit(hits.positive);
    const neg = lastHit(hits.negative);
    const shortLabel = line.trim().length <= 40;
    if (neg && (!pos || neg.end > pos.end) && (alone || labelOnly) && index === 0 && shortLabel && /^\s*[:：#№]?\s*$/.test(tail.slice(neg.end))) {
      return reject(`the line before ends with "${neg.word.trim()}"`);
    }
    const endsWithLabel = neg !== undefined && neg.end > (pos?.end ?? -1) && /^\s*[:：#№]?\s*$/.test(tail.slice(neg.end));
    if (pos && !endsWithLabel) {
      previousPoints = alone || labelOnly ? (index === 0 ? W.previousLineLabel : W.previousLineLabelFar) : W.previousLineMention;
      previousWord = pos.word;
      break;
    }
  }

  // --- invitations, promotions and addresses
  const meetingLines = [ctx.line, ...ctx.previous];
  const meeting = meetingLines.map((l) => findWords(MEETING_WORDS, l)[0]).find(Boolean);
  if (meeting) return veto(`meeting details ("${meeting.word}")`);
  const shortLine = ctx.line.trim().length <= 30;
  const promoLines = alone || labelOnly ? [ctx.line, ctx.previous[0] ?? '', ctx.next] : shortLine ? [ctx.line, ctx.previous[0] ?? ''] : [ctx.line];
  for (const line of promoLines) {
    const promo = findWords(PROMO_WORDS, line)[0] ?? findWords(FAKE_CODE_WORDS, line)[0];
    if (promo && !typed && (cluster.kind !== 'digits' || /%/.test(line) || CURRENCY.test(line) || findWords(FAKE_CODE_WORDS, line).length > 0)) {
      return veto(`a promotion ("${promo.word.trim()}")`);
    }
  }

  // --- score the code words
  const reasons: string[] = [];
  let points = 0;
  let direct = false;
  if (typed && leftNeg) {
    points = W.labelled;
    direct = true;
    reasons.push(`labelled "${leftNeg.word.trim()}", and the mail asks to type this code (+${points})`);
  } else if (leftPos) {
    const between = nearLeft.slice(leftPos.end);
    if (DIRECT_BETWEEN.test(between)) {
      points = W.labelled;
      direct = true;
      reasons.push(`labelled "${leftPos.word.trim()}" (+${points})`);
    } else {
      points = between.length <= 30 ? W.codeWordNear : W.codeWordFar;
      reasons.push(`"${leftPos.word.trim()}" just before (+${points})`);
    }
  } else {
    // Further back on the line, labels before other numbers belong to those numbers: only code words count.
    const pos = lastHit(codeHits(ctx.before, booking).positive);
    if (pos) {
      points = DIRECT_BETWEEN.test(nearLeft) && nearLeft.trim() !== '' ? W.codeWordEarlierDirect : W.codeWordEarlier;
      reasons.push(`"${pos.word.trim()}" earlier in the sentence (+${points})`);
    }
  }
  if (rightPos && !(rightNeg && rightNeg.index < rightPos.index)) {
    const p = rightPos.index <= 30 ? W.codeWordAfterNear : W.codeWordAfterFar;
    if (p > points) {
      reasons.push(`"${rightPos.word.trim()}" right after (+${p - points})`);
      points = p;
    } else {
      points += W.codeWordBothSides;
      reasons.push(`"${rightPos.word.trim()}" after it as well (+${W.codeWordBothSides})`);
    }
  }
  if (previousPoints > points) {
    reasons.push(`"${previousWord.trim()}" on the line before (+${previousPoints - points})`);
    points = previousPoints;
  }
  if (alone && points === 0 && ctx.next) {
    const nextPos = codeHits(ctx.next.slice(0, 60), booking).positive[0];
    if (nextPos) {
      points = W.nextLineLabel;
      reasons.push(`"${nextPos.word.trim()}" on the line after (+${points})`);
    }
  }
  if (points === 0) {
    const verb = findWords(ENTER_WORDS, nearLeft).find((h) => /^[\s:："'“„«(]*$/.test(nearLeft.slice(h.end)));
    if (verb) {
      points = W.enterVerb;
      reasons.push(`asks to "${verb.word}" it (+${points})`);
      // "Use 5546 to confirm your email": the sentence says what the number is for.
      const purpose = [VERIFY_ACTION, LOGIN_ACTION, RESET_ACTION].map((words) => findWords(words, ctx.after.slice(0, 60))[0]).find(Boolean);
      if (purpose) {
        points += W.enterPurpose;
        reasons.push(`to "${purpose.word.trim()}" (+${W.enterPurpose})`);
      }
    }
  }
  const local = points > 0;

  // --- things that look like codes but are not, unless labelled directly
  if (digitsOnly && value.length === 4 && /^(19|20)\d\d$/.test(value) && !direct) return reject('looks like a year');
  if (digitsOnly && value.length >= 4 && value.length <= 6 && !direct) {
    const previousAddress = ctx.previous[0] !== undefined && isAddressLine(ctx.previous[0]) && /^\s+[A-ZÀ-Ý][\p{Ll}]{2,}/u.test(ctx.after);
    if (isAddressLine(ctx.line) || previousAddress) return reject('part of a postal address');
  }
  // Letters alone need a label: right before them, or a code word ending the line above a line of their own.
  if (cluster.kind === 'letters' && !direct && !(alone && previousPoints === W.previousLineLabel)) return reject('letters only, and not labelled as a code');

  let score = points;
  if (alone) {
    score += W.alone;
    reasons.push(`on a line of its own (+${W.alone})`);
  }
  if (cluster.kind === 'digits' && value.length === 6) {
    score += W.sixDigits;
    reasons.push(`six digits (+${W.sixDigits})`);
  }
  if (cluster.kind === 'spaced') {
    score += W.spacedOut;
    reasons.push(`characters spaced out one by one (+${W.spacedOut})`);
  }
  if (cluster.kind === 'letters' || (/[a-z]/.test(value) && /[A-Z]/.test(value))) {
    score += W.lettersOrMixedCase;
    reasons.push(`mixed case or letters only (${W.lettersOrMixedCase})`);
  }
  return { ...base, score, reasons, local, direct, alone };
}
