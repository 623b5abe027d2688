// Owns every evidence weight and threshold of extraction: one table of data that the link and code
// scorers read. Each row says which class of mail it serves; change a row only with samples of that
// class in fixtures/emails (two of the class and a negative twin), and check both corpus parts.

/** Points and limits for choosing the verification link. */
export const LINK_WEIGHTS = {
  /** The score a link needs to be a candidate at all (every class: one strong word plus one more sign). */
  threshold: 6,
  /** Anchor text or button says verify / confirm / activate: account verification and e-mail change mails. */
  textVerify: 6,
  /** Anchor text or button says reset / set a new password: password reset mails. */
  textReset: 6,
  /** Anchor text says sign in / accept the invitation: magic-link and invitation mails (weaker: plain "Log in" links exist everywhere). */
  textLogin: 4,
  /** Discount for the words before a bare URL: a label in running text may describe a page rather than the action (text-only mails). */
  bareTextDiscount: 1,
  /** A generic call to action ("Click here", "Continue"): buttons whose action is said around them. */
  genericCallToAction: 1,
  /** The sentence or block around a generic link says verify: "Click below to verify your email" [Continue]. */
  contextVerify: 3,
  /** The sentence or block around a generic link says reset: "Reset your password with the link below". */
  contextReset: 3,
  /** The sentence or block around a generic link says sign in: magic-link mails with a "Click here" anchor. */
  contextLogin: 2,
  /** The URL's words say verify / confirm: framework routes (`/confirmation`, `/verify-email`). */
  urlVerify: 4,
  /** The URL's words say reset / password: framework routes (`/password/reset`, `/reset/<uid>/<token>`). */
  urlReset: 4,
  /** The URL's words say sign in / invite / callback: magic-link and invitation routes. */
  urlLogin: 2,
  /** The URL carries a one-time token (long random value, JWT, UUID, signed parameters): every one-time-link mail. */
  token: 3,
  /** A tracker hides the destination, so a token may be inside: ESP-tracked verify mails (SendGrid, Mailgun, SES). */
  hiddenDestination: 1,
  /** Styled as a button: the mail's main action in HTML mails. */
  button: 2,
  /** Anchor text or the URL's sentence says undo / cancel / report / "not me": the negative link of security notices. */
  negativeText: -10,
  /** A not-me sentence that offers the link for that case ("If this wasn't you, secure your account here"). */
  notMeOffer: -10,
  /** The URL's words say cancel / revert / report / unsubscribe: the negative link of security notices and lists. */
  negativeUrl: -8,
  /** Anchor text names something else ("View order", "Read the article"): newsletters and notifications. */
  namesSomethingElse: -4,
  /** A rival within max(this, a share of the best score) makes the answer ambiguous: mails with two competing actions. */
  rivalMarginMin: 3,
  /** The share of the best score within which a rival makes the answer ambiguous. */
  rivalMarginShare: 0.25,
} as const;

/** Points for a one-time code, read from the words around one sighting. */
export const CODE_WEIGHTS = {
  /** A code needs at least this score (every code mail: a code word and one more sign). */
  threshold: 5,
  /** The runner-up must trail the best code by more than this, or the answer is ambiguous (mails with two numbers labelled alike). */
  margin: 2,
  /** "@example.com #123456": the WebOTP origin-bound format of SMS-style code mails. */
  originBound: 7,
  /** A code word labels it directly ("Your code is 123456", "Code: 123456"): most code mails. */
  labelled: 7,
  /** A code word just before it, within 30 characters ("code for Shop below 123456"). */
  codeWordNear: 5,
  /** A code word further back on the same line. */
  codeWordFar: 4,
  /** A code word earlier in the sentence, before other words that label nothing. */
  codeWordEarlierDirect: 5,
  /** A code word earlier in the sentence, with other words between. */
  codeWordEarlier: 3,
  /** A code word right after it ("482913 is your code"): code-first mails. */
  codeWordAfterNear: 5,
  /** A code word later on its line. */
  codeWordAfterFar: 3,
  /** A code word after it as well as before it. */
  codeWordBothSides: 1,
  /** The line before ends with a code word and the code stands on a line of its own ("Your code:\n\n482913"). */
  previousLineLabel: 5,
  /** The code word is two lines up. */
  previousLineLabelFar: 4,
  /** A code word on the line before, with the code inside a sentence. */
  previousLineMention: 2,
  /** A line of its own followed by a line with a code word ("482913\nThis is your code"). */
  nextLineLabel: 3,
  /** Asks to enter / type / use it ("Enter 482913 in the app"): codes without a code word. */
  enterVerb: 3,
  /** … and says what for ("Use 5546 to confirm your email"). */
  enterPurpose: 2,
  /** Alone on its line: codes shown as the mail's main content. */
  alone: 2,
  /** Six digits, the most common code length. */
  sixDigits: 1,
  /** Characters spaced out one by one ("4 8 2 9 1 3"): codes shown letter-spaced in text parts. */
  spacedOut: 1,
  /** Letters only or mixed case: less likely a code than digits. */
  lettersOrMixedCase: -1,
  /** Seen in more than one part (text and HTML, or subject and body). */
  severalParts: 0.5,
  /** The subject and the body show the same number: "123456 is your code" subjects. */
  subjectRepeats: 5,
  /** A number alone on its line in a mail whose subject asks to verify or sign in ("Log in with this:\n\n3817"). */
  aloneInIntentMail: 3,
  /** The mail talks about a code somewhere, though not next to this value. */
  mailTalksAboutCode: 1,
  /** Elsewhere the same value is a date, a price or an order number. */
  rejectedElsewhere: -3,
  /** Prominence at which a value styled like a code needs no code word in the mail at all. */
  styledWithoutWords: 5,
  /** Prominence a value needs when no code word is near it. */
  prominentWithoutWords: 3,
} as const;

/** Points for how prominently the HTML shows a value (code mails with the code in a big box). */
export const PROMINENCE_WEIGHTS = {
  /** Font of 20 px or more. */
  largeFont: 3,
  largeFontPx: 20,
  /** Font of 17 px or more. */
  largerFont: 1,
  largerFontPx: 17,
  bold: 2,
  /** Letter-spacing of 4 px or more: codes spaced for reading aloud. */
  wideSpacing: 3,
  wideSpacingPx: 4,
  /** Letter-spacing of 2 px or more. */
  spacing: 1,
  spacingPx: 2,
  monospace: 2,
  /** A class or id named code / otp / pin / token. */
  codeClass: 2,
  /** Alone in its block. */
  alone: 1,
  /** In a filled or bordered box. */
  boxed: 1,
  /** One character per box (`<td>4</td><td>8</td>…`): code mails of banks and shops. */
  onePerBox: 5,
  /** The most a value's prominence counts for. */
  max: 10,
} as const;
