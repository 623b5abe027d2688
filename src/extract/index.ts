// Public entry of `mailwright/extract`: links, verification links and one-time codes from an email.
export { findLinks, explainLinks } from './find-links.js';
export { checkLinkHints, findVerificationLink, explainVerificationLink } from './verification-link.js';
export type { LinkHints } from './verification-link.js';
export { checkCodeHints, findCode, explainCode } from './find-code.js';
export type { CodeHints } from './find-code.js';
export type {
  Candidate, CodeCandidate, ExplainedLink, Explanation, ExtractInput, ExtractedLink, LinkCandidate, LinkKind,
} from './types.js';
