// Owns the public list of links: every link of an email in document order, each with its kind.
import { toExtractedLink } from './link-score.js';
import { prepare } from './message.js';
import type { ExplainedLink, ExtractInput, ExtractedLink } from './types.js';
import { chooseLink } from './verification-link.js';

/**
 * Every link of the email, deduplicated by URL, in document order: HTML anchors first, then URLs that only the
 * text part has. Each link is classified (`verification`, `unsubscribe`, `privacy`, `help`, `social`, `logo`,
 * `view-in-browser`, …).
 */
export function findLinks(msg: ExtractInput): ExtractedLink[] {
  return explainLinks(msg).map(({ reasons: _reasons, ...link }) => link);
}

/** {@link findLinks} with the reasons behind each link's kind and verification score. */
export function explainLinks(msg: ExtractInput): ExplainedLink[] {
  const { scored, chosen } = chooseLink(prepare(msg));
  return scored.map((link, position) => ({ ...toExtractedLink(link, position, link === chosen), reasons: link.reasons }));
}
