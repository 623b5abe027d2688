// Owns the shape of one language's vocabulary: the word lists by the role they play in extraction.

/**
 * The words of one language, one optional list per role. Word syntax is {@link wordRegExp}'s: a leading `*`
 * lets a word end a compound, a trailing `*` lets it take any ending, spaces match spaces or hyphens, and
 * words in Chinese, Japanese or Korean match anywhere. Lists are lower case; accents are folded when compiled.
 * The lists whose JSDoc says "matched verbatim" are not compiled that way: their words are escaped and used as
 * regular-expression alternatives as they are (no wildcards, no folding).
 *
 * @see {@link import('../text-utils.js').wordRegExp}
 */
export interface Vocabulary {
  /** Confirm-an-address / activate-an-account actions. Compiled into `VERIFY_ACTION`. */
  readonly verify?: readonly string[];
  /** Password reset / set-a-password actions. Compiled into `RESET_ACTION`. */
  readonly reset?: readonly string[];
  /**
   * Sign-in actions. Weaker: a plain "Log in" link to a login page is not a one-time link. Compiled into
   * `LOGIN_ACTION`.
   */
  readonly login?: readonly string[];
  /** Vague call-to-action words that only count together with other evidence. Compiled into `WEAK_ACTION`. */
  readonly weakAction?: readonly string[];
  /** Actions that undo or refuse something: never the link to follow. Compiled into `NEGATIVE_ACTION`. */
  readonly negativeAction?: readonly string[];
  /**
   * Conditions that put the link next to them in the "it wasn't me" branch of an email. Compiled into `NOT_ME_CONTEXT`.
   */
  readonly notMe?: readonly string[];
  /**
   * Words that tell the reader to ignore the mail or that nothing happens without them: a sentence with them
   * ("If you did not request this, please ignore this email") is a disclaimer about the mail, not a not-me link.
   * Compiled into `DISCLAIMER_WORDS`.
   */
  readonly disclaimer?: readonly string[];
  /**
   * Words that point at the link that follows ("Click on the link below to start this process"): the block with
   * them introduces the link, so what that block says is what the link does. Compiled into `POINTER_WORDS`.
   */
  readonly pointer?: readonly string[];
  /**
   * Words of advice ("we recommend", "we suggest"): a link offered as advice in a notice whose subject asks
   * for nothing (a blocked sign-in, a leaked password) is not the answer. Compiled into `ADVICE_WORDS`.
   */
  readonly advice?: readonly string[];
  /** Link text of unsubscribe links (never the verification link). Compiled into `UNSUBSCRIBE_WORDS`. */
  readonly unsubscribe?: readonly string[];
  /**
   * Link text of subscription and notification preference links (never the verification link). Compiled into
   * `PREFERENCES_WORDS`.
   */
  readonly preferences?: readonly string[];
  /** Link text of privacy and cookie policy links (never the verification link). Compiled into `PRIVACY_WORDS`. */
  readonly privacy?: readonly string[];
  /**
   * Link text of terms, conditions and legal notice links (never the verification link). Compiled into `TERMS_WORDS`.
   */
  readonly terms?: readonly string[];
  /** Link text of help, support and contact links (never the verification link). Compiled into `HELP_WORDS`. */
  readonly help?: readonly string[];
  /**
   * Link text of "view this email in your browser" links (never the verification link). Compiled into
   * `VIEW_IN_BROWSER_WORDS`.
   */
  readonly viewInBrowser?: readonly string[];
  /** Link text of social network links (never the verification link). Compiled into `SOCIAL_WORDS`. */
  readonly social?: readonly string[];
  /** Link text of app store badges (never the verification link). Compiled into `APP_STORE_WORDS`. */
  readonly appStore?: readonly string[];
  /**
   * Words that announce a one-time code. Compounds ending in "code" count (`Bestätigungscode`). Compiled into
   * `CODE_WORDS`.
   */
  readonly code?: readonly string[];
  /** Phrases with a code word that are not one-time codes. Compiled into `FAKE_CODE_WORDS`. */
  readonly fakeCode?: readonly string[];
  /** Verbs that ask the reader to type what follows ("enter 482913"). Compiled into `ENTER_WORDS`. */
  readonly enter?: readonly string[];
  /**
   * Code phrases that mean a booking reference in emails about bookings and trips. Compiled into `BOOKING_CODE_WORDS`.
   */
  readonly bookingCode?: readonly string[];
  /** Words of bookings and trips. Compiled into `BOOKING_WORDS`. */
  readonly booking?: readonly string[];
  /**
   * Labels that make the number next to them an identifier, an amount or a phone number. Compiled into
   * `NON_CODE_LABELS`.
   */
  readonly nonCodeLabel?: readonly string[];
  /**
   * Words that place a number in a meeting invitation (meeting ids, dial-in numbers, meeting passcodes). Compiled into
   * `MEETING_WORDS`.
   */
  readonly meeting?: readonly string[];
  /** Line-level words of promotions: a "code" on such a line is a discount code. Compiled into `PROMO_WORDS`. */
  readonly promo?: readonly string[];
  /**
   * Words of postal addresses: numbers on such a line are house numbers and postal codes. Compiled into
   * `ADDRESS_WORDS`.
   */
  readonly address?: readonly string[];
  /** Units after a number that make it a duration, a time or a quantity. Compiled into `UNIT_AFTER`. */
  readonly unitAfter?: readonly string[];
  /** Month names (a number right after one is part of a date). Compiled into `MONTHS`. */
  readonly months?: readonly string[];
  /**
   * Past-tense notices: the subject says it was done, not that the reader should do it. Matched verbatim as whole
   * words. Compiled into `DONE_NOTICE`.
   */
  readonly doneNotice?: readonly string[];
  /**
   * Nouns that confirm a purchase ("Booking confirmation") unless the subject names an address or an account. Matched
   * verbatim against the whole action word. Compiled into `CONFIRMATION_NOUN`.
   */
  readonly confirmationNoun?: readonly string[];
  /**
   * Words that name an address or an account in a subject. Matched verbatim anywhere, also inside longer words.
   * Compiled into `ACCOUNT_WORDS`.
   */
  readonly account?: readonly string[];
  /**
   * Words that add nothing to a call to action ("Continue to the app"). Matched verbatim as whole words. Compiled into
   * `FILLER_WORDS`.
   */
  readonly filler?: readonly string[];
  /**
   * Words that join a code's label to the code ("your code is 482913"). Matched verbatim, with only punctuation between
   * it, the label and the code. Compiled into `COPULA`.
   */
  readonly copula?: readonly string[];
}
