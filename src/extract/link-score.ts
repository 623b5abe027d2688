// Owns scoring each link as "the link a test should follow": action words, URL shape, one-time token, button styling.
import { collectLinks, isUrlText } from './link-collect.js';
import type { RawLink } from './link-collect.js';
import { classifyLink, clip } from './link-kind.js';
import type { KindVerdict } from './link-kind.js';
import type { PreparedMessage } from './message.js';
import type { LinkKind } from './types.js';
import { urlEvidence } from './url-evidence.js';
import { firstWord, hasWord } from './text-utils.js';
import { LOGIN_ACTION, NEGATIVE_ACTION, NOT_ME_CONTEXT, RESET_ACTION, VERIFY_ACTION, WEAK_ACTION } from './vocabulary.js';

/** A link's score needs to reach this to be a candidate at all. */
export const LINK_THRESHOLD = 6;

/** Kinds that are never the verification link. */
const NEVER: ReadonlySet<LinkKind> = new Set([
  'unsubscribe', 'preferences', 'privacy', 'terms', 'help', 'social', 'app-store', 'logo', 'view-in-browser', 'contact',
]);

type Action = 'verify' | 'reset' | 'login';

const URL_VERIFY = /(verif|confirm|activat|validat|approv|optin|opt-in|bestaetig|bestatig|aktivier|freischalt|confirmar|conferma|attiva|ativar|activar|bevestig|potwierdz|aktywuj|aktywac|podtver|onayla|dogrula|vahvist|bekraft|emailchange|changeemail|change-email|email-change|updateemail)/;
const URL_RESET = /(reset|password|passwd|recover|forgot|setpassword|newpassword|passwort|kennwort|wachtwoord|haslo|contrasena|senha|motdepasse)/;
const URL_LOGIN = /^(login|signin|sign|logon|auth|authenticate|authentication|authorize|magic|magiclink|sso|callback|passwordless|session|sessions|otp|onetime|token|tokens|invite|invitation|invitations|accept|join)$/;
const URL_NEGATIVE = /^(revert|undo|cancel|decline|deny|reject|report|block|lock|disavow|notme|remove|delete|unsubscribe|optout|abuse|wasntme|not)$/;

/** A link with its score and the reasons behind it. */
export interface ScoredLink {
  raw: RawLink;
  kind: KindVerdict;
  /** Whether the link may be chosen at all. */
  eligible: boolean;
  score: number;
  reasons: string[];
  /** The action the link performs, when one was recognised. */
  action?: Action;
}

function actionOf(text: string): { action: Action; word: string } | undefined {
  const verify = firstWord(VERIFY_ACTION, text);
  if (verify) return { action: 'verify', word: verify };
  const reset = firstWord(RESET_ACTION, text);
  if (reset) return { action: 'reset', word: reset };
  const login = firstWord(LOGIN_ACTION, text);
  if (login) return { action: 'login', word: login };
  return undefined;
}

function urlActionOf(words: string[]): { action: Action; word: string } | undefined {
  const verify = words.find((w) => URL_VERIFY.test(w));
  if (verify) return { action: 'verify', word: verify };
  if (words.includes('email') && (words.includes('change') || words.includes('update'))) return { action: 'verify', word: 'email change' };
  const reset = words.find((w) => URL_RESET.test(w));
  if (reset) return { action: 'reset', word: reset };
  const login = words.find((w) => URL_LOGIN.test(w));
  if (login) return { action: 'login', word: login };
  return undefined;
}

const TEXT_POINTS: Record<Action, number> = { verify: 6, reset: 6, login: 4 };
const CONTEXT_POINTS: Record<Action, number> = { verify: 3, reset: 3, login: 2 };
const URL_POINTS: Record<Action, number> = { verify: 4, reset: 4, login: 2 };

function scoreOne(raw: RawLink, kind: KindVerdict, loginIntent: boolean): ScoredLink {
  const reasons = [...kind.reasons];
  const { evidence } = raw;
  const done = (eligible: boolean, score: number, action?: Action): ScoredLink =>
    action ? { raw, kind, eligible, score, reasons, action } : { raw, kind, eligible, score, reasons };

  if (NEVER.has(kind.kind)) {
    reasons.push(`${kind.kind} links are never the verification link`);
    return done(false, 0);
  }
  if (!evidence.url) {
    reasons.push('not an http(s) link');
    return done(false, 0);
  }
  if (evidence.home) {
    reasons.push('points at a home page');
    return done(false, 0);
  }

  let score = 0;
  const texts = raw.texts.filter((t) => !isUrlText(t));
  const textLabel = raw.source === 'html' ? 'anchor text' : 'text before the URL';

  // What the link says.
  let textAction: Action | undefined;
  let best = 0;
  for (const text of texts) {
    const negative = firstWord(NEGATIVE_ACTION, text);
    if (negative) {
      reasons.push(`${textLabel} "${clip(text)}" says "${negative}" (-10)`);
      score -= 10;
      break;
    }
    const found = actionOf(text);
    const points = found ? (raw.source === 'html' ? TEXT_POINTS[found.action] : TEXT_POINTS[found.action] - 1) : 0;
    if (found && points > best) {
      best = points;
      textAction = found.action;
      reasons.push(`${textLabel} "${clip(text)}" says "${found.word}" (+${points})`);
    }
  }
  score += best;
  if (!textAction && texts.some((t) => hasWord(WEAK_ACTION, t))) {
    score += 1;
    reasons.push('anchor text is a generic call to action (+1)');
  }

  // What the words around it say.
  const notMe = raw.contexts.filter((c) => c.inline).map((c) => firstWord(NOT_ME_CONTEXT, c.text)).find(Boolean);
  if (notMe) {
    score -= 10;
    reasons.push(`the sentence around it says "${notMe}": a link for when it was not you (-10)`);
  }
  let contextAction: Action | undefined;
  const generic = texts.length === 0 || texts.every((t) => hasWord(WEAK_ACTION, t));
  if (!textAction && generic) {
    for (const context of raw.contexts) {
      const found = actionOf(context.text);
      if (found) {
        contextAction = found.action;
        score += CONTEXT_POINTS[found.action];
        reasons.push(`text around the link says "${found.word}" (+${CONTEXT_POINTS[found.action]})`);
        break;
      }
    }
  }

  // What the URL says. A tracker hides it, but a "copy this link" anchor may show it.
  const shownText = evidence.wrapper.tracked && !evidence.wrapper.target ? raw.texts.find(isUrlText) : undefined;
  const shown = shownText ? urlEvidence(shownText.startsWith('www.') ? `https://${shownText}` : shownText) : undefined;
  const urlFound = urlActionOf([...evidence.words, ...(shown?.words ?? [])]);
  if (urlFound) {
    score += URL_POINTS[urlFound.action];
    reasons.push(`URL says "${urlFound.word}" (+${URL_POINTS[urlFound.action]})`);
  }
  const negativeUrl = evidence.words.find((w) => URL_NEGATIVE.test(w));
  if (negativeUrl) {
    score -= 8;
    reasons.push(`URL says "${negativeUrl}" (-8)`);
  }
  if (evidence.wrapper.tracked) {
    reasons.push(evidence.wrapper.target ? `${evidence.wrapper.reason ?? 'tracked link'}; destination ${clip(evidence.wrapper.target, 80)}` : `${evidence.wrapper.reason ?? 'tracked link'}; destination hidden`);
  }
  const opaque = evidence.wrapper.tracked && !evidence.wrapper.target;
  if (evidence.token) {
    score += 3;
    reasons.push(`${evidence.token} (+3)`);
  } else if (opaque && shown?.token) {
    score += 3;
    reasons.push(`the URL shown as anchor text carries a token: ${shown.token} (+3)`);
  } else if (opaque) {
    score += 1;
    reasons.push('destination hidden by the tracker, a token may be inside (+1)');
  } else {
    reasons.push('no one-time token in the URL: links to follow carry one');
    return done(false, score);
  }
  if (raw.button) {
    score += 2;
    reasons.push(`styled as a button: ${raw.buttonReason ?? 'button'} (+2)`);
  }

  if (!textAction && !generic) {
    score -= 4;
    reasons.push('the anchor text names something else (-4)');
  }
  const action = textAction ?? contextAction ?? urlFound?.action;
  if (!action) {
    reasons.push('nothing says verify, confirm, reset or sign in');
    return done(false, score);
  }
  const strong = [textAction, contextAction, urlFound?.action].some((a) => a === 'verify' || a === 'reset');
  if (!strong && !evidence.token && !shown?.token && !(opaque && loginIntent)) {
    reasons.push('a plain sign-in link without a one-time token');
    return done(false, score, action);
  }
  if (raw.image && texts.length === 0 && !urlFound) {
    reasons.push('an image without words');
    return done(false, score, action);
  }
  return done(true, score, action);
}

/** Scores every link of the message (document order). */
export function scoreLinks(message: PreparedMessage): ScoredLink[] {
  const loginIntent = hasWord(LOGIN_ACTION, message.subject) || /magic|sign[- ]?in|log[- ]?in/i.test(message.subject);
  return collectLinks(message).map((raw) => scoreOne(raw, classifyLink(raw), loginIntent));
}

/** Whether a scored link is a verification candidate. */
export function isCandidate(link: ScoredLink): boolean {
  return link.eligible && link.score >= LINK_THRESHOLD;
}
