// Owns spotting codes that the HTML shows prominently: large or bold type, letter-spacing, monospace, boxes per digit.
import type { Element } from 'domhandler';
import { fontSizePx, isFilled, lengthToPx } from './css.js';
import { BLOCK_TAGS, CELL_TAGS, hintNames, parentElement } from './html-document.js';
import type { HtmlDocument } from './html-document.js';
import { collapseSpace } from './text-utils.js';
import { PROMINENCE_WEIGHTS as W } from './weights.js';

/** How prominently a value is shown. */
export interface Prominence {
  score: number;
  reasons: string[];
  /** Styled the way codes are (letter-spacing, monospace, one box per character, a class named code/otp). */
  codeStyle: boolean;
}

const HEADING_SIZE: Record<string, number> = { h1: 32, h2: 24, h3: 19 };
const FONT_TAG_SIZE: Record<string, number> = { '1': 10, '2': 13, '3': 16, '4': 18, '5': 24, '6': 32, '7': 48 };
const BOLD_TAGS = new Set(['b', 'strong', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'th']);
const MONO_TAGS = new Set(['code', 'kbd', 'pre', 'tt', 'samp']);
const MONO_FONT = /mono|courier|consolas|menlo|monaco|lucida console|source code|fira code|jetbrains/;
const CODE_HINT = /(^|[\s_-])(code|otp|pin|passcode|token|verification|verify|vcode|one-?time|digits?)([\s_-]|$)/;

function chainOf(el: Element): Element[] {
  const chain: Element[] = [];
  let current: Element | undefined = el;
  while (current && chain.length < 8) {
    chain.push(current);
    if (current.tagName.toLowerCase() === 'body') break;
    current = parentElement(current);
  }
  return chain;
}

function measure(doc: HtmlDocument, el: Element, text: string): Prominence {
  const chain = chainOf(el);
  const reasons: string[] = [];
  let score = 0;
  let codeStyle = false;

  let size: number | undefined;
  let bold: boolean | undefined;
  let spacing: number | undefined;
  let mono: boolean | undefined;
  for (const node of chain) {
    const tag = node.tagName.toLowerCase();
    const style = doc.styleOf(node);
    size ??= fontSizePx(style) ?? HEADING_SIZE[tag] ?? (tag === 'font' ? FONT_TAG_SIZE[node.attribs.size ?? ''] : undefined);
    if (bold === undefined) {
      const weight = style['font-weight'];
      if (weight) bold = /bold|bolder|[6-9]00/.test(weight);
      else if (BOLD_TAGS.has(tag)) bold = true;
    }
    if (spacing === undefined && style['letter-spacing']) spacing = lengthToPx(style['letter-spacing']) ?? 0;
    if (mono === undefined) {
      if (MONO_TAGS.has(tag)) mono = true;
      else if (style['font-family']) mono = MONO_FONT.test(style['font-family']);
    }
  }
  if (size !== undefined && size >= W.largeFontPx) {
    score += W.largeFont;
    reasons.push(`large font (${Math.round(size)}px) (+${W.largeFont})`);
  } else if (size !== undefined && size >= W.largerFontPx) {
    score += W.largerFont;
    reasons.push(`larger font (${Math.round(size)}px) (+${W.largerFont})`);
  }
  if (bold) {
    score += W.bold;
    reasons.push(`bold (+${W.bold})`);
  }
  if (spacing !== undefined && spacing >= W.wideSpacingPx) {
    score += W.wideSpacing;
    codeStyle = true;
    reasons.push(`letter-spacing ${spacing}px (+${W.wideSpacing})`);
  } else if (spacing !== undefined && spacing >= W.spacingPx) {
    score += W.spacing;
    reasons.push(`letter-spacing ${spacing}px (+${W.spacing})`);
  }
  if (mono) {
    score += W.monospace;
    codeStyle = true;
    reasons.push(`monospace (+${W.monospace})`);
  }
  const hinted = chain.slice(0, 4).find((node) => CODE_HINT.test(hintNames(node)));
  if (hinted) {
    score += W.codeClass;
    codeStyle = true;
    reasons.push(`class or id "${hintNames(hinted).trim()}" (+${W.codeClass})`);
  }
  const block = chain.find((node) => BLOCK_TAGS.has(node.tagName.toLowerCase()) || CELL_TAGS.has(node.tagName.toLowerCase()));
  if (block && collapseSpace(doc.textOf(block)) === text) {
    score += W.alone;
    reasons.push(`alone in its block (+${W.alone})`);
    const style = doc.styleOf(block);
    const boxed =
      isFilled(block.attribs.bgcolor) || isFilled(style['background-color']) || isFilled(style.background) ||
      (style.border !== undefined && !/^(none|0)/.test(style.border)) || style['border-radius'] !== undefined;
    if (boxed) {
      score += W.boxed;
      reasons.push(`in a box (+${W.boxed})`);
    }
  }
  return { score: Math.min(score, W.max), reasons, codeStyle };
}

function keep(map: Map<string, Prominence>, value: string, p: Prominence): void {
  const existing = map.get(value);
  if (!existing || existing.score < p.score) map.set(value, p);
}

/** Values (spaces and hyphens removed) that the HTML shows prominently, with how and why. */
export function prominentValues(doc: HtmlDocument): Map<string, Prominence> {
  const map = new Map<string, Prominence>();
  for (const el of doc.elements) {
    if (doc.rawLength(el) > 400) continue;
    const text = collapseSpace(doc.textOf(el));
    if (text.length >= 4 && text.length <= 30) {
      const value = text.replace(/[\s-]/g, '');
      if (/^[A-Za-z0-9]{4,10}$/.test(value)) keep(map, value, measure(doc, el, text));
    }
    // one character per box: <td>4</td><td>8</td>… or <span>4</span><span>8</span>…
    const children = el.children.filter((c): c is Element => 'tagName' in c).filter((c) => collapseSpace(doc.textOf(c)) !== '');
    if (children.length >= 4 && children.length <= 10) {
      const chars = children.map((c) => collapseSpace(doc.textOf(c)));
      const links = children.some((c) => c.tagName.toLowerCase() === 'a' || doc.$(c).find('a').length > 0);
      if (!links && chars.every((c) => /^[A-Za-z0-9]$/.test(c)) && chars.some((c) => /\d/.test(c))) {
        const own = collapseSpace(doc.textOf(el)).replace(/\s/g, '');
        if (own === chars.join('')) {
          const inner = measure(doc, children[0] as Element, chars[0] as string);
          keep(map, chars.join(''), {
            score: Math.min(inner.score + W.onePerBox, W.max),
            reasons: [`one character per box (+${W.onePerBox})`, ...inner.reasons.filter((r) => !r.startsWith('alone'))],
            codeStyle: true,
          });
        }
      }
    }
  }
  return map;
}
