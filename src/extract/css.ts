// Owns the little CSS that email extraction needs: inline declarations, simple <style> rules, lengths.

/** Declarations of one rule or one `style` attribute, property names lower-cased. */
export type Declarations = Record<string, string>;

/** Parses `a: b; c: d` into `{ a: 'b', c: 'd' }` (last one wins, `!important` dropped). */
export function parseDeclarations(style: string | undefined): Declarations {
  const out: Declarations = {};
  if (!style) return out;
  for (const part of style.split(';')) {
    const colon = part.indexOf(':');
    if (colon < 0) continue;
    const name = part.slice(0, colon).trim().toLowerCase();
    const value = part.slice(colon + 1).replace(/!important/gi, '').trim().toLowerCase();
    if (name && value) out[name] = value;
  }
  return out;
}

/** Rules of `<style>` blocks for the simple selectors emails use: `tag`, `.class`, `tag.class`, `#id`. */
export interface StyleSheet {
  byTag: Map<string, Declarations>;
  byClass: Map<string, Declarations>;
  byId: Map<string, Declarations>;
}

/** An empty style sheet. */
export function emptyStyleSheet(): StyleSheet {
  return { byTag: new Map(), byClass: new Map(), byId: new Map() };
}

function merge(map: Map<string, Declarations>, key: string, decls: Declarations): void {
  map.set(key, { ...(map.get(key) ?? {}), ...decls });
}

/**
 * Adds the top-level rules of `css` to `sheet`. At-rule blocks (`@media`, `@font-face`, …) are skipped:
 * they describe other screens, not the default rendering.
 */
export function addStyleSheet(sheet: StyleSheet, css: string): void {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '').replace(/<!--|-->/g, '');
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{', i);
    if (open < 0) break;
    const prelude = text.slice(i, open).trim();
    // find the matching close brace (at-rules nest)
    let depth = 1;
    let j = open + 1;
    while (j < text.length && depth > 0) {
      if (text[j] === '{') depth++;
      else if (text[j] === '}') depth--;
      j++;
    }
    const body = text.slice(open + 1, j - 1);
    i = j;
    if (prelude.startsWith('@') || body.includes('{')) continue;
    const decls = parseDeclarations(body);
    for (const raw of prelude.split(',')) {
      const selector = raw.trim().toLowerCase();
      let m: RegExpMatchArray | null;
      if ((m = /^([a-z][a-z0-9]*)?\.([a-z0-9_-]+)$/.exec(selector))) merge(sheet.byClass, m[2] ?? '', decls);
      else if ((m = /^([a-z][a-z0-9]*)?#([a-z0-9_-]+)$/.exec(selector))) merge(sheet.byId, m[2] ?? '', decls);
      else if ((m = /^([a-z][a-z0-9]*)$/.exec(selector))) merge(sheet.byTag, m[1] ?? '', decls);
    }
  }
}

/** Converts a CSS length to pixels (`em`/`rem` against 16px). Undefined when it is not a length. */
export function lengthToPx(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const m = /^(-?\d*\.?\d+)\s*(px|pt|em|rem|%|ex|ch)?$/.exec(value.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  switch (m[2]) {
    case 'pt': return n * 4 / 3;
    case 'em': case 'rem': return n * 16;
    case 'ex': case 'ch': return n * 8;
    case '%': return (n / 100) * 16;
    default: return n;
  }
}

const FONT_KEYWORDS: Record<string, number> = {
  'xx-small': 9, 'x-small': 10, small: 13, medium: 16, large: 18, 'x-large': 24, 'xx-large': 32, 'xxx-large': 48,
  smaller: 13, larger: 19,
};

/** Font size in pixels from a `font-size` value (or the `font` shorthand). */
export function fontSizePx(decls: Declarations): number | undefined {
  const direct = decls['font-size'];
  if (direct) return FONT_KEYWORDS[direct] ?? lengthToPx(direct);
  const shorthand = decls.font;
  if (shorthand) {
    const m = /(\d*\.?\d+(?:px|pt|em|rem|%))/.exec(shorthand);
    if (m) return lengthToPx(m[1]);
  }
  return undefined;
}

/** Whether a colour value is a real fill (not transparent, not inherited). */
export function isFilled(color: string | undefined): boolean {
  if (!color) return false;
  return !/^(transparent|none|inherit|initial|unset|rgba\([^)]*,\s*0\))$/.test(color.trim());
}
