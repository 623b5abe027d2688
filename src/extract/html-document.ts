// Owns turning an HTML body into what a reader sees: hidden parts dropped, styles resolved, visible text rendered.
import { load } from 'cheerio';
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { addStyleSheet, emptyStyleSheet, parseDeclarations } from './css.js';
import type { Declarations, StyleSheet } from './css.js';
import { normalizeText } from './text-utils.js';

/** Elements that start a new line of text. */
export const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'center', 'dd', 'details', 'dialog', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'html',
  'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'tfoot', 'thead', 'tr', 'ul',
  'caption',
]);

/** Table cells: rendered side by side, separated by a tab. */
export const CELL_TAGS = new Set(['td', 'th']);

/** Elements whose content is never shown. */
const NEVER_SHOWN = 'head, style, script, noscript, template, title, meta, link, object, embed, iframe, input, select, textarea';

const PREHEADER = /(^|[\s_-])(pre-?header|preview-?text|preheader-?text|hidden-?preheader|email-?preview)([\s_-]|$)/i;

/** A parsed HTML body with hidden content removed. */
export interface HtmlDocument {
  /** The cheerio document (hidden elements already removed). */
  $: CheerioAPI;
  /** Visible text: one line per block, table cells separated by tabs, empty lines dropped, unlinked images as their alt text. */
  text: string;
  /** Every remaining element, in document order. */
  elements: Element[];
  /** Visible text of one element, with the same layout rules as {@link HtmlDocument.text}. */
  textOf(el: Element): string;
  /** Length of the element's rendered text before tidying: a cheap upper bound of `textOf(el).length`. */
  rawLength(el: Element): number;
  /** The element's own declarations: matching `<style>` rules, then its `style` attribute. */
  styleOf(el: Element): Declarations;
}

/** Type guard for element nodes. */
export function isElement(node: AnyNode): node is Element {
  return 'tagName' in node && 'attribs' in node;
}

/** The parent element of `el`, if any. */
export function parentElement(el: Element): Element | undefined {
  const parent = el.parent;
  return parent && isElement(parent) ? parent : undefined;
}

/** Tidies rendered text: spaces collapsed, tabs only between cells, no empty lines. */
export function tidyText(raw: string): string {
  return raw
    .split('\n')
    .map((line) => line.replace(/ *\t[ \t]*/g, '\t').replace(/ {2,}/g, ' ').replace(/^[ \t]+|[ \t]+$/g, ''))
    .filter((line) => line !== '')
    .join('\n');
}

function classNames(el: Element): string[] {
  return (el.attribs.class ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

function styleFor(sheet: StyleSheet, el: Element): Declarations {
  let decls: Declarations = { ...(sheet.byTag.get(el.tagName.toLowerCase()) ?? {}) };
  for (const name of classNames(el)) decls = { ...decls, ...(sheet.byClass.get(name) ?? {}) };
  const id = el.attribs.id?.toLowerCase();
  if (id) decls = { ...decls, ...(sheet.byId.get(id) ?? {}) };
  return { ...decls, ...parseDeclarations(el.attribs.style) };
}

/** Whether a reader never sees `el` (display:none, zero-height clip, `hidden`, preheader, …). */
function isHidden(el: Element, decls: Declarations): boolean {
  if (el.attribs.hidden !== undefined) return true;
  if (decls.display === 'none') return true;
  if (decls.visibility === 'hidden' || decls.visibility === 'collapse') return true;
  if (decls.opacity !== undefined && Number.parseFloat(decls.opacity) === 0) return true;
  const clipped = decls.overflow === 'hidden' || decls['overflow-y'] === 'hidden';
  const zero = (v: string | undefined): boolean => v !== undefined && /^0(px|em|%)?$/.test(v);
  if (clipped && (zero(decls['max-height']) || zero(decls.height) || zero(decls['max-width']) || zero(decls.width))) return true;
  if (PREHEADER.test(el.attribs.class ?? '') || PREHEADER.test(el.attribs.id ?? '')) return true;
  return false;
}

/** Parses an HTML body and renders what a reader sees. */
export function parseHtml(html: string): HtmlDocument {
  const $ = load(html);
  const sheet = emptyStyleSheet();
  $('style').each((_, el) => addStyleSheet(sheet, $(el).text()));
  $(NEVER_SHOWN).remove();

  const styles = new Map<Element, Declarations>();
  const styleOf = (el: Element): Declarations => {
    let decls = styles.get(el);
    if (!decls) {
      decls = styleFor(sheet, el);
      styles.set(el, decls);
    }
    return decls;
  };

  // Drop hidden subtrees (top-down, so a hidden parent takes its children with it).
  const hidden: Element[] = [];
  const findHidden = (node: AnyNode): void => {
    if (!isElement(node)) return;
    if (isHidden(node, styleOf(node))) {
      hidden.push(node);
      return;
    }
    for (const child of node.children) findHidden(child);
  };
  for (const node of $.root()[0]?.children ?? []) findHidden(node);
  for (const el of hidden) $(el).remove();

  const rendered = new Map<Element, string>();
  const tidied = new Map<Element, string>();
  const elements: Element[] = [];
  const render = (node: AnyNode, inLink: boolean): string => {
    if ((node.type as string) === 'text') {
      return normalizeText('data' in node ? String(node.data) : '').replace(/\s+/g, ' ');
    }
    if (!isElement(node)) return '';
    elements.push(node);
    const tag = node.tagName.toLowerCase();
    if (tag === 'br') return '\n';
    if (tag === 'img') {
      // An image outside a link reads as its alt text (what a reader sees with images off); linked images stay
      // images, so that logo and image-button links keep their kind.
      const alt = inLink ? '' : normalizeText(node.attribs.alt ?? '').replace(/\s+/g, ' ').trim();
      const out = alt ? ` ${alt} ` : '';
      rendered.set(node, out);
      return out;
    }
    const link = inLink || tag === 'a';
    let inner = '';
    for (const child of node.children) inner += render(child, link);
    let out = inner;
    if (BLOCK_TAGS.has(tag)) out = `\n${inner}\n`;
    else if (CELL_TAGS.has(tag)) out = `\t${inner}\t`;
    rendered.set(node, out);
    return out;
  };
  let whole = '';
  for (const node of $.root()[0]?.children ?? []) whole += render(node, false);

  return {
    $,
    text: tidyText(whole),
    elements,
    textOf: (el) => {
      let text = tidied.get(el);
      if (text === undefined) {
        text = tidyText(rendered.get(el) ?? '');
        tidied.set(el, text);
      }
      return text;
    },
    rawLength: (el) => rendered.get(el)?.length ?? 0,
    styleOf,
  };
}

/** Lower-cased class and id names of an element, for hints such as `btn` or `otp-code`. */
export function hintNames(el: Element): string {
  return `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`.toLowerCase();
}
