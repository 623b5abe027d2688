// Owns choosing the one-time code of an email from all sightings, or none when there is none or two compete.
import { prominentValues } from './code-prominence.js';
import type { Prominence } from './code-prominence.js';
import { mask, scanForCodes } from './code-scan.js';
import type { CodeOccurrence, CodeSource } from './code-scan.js';
import { prepare } from './message.js';
import type { PreparedMessage } from './message.js';
import type { Candidate, CodeCandidate, Explanation, ExtractInput } from './types.js';
import { findWords } from './text-utils.js';
import { BOOKING_WORDS, CODE_WORDS, FAKE_CODE_WORDS, LOGIN_ACTION, VERIFY_ACTION } from './vocabulary/index.js';
import { CODE_WEIGHTS as W } from './weights.js';

const CODE_THRESHOLD = W.threshold;
const CODE_MARGIN = W.margin;

function mentionsCode(text: string): boolean {
  const fake = findWords(FAKE_CODE_WORDS, text);
  return findWords(CODE_WORDS, text).some((h) => !fake.some((f) => h.index < f.end && f.index < h.end));
}

interface Tally {
  value: string;
  accepted: CodeOccurrence[];
  rejected: CodeOccurrence[];
}

/** What the email as a whole says about codes. */
interface MailSignals {
  /** Some part mentions a code, or the subject asks to verify or sign in. */
  talksAboutCode: boolean;
  /** The subject asks to verify, confirm, reset or sign in. */
  intent: boolean;
}

/** Hints a test author can give when they know the code's shape. */
export interface CodeHints {
  /** The code is exactly this many digits, e.g. `{ digits: 6 }`. */
  digits?: number;
  /**
   * The code matches this RegExp as a whole (as the user types it: spaces and hyphens inside removed),
   * e.g. `{ pattern: /[A-Z0-9]{8}/ }`. Text matching it is looked for even where no code word is near.
   */
  pattern?: RegExp;
}

/** Checks hints given by a caller, so a typo fails at once instead of never matching. */
export function checkCodeHints(hints: CodeHints | undefined, where = 'findCode'): CodeHints {
  if (hints === undefined || hints === null) return {};
  if (typeof hints !== 'object') throw new TypeError(`${where}: hints must be an object such as { digits: 6 }, got ${typeof hints}`);
  const unknown = Object.keys(hints).filter((k) => k !== 'digits' && k !== 'pattern');
  if (unknown.length > 0) throw new TypeError(`${where}: unknown hint ${unknown.map((k) => `"${k}"`).join(', ')}; the code hints are digits (a number) and pattern (a RegExp)`);
  if (hints.digits !== undefined && (!Number.isInteger(hints.digits) || hints.digits < 1 || hints.digits > 12)) {
    throw new TypeError(`${where}: digits must be a whole number from 1 to 12, got ${JSON.stringify(hints.digits)}`);
  }
  if (hints.pattern !== undefined && !(hints.pattern instanceof RegExp)) {
    throw new TypeError(`${where}: pattern must be a RegExp such as /[A-Z0-9]{8}/, got ${JSON.stringify(hints.pattern)}`);
  }
  return hints;
}

/** A test for "has the shape the hints ask for", compiled once per call. */
function shapeOf(hints: CodeHints): (value: string) => boolean {
  const digits = hints.digits === undefined ? undefined : new RegExp(`^\\d{${hints.digits}}$`);
  const whole = hints.pattern ? new RegExp(`^(?:${hints.pattern.source})$`, hints.pattern.flags.replace(/[gy]/g, '')) : undefined;
  return (value) => (!digits || digits.test(value)) && (!whole || whole.test(value));
}

/** Text that matches the pattern hint where the scanner saw no code shape (URLs and addresses masked). */
function patternSightings(texts: Array<[string, CodeSource]>, pattern: RegExp): CodeOccurrence[] {
  const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  const out: CodeOccurrence[] = [];
  for (const [text, source] of texts) {
    const masked = mask(text);
    for (const m of masked.matchAll(global)) {
      const index = m.index ?? 0;
      const value = m[0];
      if (value === '' || /[\p{L}\p{N}]/u.test(masked[index - 1] ?? '') || /[\p{L}\p{N}]/u.test(masked[index + value.length] ?? '')) continue;
      out.push({ value, shown: value, source, score: 3, reasons: ['matches the pattern hint (+3)'], local: true, direct: false, lettersOnly: false });
      if (out.length > 50) return out;
    }
  }
  return out;
}

function judgeValue(tally: Tally, prominence: Prominence | undefined, mail: MailSignals, hinted: boolean): { candidate?: CodeCandidate; rejected?: Candidate } {
  const { talksAboutCode } = mail;
  const { value, accepted, rejected } = tally;
  const vetoed = rejected.find((o) => o.veto);
  if (vetoed) return { rejected: { value, score: 0, reasons: [`${vetoed.shown}: ${vetoed.rejected ?? 'not a code'}`] } };
  if (accepted.length === 0) {
    const reason = rejected[0]?.rejected ?? 'not a code';
    return { rejected: { value, score: 0, reasons: [`${rejected[0]?.shown ?? value}: ${reason}`] } };
  }
  const best = accepted.reduce((a, b) => (b.score > a.score ? b : a));
  const reasons = [`seen in ${best.source}`, ...best.reasons];
  let score = best.score;
  const sources = [...new Set(accepted.map((o) => o.source))] as CodeSource[];
  if (sources.length > 1) {
    score += W.severalParts;
    reasons.push(`seen in ${sources.join(' and ')} (+${W.severalParts})`);
  }
  if (prominence && prominence.score > 0) {
    score += prominence.score;
    reasons.push(...prominence.reasons.map((r) => `shown with ${r}`));
  }
  let local = accepted.some((o) => o.local);
  // The subject and the body show the same number: that is what the email is about.
  const digits = /^\d+$/.test(value);
  if (digits && sources.includes('subject') && sources.length > 1 && talksAboutCode) {
    score += W.subjectRepeats;
    local = true;
    reasons.push(`the subject repeats it (+${W.subjectRepeats})`);
  } else if (digits && !local && mail.intent && accepted.some((o) => o.alone && o.source !== 'subject')) {
    // "Log in with this:\n\n3817": a number on a line of its own in an email that asks to sign in or verify.
    score += W.aloneInIntentMail;
    local = true;
    reasons.push(`on a line of its own in an email whose subject asks to sign in or verify (+${W.aloneInIntentMail})`);
  }
  if (!local && talksAboutCode) {
    score += W.mailTalksAboutCode;
    reasons.push(`the email talks about a code (+${W.mailTalksAboutCode})`);
  }
  if (rejected.length > 0) {
    score += W.rejectedElsewhere;
    reasons.push(`elsewhere it is ${rejected[0]?.rejected ?? 'not a code'} (${W.rejectedElsewhere})`);
  }
  const promScore = prominence?.score ?? 0;
  let why: string | undefined;
  if (hinted) {
    reasons.push('has the shape the hint asks for');
    return { candidate: { value, score, reasons, sources, occurrences: accepted.length + rejected.length } };
  }
  if (score < CODE_THRESHOLD) why = `score ${score} below ${CODE_THRESHOLD}`;
  else if (!local && !talksAboutCode && !(prominence?.codeStyle && promScore >= W.styledWithoutWords)) why = 'no code word anywhere and not styled like a code';
  else if (!local && promScore < W.prominentWithoutWords) why = 'no code word nearby and not shown prominently';
  if (why) return { rejected: { value, score, reasons: [...reasons, why] } };
  return { candidate: { value, score, reasons, sources, occurrences: accepted.length + rejected.length } };
}

/**
 * Explains {@link findCode}: every code candidate ranked best first with the reasons for its score, the values that
 * were thrown out (dates, prices, phone and order numbers, …) and the verdict.
 */
export function explainCode(msg: ExtractInput, hints?: CodeHints): Explanation<CodeCandidate> {
  return chooseCode(prepare(msg), hints);
}

/** Chooses the code of a prepared message: the one rule behind the find and explain forms, and what link choice asks. */
export function chooseCode(message: PreparedMessage, hints?: CodeHints): Explanation<CodeCandidate> {
  const checked = checkCodeHints(hints, 'code hints');
  const hinted = checked.digits !== undefined || checked.pattern !== undefined;
  const texts = [message.subject, message.text, message.html?.text ?? ''];
  const booking = texts.some((t) => findWords(BOOKING_WORDS, t).length > 0);
  const occurrences = [
    ...scanForCodes(message.subject, 'subject', { booking }),
    ...scanForCodes(message.text, 'text', { booking }),
    ...(message.html ? scanForCodes(message.html.text, 'html', { booking }) : []),
  ];
  // An email about verifying or signing in whose subject says so: a prominent number is its code.
  const intent = findWords(VERIFY_ACTION, message.subject).length > 0 || findWords(LOGIN_ACTION, message.subject).length > 0;
  const mail: MailSignals = { talksAboutCode: texts.some(mentionsCode) || intent, intent };
  const prominence = message.html ? prominentValues(message.html) : new Map<string, Prominence>();

  if (checked.pattern) {
    const seen = new Set(occurrences.map((o) => o.value));
    const parts: Array<[string, CodeSource]> = [[message.subject, 'subject'], [message.text, 'text'], [message.html?.text ?? '', 'html']];
    occurrences.push(...patternSightings(parts, checked.pattern).filter((o) => !seen.has(o.value)));
  }
  const fits = shapeOf(checked);
  const tallies = new Map<string, Tally>();
  const rejected: Candidate[] = [];
  for (const occurrence of occurrences) {
    if (hinted && !fits(occurrence.value)) {
      if (!occurrence.rejected && !rejected.some((r) => r.value === occurrence.value)) {
        rejected.push({ value: occurrence.value, score: occurrence.score, reasons: [...occurrence.reasons, `does not have the shape the hint asks for (${describeHints(checked)})`] });
      }
      continue;
    }
    const tally = tallies.get(occurrence.value) ?? { value: occurrence.value, accepted: [], rejected: [] };
    (occurrence.rejected ? tally.rejected : tally.accepted).push(occurrence);
    tallies.set(occurrence.value, tally);
  }
  const candidates: CodeCandidate[] = [];
  for (const tally of tallies.values()) {
    const verdict = judgeValue(tally, prominence.get(tally.value), mail, hinted);
    if (verdict.candidate) candidates.push(verdict.candidate);
    if (verdict.rejected) rejected.push(verdict.rejected);
  }
  candidates.sort((a, b) => b.score - a.score);
  const [best, second] = candidates;
  if (!best) return { answer: undefined, verdict: 'no code found', candidates, rejected };
  if (second && second.score >= best.score - CODE_MARGIN) {
    return {
      answer: undefined,
      verdict: `ambiguous: ${second.value} (score ${second.score}) is too close to ${best.value} (score ${best.score})`,
      candidates,
      rejected,
    };
  }
  return { answer: best.value, verdict: `chosen with score ${best.score}: ${best.reasons.join('; ')}`, candidates, rejected };
}

/**
 * The one-time code of an email: 4–8 digits or a short alphanumeric code, near a code word (in many languages) or
 * shown prominently. Spaces and hyphens inside the code are removed. Years, dates, times, prices, phone numbers,
 * order/invoice/ticket numbers, durations and postal codes are never codes.
 *
 * With hints, only values of that shape compete, and one is answered without a code word nearby (values
 * that are dates, prices, phone or order numbers stay out).
 *
 * @param hints narrow the candidates before ranking, e.g. `{ digits: 6 }` or `{ pattern: /[A-Z0-9]{8}/ }`.
 * @returns the code, or `undefined` when there is none or two different codes are equally likely.
 */
export function findCode(msg: ExtractInput, hints?: CodeHints): string | undefined {
  return explainCode(msg, hints).answer;
}

function describeHints(hints: CodeHints): string {
  return [hints.digits !== undefined ? `digits: ${hints.digits}` : '', hints.pattern ? `pattern: ${String(hints.pattern)}` : ''].filter(Boolean).join(', ');
}
