// Owns the public list of links: every link of an email in document order, each with its kind.
import { isUrlText } from './link-collect.js';
import { isCandidate, scoreLinks } from './link-score.js';
import type { ScoredLink } from './link-score.js';
import { prepare } from './message.js';
import type { ExplainedLink, ExtractInput, ExtractedLink } from './types.js';

function bestText(link: ScoredLink): string {
  const words = link.raw.texts.filter((t) => !isUrlText(t));
  return words.sort((a, b) => b.length - a.length)[0] ?? link.raw.texts[0] ?? '';
}

/** Converts a scored link to the public shape. `position` is filled in by the caller's order. */
export function toExtractedLink(link: ScoredLink, position = -1): ExtractedLink {
  const out: ExtractedLink = {
    url: link.raw.url,
    text: bestText(link),
    source: link.raw.source,
    kind: isCandidate(link) ? 'verification' : link.kind.kind,
    button: link.raw.button,
    image: link.raw.image,
    position,
    context: link.raw.contexts[0]?.text ?? '',
  };
  if (link.raw.evidence.wrapper.target) out.target = link.raw.evidence.wrapper.target;
  return out;
}

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
  return scoreLinks(prepare(msg)).map((link, position) => ({ ...toExtractedLink(link, position), reasons: link.reasons }));
}
