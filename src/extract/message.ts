// Owns preparing an ExtractInput once: normalised subject and text part, parsed HTML, and the text a reader sees.
import { parseHtml } from './html-document.js';
import type { HtmlDocument } from './html-document.js';
import type { ExtractInput } from './types.js';
import { normalizeText } from './text-utils.js';

/** An email ready for extraction. */
export interface PreparedMessage {
  /** Subject on one line ('' when missing). */
  subject: string;
  /** The text part, normalised ('' when missing). */
  text: string;
  /** The HTML part with hidden content removed, when there is one. */
  html?: HtmlDocument;
}

/** Normalises the parts of `msg` and parses its HTML. */
export function prepare(msg: ExtractInput): PreparedMessage {
  const subject = normalizeText(msg.subject ?? '').replace(/\s+/g, ' ').trim();
  const text = normalizeText(msg.text ?? '').replace(/[ \t]+\n/g, '\n');
  const rawHtml = msg.html ?? '';
  if (rawHtml.trim() === '') return { subject, text };
  return { subject, text, html: parseHtml(rawHtml) };
}
