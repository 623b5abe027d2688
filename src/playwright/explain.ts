// Owns telling a test author why a matching message gave no verification link or code: the
// verdict of `mailwright/extract` and the best candidates it turned down, with their reasons.
import { explainCode, explainVerificationLink } from '../extract/index.js';
import type { Candidate, CodeHints, LinkHints } from '../extract/index.js';
import type { MailMessage } from './message.js';

/** How many turned-down candidates a timeout error lists per message. */
const SHOWN_CANDIDATES = 3;
/** Longest line of a reason list. */
const MAX_LINE = 220;

function clip(text: string, max = MAX_LINE): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function line(candidate: Candidate, label: string): string {
  // The last reasons are the deciding ones ("score below 6", "an amount of money").
  const reasons = candidate.reasons.slice(-3).join('; ');
  return clip(`${candidate.value} — ${label}: ${reasons || 'no evidence'}`);
}

/**
 * Why `message` holds no verification link or code as extraction sees it (with the caller's
 * hints): the verdict, then up to three candidates with the reasons they lost.
 */
export function explainMiss(target: 'verification link' | 'code', message: MailMessage, hints: LinkHints | CodeHints = {}): string[] {
  const explanation = target === 'code' ? explainCode(message.data, hints as CodeHints) : explainVerificationLink(message.data, hints as LinkHints);
  const lines = [clip(explanation.verdict)];
  // Close rivals first (an ambiguous answer), then what was turned down, best score first.
  const rivals = explanation.candidates.slice(0, SHOWN_CANDIDATES).map((c) => line(c, `candidate, score ${c.score}`));
  const rest = [...explanation.rejected]
    .sort((a, b) => b.score - a.score)
    .slice(0, Math.max(0, SHOWN_CANDIDATES - rivals.length))
    .map((c) => line(c, 'rejected'));
  return [...lines, ...rivals, ...rest];
}
