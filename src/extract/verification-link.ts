// Owns choosing the one link a test should follow (verify, reset, magic sign-in, email change), or none when unsure.
import { isUrlText } from './link-collect.js';
import { LINK_THRESHOLD, isCandidate, scoreLinks } from './link-score.js';
import type { ScoredLink } from './link-score.js';
import { toExtractedLink } from './find-links.js';
import { prepare } from './message.js';
import type { Candidate, Explanation, ExtractInput, LinkCandidate } from './types.js';

/** Identity of a destination: scheme-less, host lower-cased, no trailing slash, analytics parameters dropped. */
function destinationKey(raw: string): string {
  try {
    const url = new URL(raw);
    for (const key of [...url.searchParams.keys()]) if (/^utm_/i.test(key)) url.searchParams.delete(key);
    return `${url.hostname.toLowerCase()}${url.pathname.replace(/\/+$/, '')}?${url.searchParams.toString()}`;
  } catch {
    return raw;
  }
}

function keysOf(link: ScoredLink): Set<string> {
  const keys = new Set([destinationKey(link.raw.url)]);
  if (link.raw.evidence.wrapper.target) keys.add(destinationKey(link.raw.evidence.wrapper.target));
  for (const text of link.raw.texts) if (isUrlText(text)) keys.add(destinationKey(text.startsWith('www.') ? `https://${text}` : text));
  return keys;
}

/** Whether two candidates lead to the same place (a button and its "copy this link" fallback, say). */
function sameDestination(a: ScoredLink, b: ScoredLink): boolean {
  const keys = keysOf(a);
  for (const key of keysOf(b)) if (keys.has(key)) return true;
  const opaque = (l: ScoredLink): boolean => l.raw.evidence.wrapper.tracked && !l.raw.evidence.wrapper.target;
  const fallback = (l: ScoredLink): boolean => l.raw.texts.length > 0 && l.raw.texts.every(isUrlText);
  const sameAction = a.action === b.action || a.action === undefined || b.action === undefined;
  if (sameAction && ((opaque(a) && fallback(b)) || (opaque(b) && fallback(a)))) return true;
  // Trackers give every anchor its own URL: a button and a "click here" with the same action are one link.
  const host = (l: ScoredLink): string | undefined => l.raw.evidence.url?.hostname.toLowerCase();
  return a.action !== undefined && a.action === b.action && opaque(a) && opaque(b) && host(a) === host(b);
}

function toCandidate(link: ScoredLink, position: number): LinkCandidate {
  return { value: link.raw.url, score: link.score, reasons: link.reasons, link: toExtractedLink(link, position), eligible: link.eligible };
}

/**
 * Explains {@link findVerificationLink}: every candidate link ranked best first with the reasons for its score,
 * the links that were thrown out, and the verdict.
 */
export function explainVerificationLink(msg: ExtractInput): Explanation<LinkCandidate> {
  const scored = scoreLinks(prepare(msg));
  const html = scored.filter((l) => l.raw.source === 'html' && isCandidate(l));
  // The HTML part is what a user clicks; text-part URLs compete only when the HTML offers nothing.
  const pool = html.length > 0 ? html : scored.filter(isCandidate);
  const ranked = [...pool].sort((a, b) => b.score - a.score || scored.indexOf(a) - scored.indexOf(b));
  const rejected: Candidate[] = scored.filter((l) => !pool.includes(l)).map((l) => ({
    value: l.raw.url,
    score: l.score,
    reasons: isCandidate(l) ? [...l.reasons, 'the HTML part has a candidate, text-part links only back it up'] : l.eligible ? [...l.reasons, `score below ${LINK_THRESHOLD}`] : l.reasons,
  }));
  const candidates = ranked.map((l) => toCandidate(l, scored.indexOf(l)));
  const best = ranked[0];
  if (!best) return { answer: undefined, verdict: 'no link says verify, confirm, reset or sign in with enough evidence', candidates, rejected };
  const margin = Math.max(3, best.score * 0.25);
  const rival = ranked.slice(1).find((l) => l.score >= best.score - margin && !sameDestination(best, l));
  if (rival) {
    return {
      answer: undefined,
      verdict: `ambiguous: ${rival.raw.url} (score ${rival.score}) is too close to ${best.raw.url} (score ${best.score})`,
      candidates,
      rejected,
    };
  }
  return { answer: best.raw.url, verdict: `chosen with score ${best.score}: ${best.reasons.join('; ')}`, candidates, rejected };
}

/**
 * The one link a test should follow to verify an address, reset a password, sign in with a magic link or confirm
 * an email change. Never an unsubscribe, privacy, terms, help, social, logo or view-in-browser link.
 * Tracking wrappers are returned as they appear in the email (follow them as a user would).
 *
 * @returns the URL, or `undefined` when there is no such link or two different links are equally likely.
 */
export function findVerificationLink(msg: ExtractInput): string | undefined {
  return explainVerificationLink(msg).answer;
}
