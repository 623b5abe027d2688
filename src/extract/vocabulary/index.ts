// Owns extraction's vocabulary as a whole: every language's word lists (one module per language, listed in
// LANGUAGES), compiled once per role into one regular expression over all languages.
import { escapeRegExp, wordRegExp } from '../text-utils.js';
import type { Vocabulary } from './types.js';
import { ar } from './ar.js';
import { common } from './common.js';
import { cs } from './cs.js';
import { da } from './da.js';
import { de } from './de.js';
import { el } from './el.js';
import { en } from './en.js';
import { es } from './es.js';
import { fi } from './fi.js';
import { fr } from './fr.js';
import { he } from './he.js';
import { hi } from './hi.js';
import { hu } from './hu.js';
import { id } from './id.js';
import { it } from './it.js';
import { ja } from './ja.js';
import { ko } from './ko.js';
import { nb } from './nb.js';
import { nl } from './nl.js';
import { pl } from './pl.js';
import { pt } from './pt.js';
import { ru } from './ru.js';
import { sv } from './sv.js';
import { th } from './th.js';
import { tr } from './tr.js';
import { uk } from './uk.js';
import { vi } from './vi.js';
import { zh } from './zh.js';

export type { Vocabulary } from './types.js';

/** One language's module: its code (ISO 639-1, or `common` for words of no one language) and its words. */
export interface Language {
  readonly code: string;
  readonly words: Vocabulary;
}

/** Every language module, in the fixed order their words are compiled in. */
export const LANGUAGES: readonly Language[] = [
  { code: 'en', words: en }, { code: 'de', words: de }, { code: 'fr', words: fr }, { code: 'es', words: es },
  { code: 'pt', words: pt }, { code: 'it', words: it }, { code: 'nl', words: nl }, { code: 'pl', words: pl },
  { code: 'ru', words: ru }, { code: 'uk', words: uk }, { code: 'sv', words: sv }, { code: 'da', words: da },
  { code: 'nb', words: nb }, { code: 'fi', words: fi }, { code: 'tr', words: tr }, { code: 'cs', words: cs },
  { code: 'hu', words: hu }, { code: 'el', words: el }, { code: 'id', words: id }, { code: 'vi', words: vi },
  { code: 'ja', words: ja }, { code: 'zh', words: zh }, { code: 'ko', words: ko }, { code: 'th', words: th },
  { code: 'ar', words: ar }, { code: 'he', words: he }, { code: 'hi', words: hi }, { code: 'common', words: common },
];

/** One role's words: the union over {@link LANGUAGES}, in their order. */
function wordsOf(role: keyof Vocabulary): string[] {
  return [...new Set(LANGUAGES.flatMap((language) => language.words[role] ?? []))];
}

/** Compiles one role's words with {@link wordRegExp}. */
function compile(role: keyof Vocabulary): RegExp {
  return wordRegExp(wordsOf(role));
}

/** One role's words escaped and joined as regular-expression alternatives, for the lists matched verbatim. */
function alternatives(role: keyof Vocabulary): string {
  return wordsOf(role).map(escapeRegExp).join('|');
}

// ---------------------------------------------------------------------------------------------
// Link actions (anchor text, text around a link)
// ---------------------------------------------------------------------------------------------

/** Confirm-an-address / activate-an-account actions. */
export const VERIFY_ACTION = compile('verify');

/** Password reset / set-a-password actions. */
export const RESET_ACTION = compile('reset');

/** Sign-in actions. Weaker: a plain "Log in" link to a login page is not a one-time link. */
export const LOGIN_ACTION = compile('login');

/** Vague call-to-action words that only count together with other evidence. */
export const WEAK_ACTION = compile('weakAction');

/** Actions that undo or refuse something: never the link to follow. */
export const NEGATIVE_ACTION = compile('negativeAction');

/** Conditions that put the link next to them in the "it wasn't me" branch of an email. */
export const NOT_ME_CONTEXT = compile('notMe');

/** Sentences about the mail, not a link: "please ignore this email", "no further action is required". */
export const DISCLAIMER_WORDS = compile('disclaimer');

/** Words that point at the link that follows: "the link below", "the following link". */
export const POINTER_WORDS = compile('pointer');

/** Words of advice ("we recommend"): a link offered as advice in a notice is not the answer. */
export const ADVICE_WORDS = compile('advice');

// ---------------------------------------------------------------------------------------------
// Link kinds that are never the verification link
// ---------------------------------------------------------------------------------------------

/** Link text of unsubscribe links (never the verification link). */
export const UNSUBSCRIBE_WORDS = compile('unsubscribe');

/** Link text of subscription and notification preference links (never the verification link). */
export const PREFERENCES_WORDS = compile('preferences');

/** Link text of privacy and cookie policy links (never the verification link). */
export const PRIVACY_WORDS = compile('privacy');

/** Link text of terms, conditions and legal notice links (never the verification link). */
export const TERMS_WORDS = compile('terms');

/** Link text of help, support and contact links (never the verification link). */
export const HELP_WORDS = compile('help');

/** Link text of "view this email in your browser" links (never the verification link). */
export const VIEW_IN_BROWSER_WORDS = compile('viewInBrowser');

/** Link text of social network links (never the verification link). */
export const SOCIAL_WORDS = compile('social');

/** Link text of app store badges (never the verification link). */
export const APP_STORE_WORDS = compile('appStore');

// ---------------------------------------------------------------------------------------------
// Codes
// ---------------------------------------------------------------------------------------------

/** Words that announce a one-time code. Compounds ending in "code" count (`Bestätigungscode`). */
export const CODE_WORDS = compile('code');

/** Phrases with a code word that are not one-time codes. */
export const FAKE_CODE_WORDS = compile('fakeCode');

/** Verbs that ask the reader to type what follows ("enter 482913"). */
export const ENTER_WORDS = compile('enter');

/** Code phrases that mean a booking reference in emails about bookings and trips. */
export const BOOKING_CODE_WORDS = compile('bookingCode');

/** Words of bookings and trips. */
export const BOOKING_WORDS = compile('booking');

/** Labels that make the number next to them an identifier, an amount or a phone number. */
export const NON_CODE_LABELS = compile('nonCodeLabel');

/** Words that place a number in a meeting invitation (meeting ids, dial-in numbers, meeting passcodes). */
export const MEETING_WORDS = compile('meeting');

/** Line-level words of promotions: a "code" on such a line is a discount code. */
export const PROMO_WORDS = compile('promo');

/** Words of postal addresses: numbers on such a line are house numbers and postal codes. */
export const ADDRESS_WORDS = compile('address');

/** Units after a number that make it a duration, a time or a quantity. */
export const UNIT_AFTER = compile('unitAfter');

/** Currency codes and symbols (before or after an amount): one regular expression, not a word list. */
export const CURRENCY = /(?:[$€£¥₹₽₩¢₺₴₪฿]|\b(?:usd|eur|gbp|chf|jpy|cny|rmb|rub|pln|sek|nok|dkk|czk|huf|brl|mxn|cad|aud|inr|krw|zł|zl|kr|руб|грн|р\.)\b|円|元|원)/iu;

/** Month names (a number right after one is part of a date). */
export const MONTHS = compile('months');

// ---------------------------------------------------------------------------------------------
// Lists matched verbatim (no wildcards, no accent folding)
// ---------------------------------------------------------------------------------------------

/** Past-tense notices: the subject says it was done, not that the reader should do it. */
export const DONE_NOTICE = new RegExp(`\\b(?:${alternatives('doneNotice')})\\b`, 'i');

/** Nouns that confirm a purchase ("Booking confirmation"): tested against the whole action word found. */
export const CONFIRMATION_NOUN = new RegExp(`^(?:${alternatives('confirmationNoun')})$`, 'i');

/** Words that name an address or an account in a subject, anywhere (also inside longer words). */
export const ACCOUNT_WORDS = new RegExp(alternatives('account'), 'i');

/** Words that add nothing to a call to action ("Continue to the app"), to remove (global). */
export const FILLER_WORDS = new RegExp(`\\b(?:${alternatives('filler')})\\b`, 'gi');

/** Words that join a code's label to the code ("your code is 482913"), as alternatives for a larger pattern. */
export const COPULA = alternatives('copula');
