// Owns choosing the one link a test should follow (verify, reset, magic sign-in, email change), or none when unsure.
import { chooseCode } from './find-code.js';
import { isUrlText } from './link-collect.js';
import { LINK_THRESHOLD, isCandidate, mailIntent, scoreLinks, unique } from './link-score.js';
import type { ScoredLink } from './link-score.js';
import { toExtractedLink } from './link-score.js';
import { prepare } from './message.js';
import type { PreparedMessage } from './message.js';
import { LINK_WEIGHTS } from './weights.js';
import type { Candidate, Explanation, ExtractInput, LinkCandidate } from './types.js';

/** Identity of a destination: scheme-less, host lower-cased, no trailing slash, analytics parameters dropped. */
function destinationKey(raw: string): string {
  try {
    const url = new URL(raw);
    for (const key of [...url.searchParams.keys()]) if (/^utm_/i.test(key)) url.searchParams.delete(key);
    return `${url.host.toLowerCase()}${url.pathname.replace(/\/+$/, '')}?${url.searchParams.toString()}`;
  } catch {
    return raw;
  }
}

/** Whether a tracker hides the link's destination. */
function isOpaque(link: ScoredLink): boolean {
  return link.raw.evidence.wrapper.tracked && !link.raw.evidence.wrapper.target;
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
  const opaque = isOpaque;
  const fallback = (l: ScoredLink): boolean => l.raw.texts.length > 0 && l.raw.texts.every(isUrlText);
  const sameAction = a.action === b.action || a.action === undefined || b.action === undefined;
  if (sameAction && ((opaque(a) && fallback(b)) || (opaque(b) && fallback(a)))) return true;
  // Trackers give every anchor its own URL: a button and a "click here" with the same action are one link.
  const host = (l: ScoredLink): string | undefined => l.raw.evidence.url?.hostname.toLowerCase();
  return a.action !== undefined && a.action === b.action && opaque(a) && opaque(b) && host(a) === host(b);
}

function toCandidate(link: ScoredLink, position: number, chosen = false): LinkCandidate {
  return { value: link.raw.url, score: link.score, reasons: link.reasons, link: toExtractedLink(link, position, chosen), eligible: link.eligible || chosen };
}

/** Hints a test author can give when they know more than the email says. */
export interface LinkHints {
  /**
   * Only links whose URL contains this string (case-sensitive) or matches this RegExp are
   * considered; for a tracked link, its encoded destination counts too. Narrowing happens before
   * ranking: the one link left that is not an unsubscribe, privacy, help, social, home or
   * view-in-browser link is the answer.
   * @example `{ urlIncludes: '/reset' }`, `{ urlIncludes: /\/verify\/\d+/ }`
   */
  urlIncludes?: string | RegExp;
}

/** Checks hints given by a caller, so a typo fails at once instead of never matching. */
export function checkLinkHints(hints: LinkHints | undefined, where = 'findVerificationLink'): LinkHints {
  if (hints === undefined || hints === null) return {};
  if (typeof hints !== 'object') throw new TypeError(`${where}: hints must be an object such as { urlIncludes: '/reset' }, got ${typeof hints}`);
  const unknown = Object.keys(hints).filter((k) => k !== 'urlIncludes');
  if (unknown.length > 0) throw new TypeError(`${where}: unknown hint ${unknown.map((k) => `"${k}"`).join(', ')}; the link hint is urlIncludes (a string or RegExp)`);
  const { urlIncludes } = hints;
  if (urlIncludes !== undefined && !(urlIncludes instanceof RegExp) && (typeof urlIncludes !== 'string' || urlIncludes === '')) {
    throw new TypeError(`${where}: urlIncludes must be a non-empty string or a RegExp, got ${JSON.stringify(urlIncludes)}`);
  }
  return hints;
}

function urlMatcher(urlIncludes: string | RegExp): (url: string) => boolean {
  if (typeof urlIncludes === 'string') return (url) => url.includes(urlIncludes);
  const pattern = new RegExp(urlIncludes.source, urlIncludes.flags.replace(/[gy]/g, ''));
  return (url) => pattern.test(url);
}

/** Groups links that lead to the same place; each group is one answer. */
function destinations(links: ScoredLink[]): ScoredLink[][] {
  const groups: ScoredLink[][] = [];
  for (const link of links) {
    const group = groups.find((g) => g.some((other) => sameDestination(link, other)));
    if (group) group.push(link);
    else groups.push([link]);
  }
  return groups;
}

/** HTML links first: text-part URLs compete only when the HTML offers nothing. */
function htmlFirst(links: ScoredLink[]): ScoredLink[] {
  const html = links.filter((l) => l.raw.source === 'html');
  return html.length > 0 ? html : links;
}

/** The outcome of choosing a link: the explanation and the scored link it chose, if any. */
export interface LinkChoice {
  explanation: Explanation<LinkCandidate>;
  /** Every link of the message, scored, in document order. */
  scored: ScoredLink[];
  /** The link answered, when there is one. */
  chosen?: ScoredLink;
}

/** Chooses the verification link of a prepared message: the one shared rule behind the find and explain forms. */
export function chooseLink(message: PreparedMessage, hints?: LinkHints): LinkChoice {
  const { urlIncludes } = checkLinkHints(hints, 'link hints');
  const all = scoreLinks(message);
  const rejected: Candidate[] = [];
  let scored = all;
  if (urlIncludes !== undefined) {
    const matches = urlMatcher(urlIncludes);
    const keep = (l: ScoredLink): boolean => matches(l.raw.url) || (l.raw.evidence.wrapper.target !== undefined && matches(l.raw.evidence.wrapper.target));
    scored = all.filter(keep);
    for (const l of all.filter((x) => !keep(x))) {
      rejected.push({ value: l.raw.url, score: l.score, reasons: [...l.reasons, `the URL does not include ${String(urlIncludes)} (urlIncludes)`] });
    }
  }
  const pool = htmlFirst(scored.filter(isCandidate));
  const ranked = [...pool].sort((a, b) => b.score - a.score || all.indexOf(a) - all.indexOf(b));
  for (const l of scored.filter((x) => !pool.includes(x))) {
    rejected.push({
      value: l.raw.url,
      score: l.score,
      reasons: isCandidate(l) ? [...l.reasons, 'the HTML part has a candidate, text-part links only back it up'] : l.eligible ? [...l.reasons, `score below ${LINK_THRESHOLD}`] : l.reasons,
    });
  }
  const candidates = ranked.map((l) => toCandidate(l, all.indexOf(l)));
  const none = (verdict: string): LinkChoice => ({ explanation: { answer: undefined, verdict, candidates, rejected }, scored: all });
  const best = ranked[0];
  if (!best) {
    // Nothing stands out on its own: the one link that is not a known other kind is the answer when the email
    // (its subject), the link's own words or URL, or the caller's hint says what it is for.
    const groups = destinations(htmlFirst(scored.filter((l) => l.plausible)));
    const only = groups.length === 1 ? groups[0]?.reduce((a, b) => (b.score > a.score ? b : a)) : undefined;
    const intent = mailIntent(message.subject);
    const name = (action: string): string => (action === 'login' ? 'sign in' : action);
    // A sign-in word in the URL alone (accept, join, callback) is too weak to answer on.
    const own = only?.action && (only.saidInWords || only.action !== 'login') ? only.action : undefined;
    // The subject speaks for the one link left only when that link can be one-time (a page the same for
    // every reader, such as "/signup" in an "unknown account" notice, cannot), and only when the mail's
    // answer is not a code: a code mail's subject ("Your verification code") speaks of the code, and its
    // one other link ("Open your albums") is only the app.
    const subjectSpeaks = intent.action !== undefined && !own && only !== undefined && (isOpaque(only) || (only.raw.evidence.url !== undefined && unique(only.raw.evidence.url))) &&
      chooseCode(message).answer === undefined;
    const why = own
      ? `its own words or URL say ${name(own)}`
      : subjectSpeaks && intent.action
        ? `the subject asks to ${name(intent.action)}`
        : urlIncludes !== undefined ? `it is the only link whose URL includes ${String(urlIncludes)}` : undefined;
    if (only && why) {
      const reasons = [...only.reasons, `the only link that is not unsubscribe, privacy, help, social, home or view-in-browser, and ${why}`];
      return {
        explanation: {
          answer: only.raw.url,
          verdict: `chosen as the only plausible link: ${why}`,
          candidates: [{ ...toCandidate(only, all.indexOf(only), true), reasons }],
          rejected: rejected.filter((r) => r.value !== only.raw.url),
        },
        scored: all,
        chosen: only,
      };
    }
    return none(groups.length > 1
      ? `no link says verify, confirm, reset or sign in with enough evidence, and ${groups.length} links are equally plausible`
      : 'no link says verify, confirm, reset or sign in with enough evidence');
  }
  const margin = Math.max(LINK_WEIGHTS.rivalMarginMin, best.score * LINK_WEIGHTS.rivalMarginShare);
  const rival = ranked.slice(1).find((l) => l.score >= best.score - margin && !sameDestination(best, l));
  if (rival) return none(`ambiguous: ${rival.raw.url} (score ${rival.score}) is too close to ${best.raw.url} (score ${best.score})`);
  return {
    explanation: { answer: best.raw.url, verdict: `chosen with score ${best.score}: ${best.reasons.join('; ')}`, candidates, rejected },
    scored: all,
    chosen: best,
  };
}

/**
 * Explains {@link findVerificationLink}: every candidate link ranked best first with the reasons for its score,
 * the links that were thrown out, and the verdict.
 */
export function explainVerificationLink(msg: ExtractInput, hints?: LinkHints): Explanation<LinkCandidate> {
  return chooseLink(prepare(msg), hints).explanation;
}

/**
 * The one link a test should follow to verify an address, reset a password, sign in with a magic link or confirm
 * an email change. Never an unsubscribe, privacy, terms, help, social, logo or view-in-browser link.
 * Tracking wrappers are returned as they appear in the email (follow them as a user would).
 *
 * A link is chosen when its words (anchor text, button, or the sentence around a bare URL), its URL and a
 * one-time token single it out, or when it is the only link that is not a known other kind and the email's
 * subject says what it is for. A token is evidence, not a requirement: `http://localhost:3000/confirm?token=abc`
 * labelled "Confirm" is found.
 *
 * @param hints narrow the links before ranking, e.g. `{ urlIncludes: '/reset' }`.
 * @returns the URL, or `undefined` when there is no such link or two different links are equally likely.
 */
export function findVerificationLink(msg: ExtractInput, hints?: LinkHints): string | undefined {
  return explainVerificationLink(msg, hints).answer;
}
