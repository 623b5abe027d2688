// Owns the public data shapes of `mailwright/extract`: the input message, extracted links and ranked candidates.

/** The parts of an email that extraction looks at. Any part may be missing. */
export interface ExtractInput {
  /** The decoded `Subject` header. */
  subject?: string | null;
  /** The decoded `text/plain` body. */
  text?: string | null;
  /** The decoded `text/html` body. */
  html?: string | null;
}

/**
 * What a link is for, as far as extraction can tell.
 * Only `verification` links are ever returned by {@link findVerificationLink}.
 */
export type LinkKind =
  | 'verification'
  | 'unsubscribe'
  | 'preferences'
  | 'privacy'
  | 'terms'
  | 'help'
  | 'social'
  | 'app-store'
  | 'logo'
  | 'view-in-browser'
  | 'contact'
  | 'other';

/** A link found in an email, in document order. */
export interface ExtractedLink {
  /** The URL exactly as a user would follow it (HTML entities decoded, tracking wrappers kept). */
  url: string;
  /** Anchor text (or image alt text) for HTML links; the surrounding words for text links. */
  text: string;
  /** Which body part the link came from. HTML wins when both parts hold the same URL. */
  source: 'html' | 'text';
  /** What the link is for. */
  kind: LinkKind;
  /** Whether the link is styled as a button (background, padding, rounded corners, `btn` class, …). */
  button: boolean;
  /** Whether the link shows only an image. */
  image: boolean;
  /** Zero-based position among the links returned by {@link findLinks}. */
  position: number;
  /** The destination a tracking/redirect wrapper points at, when it is encoded in the URL. */
  target?: string;
  /** Text of the block around the link (paragraph, table cell or text line), without the anchor text. */
  context: string;
}

/** One ranked candidate of an explain form. */
export interface Candidate {
  /** The candidate value: a URL or a code. */
  value: string;
  /** Higher is better. Only comparable within one explanation. */
  score: number;
  /** Human-readable reasons that added to or took from the score, in the order they were applied. */
  reasons: string[];
}

/** A link as ranked by {@link explainVerificationLink}. */
export interface LinkCandidate extends Candidate {
  /** The link itself. */
  link: ExtractedLink;
  /** False when the link can never be the verification link (unsubscribe, privacy, home page, …). */
  eligible: boolean;
}

/** A code as ranked by {@link explainCode}. */
export interface CodeCandidate extends Candidate {
  /** Where the code was seen. */
  sources: Array<'subject' | 'text' | 'html'>;
  /** How many times it was seen (all parts together). */
  occurrences: number;
}

/** The answer of a find function together with the evidence behind it. */
export interface Explanation<C extends Candidate> {
  /** What the matching `find…` function returns. */
  answer: string | undefined;
  /** One sentence on why this answer (or why none). */
  verdict: string;
  /** Every accepted candidate, best first. */
  candidates: C[];
  /** Values that were considered and thrown out, with the reason. */
  rejected: Candidate[];
}

/** A link with the reasons behind its {@link ExtractedLink.kind}. */
export interface ExplainedLink extends ExtractedLink {
  /** Why the link got its kind. */
  reasons: string[];
}
