// Public entry of `mailwright/extract`: links, verification links and one-time codes from an email.
export { findLinks, explainLinks } from './find-links.js';
export { findVerificationLink, explainVerificationLink } from './verification-link.js';
export { findCode, explainCode } from './find-code.js';
export type {
  Candidate, CodeCandidate, ExplainedLink, Explanation, ExtractInput, ExtractedLink, LinkCandidate, LinkKind,
} from './types.js';
