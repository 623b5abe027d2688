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

/** The last preparation of each input object, reused while its parts are unchanged (find link, then find code). */
const prepared = new WeakMap<ExtractInput, { subject: unknown; text: unknown; html: unknown; message: PreparedMessage }>();

/** Normalises the parts of `msg` and parses its HTML; the same unchanged object is prepared once. */
export function prepare(msg: ExtractInput): PreparedMessage {
  const cached = prepared.get(msg);
  if (cached && cached.subject === msg.subject && cached.text === msg.text && cached.html === msg.html) return cached.message;
  const message = prepareOnce(msg);
  prepared.set(msg, { subject: msg.subject, text: msg.text, html: msg.html, message });
  return message;
}

function prepareOnce(msg: ExtractInput): PreparedMessage {
  const subject = normalizeText(msg.subject ?? '').replace(/\s+/g, ' ').trim();
  const text = normalizeText(msg.text ?? '').replace(/[ \t]+\n/g, '\n');
  const rawHtml = msg.html ?? '';
  if (rawHtml.trim() === '') return { subject, text };
  return { subject, text, html: parseHtml(rawHtml) };
}
