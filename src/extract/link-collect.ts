// Owns gathering links from an email: anchors of the HTML part (text, button styling, images) and URLs of the text part.
import type { Element } from 'domhandler';
import { isFilled } from './css.js';
import { BLOCK_TAGS, CELL_TAGS, hintNames, isElement, parentElement } from './html-document.js';
import type { HtmlDocument } from './html-document.js';
import type { PreparedMessage } from './message.js';
import { collapseSpace, decodeEntities, sentences } from './text-utils.js';
import { urlEvidence } from './url-evidence.js';
import type { UrlEvidence } from './url-evidence.js';

/** Words around a link. */
export interface LinkContext {
  text: string;
  /** True when the link sits inside this text (same sentence or cell); false for the block before it. */
  inline: boolean;
}

/** A link with all the raw evidence gathered from every place it appears. */
export interface RawLink {
  url: string;
  source: 'html' | 'text';
  /**
   * A URL written out in running text (not an anchor, not a Markdown link): the words before
   * it and the rest of its sentence are what it says.
   */
  bare: boolean;
  /** Anchor texts (or alt texts) of every anchor with this URL; for text links, the words before the URL. */
  texts: string[];
  /** Words around each anchor: its sentence (inline) or the block before a lone button. */
  contexts: LinkContext[];
  /** Whether any anchor with this URL is styled as a button. */
  button: boolean;
  /** Whether every anchor with this URL shows only an image. */
  image: boolean;
  /** Alt, src, class and title of images inside the anchors. */
  imageHints: string[];
  /** Why the link counts as a button. */
  buttonReason?: string;
  evidence: UrlEvidence;
}

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`\u00A0]+/gi;

/** Whether `s` is (just) a URL, as fallback "copy this link" anchors are. */
export function isUrlText(s: string): boolean {
  return /^(https?:\/\/|www\.)\S+$/i.test(s.trim());
}

/** Cleans an href: entities decoded, white space and enclosing angle brackets removed. An href is exact: nothing else is trimmed. */
export function cleanHref(raw: string): string {
  return decodeEntities(raw.trim()).replace(/\s+/g, '').replace(/^<|>$/g, '');
}

/**
 * Cleans a URL written in text: as {@link cleanHref}, then sentence punctuation after it is
 * trimmed. `_` and `-` are kept: base64url tokens end with them.
 */
export function cleanUrl(raw: string): string {
  let url = cleanHref(raw);
  for (;;) {
    const last = url.slice(-1);
    if (/[.,;:!?'"»*]/.test(last)) url = url.slice(0, -1);
    else if (last === ')' && (url.match(/\(/g) ?? []).length < (url.match(/\)/g) ?? []).length) url = url.slice(0, -1);
    else if (last === ']' && !url.includes('[')) url = url.slice(0, -1);
    else break;
  }
  return url;
}

function buttonReason(doc: HtmlDocument, a: Element, anchorText: string): string | undefined {
  const style = doc.styleOf(a);
  const hint = hintNames(a);
  if (/(^|[\s_-])(btn|button|cta)([\s_-]|$)/.test(hint) || a.attribs.role === 'button') return 'class or role says button';
  const filled = isFilled(style['background-color']) || isFilled(style.background);
  const padded = style.padding !== undefined || style['padding-top'] !== undefined || style['padding-left'] !== undefined;
  const shaped = style['border-radius'] !== undefined || (style.border !== undefined && style.border !== 'none' && style.border !== '0');
  const boxy = style.display === 'block' || style.display === 'inline-block';
  if (filled && (padded || shaped || boxy)) return 'link has a filled background and padding';
  if (padded && shaped) return 'link has padding and a border';
  // bulletproof buttons: the link is the only content of a filled cell or box
  let el: Element | undefined = parentElement(a);
  for (let depth = 0; el && depth < 3; depth++, el = parentElement(el)) {
    if (collapseSpace(doc.textOf(el)) !== anchorText) break;
    const s = doc.styleOf(el);
    if (/(^|[\s_-])(btn|button|cta)([\s_-]|$)/.test(hintNames(el))) return 'container class says button';
    if (isFilled(el.attribs.bgcolor) || isFilled(s['background-color']) || isFilled(s.background) || s['border-radius'] !== undefined) {
      return 'link fills a coloured box';
    }
  }
  return undefined;
}

function previousElement(el: Element): Element | undefined {
  for (let node = el.prev; node; node = node.prev) if (isElement(node)) return node;
  return undefined;
}

/**
 * The words around a link: its paragraph or cell without the anchor text; when the link stands alone in its
 * block (a button), the nearest block before it ("Click below to verify your email").
 */
function blockContext(doc: HtmlDocument, a: Element, anchorText: string): LinkContext | undefined {
  let el: Element | undefined = parentElement(a);
  while (el && !BLOCK_TAGS.has(el.tagName.toLowerCase()) && !CELL_TAGS.has(el.tagName.toLowerCase())) el = parentElement(el);
  if (el) {
    const text = collapseSpace(doc.textOf(el));
    if (text.length > anchorText.length + 2) {
      const rest = collapseSpace(anchorText ? text.replace(anchorText, ' ') : text);
      return { text: rest.length <= 300 ? rest : rest.slice(0, 300), inline: true };
    }
  }
  let node: Element | undefined = a;
  for (let depth = 0; node && depth < 8; depth++, node = parentElement(node)) {
    for (let prev = previousElement(node); prev; prev = previousElement(prev)) {
      const text = collapseSpace(doc.textOf(prev));
      if (text === '') continue;
      return { text: text.length <= 300 ? text : text.slice(-300), inline: false };
    }
  }
  return undefined;
}

function htmlLinks(doc: HtmlDocument): RawLink[] {
  const byUrl = new Map<string, RawLink>();
  const { $ } = doc;
  $('a[href], area[href]').each((_, node) => {
    const a = node as Element;
    const url = cleanHref(a.attribs.href ?? '');
    if (!url || url.startsWith('#') || /^javascript:/i.test(url)) return;
    const anchorText = collapseSpace(doc.textOf(a));
    const images = $(a).find('img').toArray() as Element[];
    const image = anchorText === '' && images.length > 0;
    const imageHints = images.map((img) => `${img.attribs.alt ?? ''} ${img.attribs.src ?? ''} ${hintNames(img)} ${img.attribs.title ?? ''}`);
    const altText = collapseSpace(images.map((img) => img.attribs.alt ?? '').join(' '));
    const text = anchorText || altText || collapseSpace(a.attribs.title ?? a.attribs['aria-label'] ?? '');
    const why = buttonReason(doc, a, anchorText);
    const context = blockContext(doc, a, anchorText);
    const existing = byUrl.get(url);
    if (existing) {
      if (text) existing.texts.push(text);
      if (context) existing.contexts.push(context);
      existing.image &&= image;
      existing.imageHints.push(...imageHints);
      if (why && !existing.button) {
        existing.button = true;
        existing.buttonReason = why;
      }
      return;
    }
    const link: RawLink = {
      url,
      source: 'html',
      bare: false,
      texts: text ? [text] : [],
      contexts: context ? [context] : [],
      button: why !== undefined,
      image,
      imageHints,
      evidence: urlEvidence(url),
    };
    if (why) link.buttonReason = why;
    byUrl.set(url, link);
  });
  return [...byUrl.values()];
}

const SENTENCE_END = /[.!?。！？]["'”»)]*$/;
const URL_ANYWHERE = /\bhttps?:\/\/\S+/g;

/** The last sentence of a run of text (what leads up to a URL). */
function lastSentence(text: string): string {
  return sentences(text).pop() ?? text;
}

/** The first sentence of a run of text (what follows a URL). */
function firstSentence(text: string): string {
  return sentences(text)[0] ?? text;
}

function textLinks(text: string): RawLink[] {
  const byUrl = new Map<string, RawLink>();
  const lines = text.split('\n');
  let previous = '';
  let adjacent = false;
  for (const line of lines) {
    const above = collapseSpace(previous.replace(URL_ANYWHERE, ' '));
    for (const m of line.matchAll(URL_IN_TEXT)) {
      const url = cleanUrl(m[0]);
      const start = m.index ?? 0;
      let before = line.slice(0, start);
      const markdown = /\[([^\]]+)\]\(\s*$/.exec(before);
      let joined = false;
      if (markdown?.[1]) {
        before = markdown[1];
      } else {
        before = before.replace(URL_ANYWHERE, ' ');
        // A sentence wrapped onto this line began on the line above.
        joined = adjacent && above !== '' && !/[.!?。！？:：]["'”»)]*$/.test(above) && collapseSpace(before) !== '';
        before = lastSentence(collapseSpace(joined ? `${above} ${before}` : before));
      }
      before = collapseSpace(before.replace(/[<(\[:：>»\-–|]+\s*$/g, ''));
      // A URL alone on its line is labelled by the line above when that line introduces it ("Reset your password:");
      // a full sentence above it ("Thanks for signing up.") is context, not a label.
      const alone = before.length < 3;
      const aboveIsSentence = alone && SENTENCE_END.test(above);
      const label = alone ? (aboveIsSentence ? '' : above) : before;
      const after = collapseSpace(firstSentence(collapseSpace(line.slice(start + m[0].length).replace(URL_ANYWHERE, ' '))).replace(/^[>)\]]+/, ''));
      const contexts: LinkContext[] = after.length > 1 ? [{ text: after, inline: true }] : [];
      const whole = collapseSpace(line.replace(URL_ANYWHERE, ' '));
      if (whole !== before && whole !== after && whole.length > 1) contexts.push({ text: whole, inline: false });
      if ((aboveIsSentence || (!alone && !joined)) && above) contexts.push({ text: above, inline: false });
      const existing = byUrl.get(url);
      if (existing) {
        if (label) existing.texts.push(label);
        continue;
      }
      byUrl.set(url, {
        url,
        source: 'text',
        bare: !markdown,
        texts: label ? [label] : [],
        contexts,
        button: false,
        image: false,
        imageHints: [],
        evidence: urlEvidence(url),
      });
    }
    adjacent = line.trim() !== '';
    if (adjacent) previous = line;
  }
  return [...byUrl.values()];
}

/** Every link of the message, deduplicated by URL: HTML anchors first (document order), then text-only URLs. */
export function collectLinks(message: PreparedMessage): RawLink[] {
  const anchors = message.html ? htmlLinks(message.html) : [];
  const anchored = new Set(anchors.map((l) => l.url));
  // URLs written out in the HTML without an anchor (mail clients make them clickable)
  const bare = message.html
    ? textLinks(message.html.text)
        .filter((l) => !anchored.has(l.url) && !anchors.some((a) => a.texts.some((t) => cleanUrl(t) === l.url)))
        .map((l): RawLink => ({ ...l, source: 'html' }))
    : [];
  const fromHtml = [...anchors, ...bare];
  const seen = new Set(fromHtml.map((l) => l.url));
  const fromText = textLinks(message.text).filter((l) => !seen.has(l.url));
  return [...fromHtml, ...fromText];
}
