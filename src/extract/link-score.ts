// Owns scoring each link as "the link a test should follow": action words, URL shape, one-time token, button styling.
import { collectLinks, isUrlText } from './link-collect.js';
import type { RawLink } from './link-collect.js';
import { classifyLink, clip } from './link-kind.js';
import type { KindVerdict } from './link-kind.js';
import type { PreparedMessage } from './message.js';
import type { ExtractedLink, LinkKind } from './types.js';
import { urlEvidence } from './url-evidence.js';
import { firstWord, hasWord, sentences } from './text-utils.js';
import {
  ACCOUNT_WORDS, ADVICE_WORDS, CONFIRMATION_NOUN, DISCLAIMER_WORDS, DONE_NOTICE, FILLER_WORDS, LOGIN_ACTION, NEGATIVE_ACTION, NOT_ME_CONTEXT, POINTER_WORDS, RESET_ACTION,
  VERIFY_ACTION, WEAK_ACTION,
} from './vocabulary/index.js';
import { LINK_WEIGHTS as W } from './weights.js';

/** A link's score needs to reach this to be a candidate at all. */
export const LINK_THRESHOLD = W.threshold;

/** Kinds that are never the verification link. */
const NEVER: ReadonlySet<LinkKind> = new Set([
  'unsubscribe', 'preferences', 'privacy', 'terms', 'help', 'social', 'app-store', 'logo', 'view-in-browser', 'contact',
]);

type Action = 'verify' | 'reset' | 'login';

const URL_VERIFY = /(magic|verif|confirm|activat|validat|approv|optin|opt-in|bestaetig|bestatig|aktivier|freischalt|confirmar|conferma|attiva|ativar|activar|bevestig|potwierdz|aktywuj|aktywac|podtver|onayla|dogrula|vahvist|bekraft|emailchange|changeemail|change-email|email-change|updateemail)/;
const URL_RESET = /(reset|password|passwd|recover|forgot|setpassword|newpassword|passwort|kennwort|wachtwoord|haslo|contrasena|senha|motdepasse)/;
const URL_LOGIN = /^(login|signin|sign|logon|auth|authenticate|authentication|authorize|magic|magiclink|sso|callback|passwordless|session|sessions|otp|onetime|token|tokens|invite|invites|invitation|invitations|accept|join|unlock)$/;
const URL_NEGATIVE = /^(revert|undo|cancel|decline|deny|reject|report|block|lock|disavow|notme|remove|delete|unsubscribe|optout|abuse|wasntme|not|recoveremail|revertemail|revertsecondfactoraddition)$/;

/** A link with its score and the reasons behind it. */
export interface ScoredLink {
  raw: RawLink;
  kind: KindVerdict;
  /** Whether the link may be chosen on its own evidence. */
  eligible: boolean;
  /**
   * Whether the link could be the one to follow at all: a web link that is not a known other
   * kind (unsubscribe, privacy, help, social, home, …), with nothing against it.
   */
  plausible: boolean;
  score: number;
  reasons: string[];
  /** The action the link performs, when one was recognised. */
  action?: Action;
  /** Whether words (anchor text, the sentence around it) name the action, not only the URL. */
  saidInWords?: boolean;
}

/** Phrases that use a reset or sign-in word for something else ("View recovery codes"). */
const NOT_AN_ACTION = /\b(recovery|backup)\s*codes?\b/i;

/**
 * The not-me words of the first sentence that offers something for the case the reader did not ask
 * ("If this wasn't you, secure your account here"). A sentence that tells the reader to ignore the
 * mail ("If you did not request this, please ignore this email") is a disclaimer about the mail, not
 * an offer: it says nothing of the link beside it.
 */
function notMeOffer(text: string, words: RegExp = NOT_ME_CONTEXT): string | undefined {
  for (const sentence of sentences(text)) {
    const found = firstWord(words, sentence);
    if (found && !hasWord(DISCLAIMER_WORDS, sentence)) return found;
  }
  return undefined;
}

/** Whether a text is only a call to action ("Click here", "Continue to App"): at most one word besides the generic ones. */
function isGeneric(text: string): boolean {
  if (!hasWord(WEAK_ACTION, text)) return false;
  const rest = text.replace(WEAK_ACTION, ' ').replace(FILLER_WORDS, ' ');
  return rest.split(/[^\p{L}\p{N}]+/u).filter(Boolean).length <= 1;
}

function actionOf(text: string): { action: Action; word: string } | undefined {
  if (NOT_AN_ACTION.test(text)) return undefined;
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
  const codes = words.includes('codes') || words.includes('code');
  const reset = words.find((w) => URL_RESET.test(w) && !(codes && /^(recovery|backup)$/.test(w)));
  if (reset) return { action: 'reset', word: reset };
  const login = words.find((w) => URL_LOGIN.test(w));
  if (login) return { action: 'login', word: login };
  return undefined;
}

const TEXT_POINTS: Record<Action, number> = { verify: W.textVerify, reset: W.textReset, login: W.textLogin };
const CONTEXT_POINTS: Record<Action, number> = { verify: W.contextVerify, reset: W.contextReset, login: W.contextLogin };
const URL_POINTS: Record<Action, number> = { verify: W.urlVerify, reset: W.urlReset, login: W.urlLogin };

/** Query or fragment parameters that only steer navigation: they carry nothing one-time. */
const NAVIGATION_PARAM = /^(next|redirect|redirect_?(to|uri|url)|return|return_?(to|url)|returnto|continue|back|lang|locale|hl|from|source|src|ref|view|tab|page|mode)$/i;

/** Whether a sign-in URL carries a value of its own (a parameter, a fragment or an id after the action), not just a page. */
function carriesValue(url: URL): boolean {
  const params = [...url.searchParams, ...(url.hash.includes('=') ? [...new URLSearchParams(url.hash.slice(1))] : [])];
  if (params.some(([name, value]) => value !== '' && !NAVIGATION_PARAM.test(name) && !/^utm_/i.test(name) && !/^https?:/i.test(value))) return true;
  if (url.hash.length > 2 && !url.hash.includes('=') && !url.hash.startsWith('#/')) return true;
  const segments = url.pathname.split('/').filter(Boolean);
  const at = segments.findIndex((segment) => URL_LOGIN.test(segment.toLowerCase()));
  return at >= 0 && segments.slice(at + 1).some((segment) => /\d/.test(segment));
}

/** Whether a URL holds anything that can tell one reader from another: a parameter value, a fragment, a path segment with a digit or a long one. */
export function unique(url: URL): boolean {
  const params = [...url.searchParams].filter(([name, value]) => value !== '' && !/^utm_/i.test(name));
  if (params.length > 0 || url.hash.length > 2) return true;
  return url.pathname.split('/').some((segment) => /\d/.test(segment) || segment.length >= 16);
}

/** What the email as a whole asks for, read from its subject. */
export interface MailIntent {
  /** The subject asks to verify, confirm, reset or sign in (not a notice that it was done). */
  action?: Action;
  /** The subject mentions signing in or a magic link at all. */
  login: boolean;
}

function scoreOne(raw: RawLink, kind: KindVerdict, intent: MailIntent): ScoredLink {
  const reasons = [...kind.reasons];
  const { evidence } = raw;
  let plausible = true;
  let saidInWords = false;
  const done = (eligible: boolean, score: number, action?: Action): ScoredLink => {
    const link: ScoredLink = { raw, kind, eligible, plausible: plausible && score >= 0, score, reasons };
    if (action) link.action = action;
    if (saidInWords) link.saidInWords = true;
    return link;
  };

  if (NEVER.has(kind.kind)) {
    reasons.push(`${kind.kind} links are never the verification link`);
    plausible = false;
    return done(false, 0);
  }
  if (!evidence.url) {
    reasons.push('not an http(s) link');
    plausible = false;
    return done(false, 0);
  }
  if (evidence.home) {
    reasons.push('points at a home page');
    plausible = false;
    return done(false, 0);
  }

  let score = 0;
  const texts = raw.texts.filter((t) => !isUrlText(t));
  const textLabel = raw.bare ? 'the words before the URL' : 'anchor text';
  // A URL in running text is labelled by its whole sentence: the words before it and after it.
  const sentence = raw.bare ? raw.contexts.filter((c) => c.inline).map((c) => c.text) : [];

  // What the link says.
  let textAction: Action | undefined;
  let best = 0;
  for (const [i, text] of [...texts, ...sentence].entries()) {
    const label = i < texts.length ? textLabel : 'the rest of its sentence';
    const negative = i < texts.length ? firstWord(NEGATIVE_ACTION, text) : notMeOffer(text, NEGATIVE_ACTION);
    if (negative) {
      reasons.push(`${label} "${clip(text)}" says "${negative}" (${W.negativeText})`);
      score += W.negativeText;
      plausible = false;
      break;
    }
    // A question ("Confirm the rumour?") is a headline, not a call to action.
    const found = /[?？]\s*$/.test(text) ? undefined : actionOf(text);
    const points = found ? (raw.bare ? TEXT_POINTS[found.action] - W.bareTextDiscount : TEXT_POINTS[found.action]) : 0;
    if (found && points > best) {
      best = points;
      textAction = found.action;
      reasons.push(`${label} "${clip(text)}" says "${found.word}" (+${points})`);
    }
  }
  score += best;
  if (!textAction && texts.some((t) => hasWord(WEAK_ACTION, t))) {
    score += W.genericCallToAction;
    reasons.push(`anchor text is a generic call to action (+${W.genericCallToAction})`);
  }

  // What the words around it say.
  // Its sentence, or the block right before a lone button ("If this wasn't you, reset your password." [Reset]).
  const notMe = raw.contexts.map((c) => notMeOffer(c.text)).find(Boolean);
  if (notMe) {
    score += W.notMeOffer;
    plausible = false;
    reasons.push(`the sentence around it says "${notMe}": a link for when it was not you (${W.notMeOffer})`);
  }
  let contextAction: Action | undefined;
  // A link introduced by the block before it ("Begin with the link below." [Link to account update]) does
  // what that block says, whatever its own words, when its URL carries a token or names an action.
  const introduced = !textAction && raw.contexts.some((c) => !c.inline && hasWord(POINTER_WORDS, c.text)) &&
    (evidence.token !== undefined || urlActionOf(evidence.words) !== undefined);
  if (introduced) reasons.push('introduced by the words before it ("the link below")');
  const generic = texts.length === 0 || texts.every(isGeneric) || (raw.bare && textAction !== undefined) || introduced;
  if (!textAction && generic) {
    for (const context of raw.contexts) {
      // "Your account has been activated. You can now log in.": a sentence that reports what was done
      // does not ask for it.
      const found = sentences(context.text).filter((s) => !DONE_NOTICE.test(s)).map(actionOf).find(Boolean);
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
    score += W.negativeUrl;
    plausible = false;
    reasons.push(`URL says "${negativeUrl}" (${W.negativeUrl})`);
  }
  if (evidence.wrapper.tracked) {
    reasons.push(evidence.wrapper.target ? `${evidence.wrapper.reason ?? 'tracked link'}; destination ${clip(evidence.wrapper.target, 80)}` : `${evidence.wrapper.reason ?? 'tracked link'}; destination hidden`);
  }
  const opaque = evidence.wrapper.tracked && !evidence.wrapper.target;
  if (evidence.token) {
    score += W.token;
    reasons.push(`${evidence.token} (+${W.token})`);
  } else if (opaque && shown?.token) {
    score += W.token;
    reasons.push(`the URL shown as anchor text carries a token: ${shown.token} (+${W.token})`);
  } else if (opaque) {
    score += W.hiddenDestination;
    reasons.push(`destination hidden by the tracker, a token may be inside (+${W.hiddenDestination})`);
  }
  if (raw.button) {
    score += W.button;
    reasons.push(`styled as a button: ${raw.buttonReason ?? 'button'} (+${W.button})`);
  }

  // Anchor texts that are the action in other words ("Link to account update", "Accept Invite" on a token
  // URL): when the subject asks for the very action the URL performs with a one-time token, the anchor's
  // words are read as that action, not as something else.
  const saidByMail = !textAction && !generic && urlFound !== undefined && urlFound.action === intent.action && (evidence.token !== undefined || shown?.token !== undefined);
  if (saidByMail) {
    reasons.push(`the subject asks to ${intent.action === 'login' ? 'sign in' : intent.action}, as the URL does`);
  } else if (!textAction && !generic) {
    score += W.namesSomethingElse;
    plausible = false;
    reasons.push(`${raw.bare ? 'the words before the URL name' : 'the anchor text names'} something else (${W.namesSomethingElse})`);
  }
  if (!evidence.token && !opaque && DATED_PATH.test(evidence.wrapper.target ?? evidence.url.pathname)) {
    plausible = false;
    reasons.push('a dated article page, not a one-time link');
    return done(false, score);
  }
  if (raw.image && texts.length === 0 && !urlFound) {
    plausible = false;
    reasons.push('an image without words');
    return done(false, score);
  }
  const action = textAction ?? contextAction ?? urlFound?.action;
  saidInWords = textAction !== undefined || contextAction !== undefined;
  if (!action) {
    reasons.push('nothing says verify, confirm, reset or sign in');
    return done(false, score);
  }
  // "We recommend choosing a new password" in a mail that reports an event (a blocked sign-in, a
  // leaked password): advice after the fact, not what the reader asked for.
  const advice = !intent.action && [...texts, ...raw.contexts.map((c) => c.text)].some((t) => hasWord(ADVICE_WORDS, t));
  if (advice) {
    plausible = false;
    reasons.push('advice in a notice whose subject asks for nothing');
    return done(false, score, action);
  }
  const strong = [textAction, contextAction, urlFound?.action].some((a) => a === 'verify' || a === 'reset');
  const oneTime = evidence.token !== undefined || shown?.token !== undefined || (opaque && intent.login) || carriesValue(evidence.url);
  // A link that is the same for every reader ("/accounts/password/reset/" under "you can reset your password
  // here") cannot verify or reset anything by itself: notices point at such pages. It is the answer only
  // when the subject asks for that very action (a minimal app's "Verify your account" mail).
  if (!oneTime && !opaque && !unique(evidence.url) && intent.action !== action) {
    plausible = false;
    reasons.push('a page that is the same for every reader: no parameter, id or fragment in the URL');
    return done(false, score, action);
  }
  if (!strong && !oneTime) {
    plausible = false;
    reasons.push('a plain sign-in page: no token, parameter or id in the URL');
    return done(false, score, action);
  }
  return done(true, score, action);
}

/** Paths of dated pages (`/2025/03/03/slug`, `/articles/2025/03/…`): articles and posts. */
const DATED_PATH = /\/(19|20)\d\d\/((0?[1-9]|1[0-2])\/|(.+\/)?[\p{L}\d]+(-[\p{L}\d]+){2,}\/?$)/u;

/** What the subject asks the reader to do, if anything. */
export function mailIntent(subject: string): MailIntent {
  const login = hasWord(LOGIN_ACTION, subject) || /magic|sign[- ]?in|log[- ]?in/i.test(subject);
  let found = DONE_NOTICE.test(subject) || hasWord(NEGATIVE_ACTION, subject) ? undefined : actionOf(subject);
  // "Booking confirmation", "Order confirmation": the noun confirms a purchase unless an address or account is named.
  if (found && CONFIRMATION_NOUN.test(found.word) && !ACCOUNT_WORDS.test(subject)) found = undefined;
  return found ? { action: found.action, login } : { login };
}

/** Scores every link of the message (document order). */
export function scoreLinks(message: PreparedMessage): ScoredLink[] {
  const intent = mailIntent(message.subject);
  return collectLinks(message).map((raw) => scoreOne(raw, classifyLink(raw), intent));
}

/** Whether a scored link is a verification candidate. */
export function isCandidate(link: ScoredLink): boolean {
  return link.eligible && link.score >= LINK_THRESHOLD;
}

function bestText(link: ScoredLink): string {
  const words = link.raw.texts.filter((t) => !isUrlText(t));
  return words.sort((a, b) => b.length - a.length)[0] ?? link.raw.texts[0] ?? '';
}

/** Converts a scored link to the public shape. `position` is filled in by the caller's order. */
export function toExtractedLink(link: ScoredLink, position = -1, chosen = false): ExtractedLink {
  const out: ExtractedLink = {
    url: link.raw.url,
    text: bestText(link),
    source: link.raw.source,
    kind: chosen || isCandidate(link) ? 'verification' : link.kind.kind,
    button: link.raw.button,
    image: link.raw.image,
    position,
    context: link.raw.contexts[0]?.text ?? '',
  };
  if (link.raw.evidence.wrapper.target) out.target = link.raw.evidence.wrapper.target;
  return out;
}
