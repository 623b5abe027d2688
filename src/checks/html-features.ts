// Owns the detector table of the HTML check: for every feature slug of the caniemail.com data,
// how its use shows in a mail (a CSS declaration, selector, at-rule, value, an HTML element,
// attribute, link or image), or why it is not detected. html-check.ts evaluates the table; a
// unit test keeps it and the data file in step (every slug in exactly one of the two lists).
//
// Generic rows are derived from the slug (`css-<property>`, `css-unit-<unit>`, `html-<element>`,
// …); explicit rows say what a slug means where its name alone does not, with the decision
// written down beside it. Names are lower case; CSS properties are matched as written, so a
// vendor-prefixed property (`-webkit-box-shadow`) is not the standard one caniemail tested.

/** A compound or combinator form of a CSS selector (caniemail's `css-selector-*` pages). */
export type SelectorForm =
  | 'type' | 'universal' | 'class' | 'id' | 'attribute'
  | 'descendant' | 'child' | 'adjacent-sibling' | 'general-sibling'
  /** Two selectors or more after one another: `.a, .b`. */
  | 'grouping'
  /** Two or more class, id or attribute selectors in one compound: `.a.b`, `#x.y`, `.a[href]` (not `td.a`, not `a:hover`). */
  | 'chaining'
  /** A style rule inside a style rule (`.a { & .b {} }`, `.a { .b {} }`) or the `&` selector. */
  | 'nesting';

/** How one use of a feature shows in a mail. A slug may have several (any of them is a use). */
export type Detection =
  /** A declaration of one of `properties`; with `values`, only when its value has one of these keywords. */
  | { on: 'declaration'; properties: readonly string[]; values?: readonly string[] }
  /** A custom property declaration (`--brand: red`). */
  | { on: 'custom-property' }
  /** A keyword in a declaration's value (of one of `properties` when given): `initial`, `system-ui`. */
  | { on: 'keyword'; keywords: readonly string[]; properties?: readonly string[] }
  /** A function in a declaration's value: `calc()`, `rgb()`, `linear-gradient()`. */
  | { on: 'function'; names: readonly string[] }
  /** A unit of a length or other dimension in a declaration's value; `%` for percentages. */
  | { on: 'unit'; units: readonly string[] }
  /** A declaration marked `!important`. */
  | { on: 'important' }
  /** A comment in a `<style>` element or a `style` attribute. */
  | { on: 'css-comment' }
  /** An at-rule: `@media`, `@font-face`. */
  | { on: 'at-rule'; names: readonly string[] }
  /** A media feature in a media query: `(prefers-color-scheme: dark)`, `(width >= 600px)`. */
  | { on: 'media-feature'; names: readonly string[] }
  /** A pseudo-class in a selector: `:hover`. */
  | { on: 'pseudo-class'; names: readonly string[] }
  /** A pseudo-element in a selector: `::before`, or its CSS 2 form `:before`. */
  | { on: 'pseudo-element'; names: readonly string[] }
  /** A form of selector. */
  | { on: 'selector'; form: SelectorForm }
  /** An element; with `types`, an element whose `type` is one of them (`untyped`: or has none, as HTML defaults it). */
  | { on: 'element'; tags: readonly string[]; types?: readonly string[]; untyped?: boolean }
  /** An attribute (on one of `tags` when given). */
  | { on: 'attribute'; names: readonly string[]; tags?: readonly string[] }
  /** A link (`<a href>`, `<area href>`) to a `mailto:` address or to an anchor of the mail (`#…`). */
  | { on: 'link'; to: 'mailto' | 'anchor' }
  /** A `<meta name>` of one of `names`. */
  | { on: 'meta'; names: readonly string[] }
  /** The HTML5 doctype, `<!DOCTYPE html>`. */
  | { on: 'doctype' }
  /** An HTML comment, conditional comments (`<!--[if mso]>`) included. */
  | { on: 'html-comment' }
  /**
   * An image of a format: by the `type` of a `<picture>` `<source>`, the MIME type of a `data:`
   * URL, or the extension of the file named. Images are the `src` and `srcset` of `<img>`, the
   * `srcset` of `<picture>` `<source>`, the `background` attribute and CSS `url()` in declarations
   * (not `@font-face` sources, not `@import`).
   */
  | { on: 'image'; extensions: readonly string[]; mimeTypes: readonly string[] }
  /** An image given inline as a base64 `data:` URL. */
  | { on: 'image-data-url' };

const declaration = (...properties: string[]): Detection => ({ on: 'declaration', properties });
const declarationWith = (properties: string[], values: string[]): Detection => ({ on: 'declaration', properties, values });
const functions = (...names: string[]): Detection => ({ on: 'function', names });
const element = (...tags: string[]): Detection => ({ on: 'element', tags });
const attribute = (...names: string[]): Detection => ({ on: 'attribute', names });
const image = (extensions: string[], mimeTypes: string[]): Detection => ({ on: 'image', extensions, mimeTypes });

/** Rows derived from the slug: `prefix + name` detected as `detect(name)`. */
function derived(prefix: string, detect: (name: string) => Detection, slugs: readonly string[]): Array<[string, Detection[]]> {
  return slugs.map((slug) => {
    if (!slug.startsWith(prefix)) throw new Error(`html-features: "${slug}" does not start with "${prefix}"`);
    return [slug, [detect(slug.slice(prefix.length))]];
  });
}

/**
 * `css-<property>`: a declaration of exactly that property. A shorthand slug whose longhands
 * have slugs of their own (`background`, `font`, `list-style`, `text-decoration`) is the
 * shorthand alone; `display` is any display declaration (the display-flex, -grid and -none
 * pages are values of it, reported besides).
 */
const PROPERTY_SLUGS = [
  'css-accent-color', 'css-align-items', 'css-aspect-ratio', 'css-backdrop-filter', 'css-background',
  'css-background-blend-mode', 'css-background-clip', 'css-background-color', 'css-background-image',
  'css-background-origin', 'css-background-position', 'css-background-repeat', 'css-background-size',
  'css-border-collapse', 'css-border-image', 'css-border-spacing', 'css-box-shadow', 'css-box-sizing',
  'css-caption-side', 'css-clear', 'css-clip-path', 'css-color-scheme', 'css-column-count', 'css-cursor',
  'css-direction', 'css-display', 'css-empty-cells', 'css-filter', 'css-float', 'css-font', 'css-font-kerning',
  'css-font-size', 'css-font-size-adjust', 'css-font-stretch', 'css-font-weight', 'css-height',
  'css-hyphenate-character', 'css-hyphenate-limit-chars', 'css-hyphens', 'css-inline-size', 'css-justify-content',
  'css-letter-spacing', 'css-line-height', 'css-list-style', 'css-list-style-image', 'css-list-style-position',
  'css-list-style-type', 'css-mask-image', 'css-max-block-size', 'css-max-height', 'css-max-inline-size',
  'css-max-width', 'css-min-block-size', 'css-min-height', 'css-min-inline-size', 'css-min-width',
  'css-mix-blend-mode', 'css-object-fit', 'css-object-position', 'css-opacity', 'css-orphans', 'css-outline-offset',
  'css-overflow-wrap', 'css-position', 'css-resize', 'css-shape-margin', 'css-shape-outside', 'css-tab-size',
  'css-table-layout', 'css-text-align', 'css-text-align-last', 'css-text-decoration', 'css-text-decoration-color',
  'css-text-decoration-line', 'css-text-decoration-skip-ink', 'css-text-decoration-style',
  'css-text-decoration-thickness', 'css-text-emphasis-position', 'css-text-indent', 'css-text-justify',
  'css-text-orientation', 'css-text-overflow', 'css-text-shadow', 'css-text-transform', 'css-text-underline-offset',
  'css-text-underline-position', 'css-text-wrap', 'css-transform', 'css-user-select', 'css-vertical-align',
  'css-visibility', 'css-white-space', 'css-white-space-collapse', 'css-widows', 'css-width', 'css-word-break',
  'css-word-spacing', 'css-word-wrap', 'css-writing-mode', 'css-z-index',
] as const;

/** `css-at-<name>`: that at-rule. */
const AT_RULE_SLUGS = ['css-at-font-face', 'css-at-import', 'css-at-media', 'css-at-supports'] as const;

/** `css-pseudo-class-<name>`: that pseudo-class, wherever it is in a selector (inside `:not()` too). */
const PSEUDO_CLASS_SLUGS = [
  'css-pseudo-class-active', 'css-pseudo-class-checked', 'css-pseudo-class-default', 'css-pseudo-class-first-child',
  'css-pseudo-class-first-of-type', 'css-pseudo-class-focus', 'css-pseudo-class-focus-visible',
  'css-pseudo-class-focus-within', 'css-pseudo-class-has', 'css-pseudo-class-hover', 'css-pseudo-class-lang',
  'css-pseudo-class-last-child', 'css-pseudo-class-last-of-type', 'css-pseudo-class-link', 'css-pseudo-class-not',
  'css-pseudo-class-nth-child', 'css-pseudo-class-nth-last-child', 'css-pseudo-class-nth-last-of-type',
  'css-pseudo-class-nth-of-type', 'css-pseudo-class-only-child', 'css-pseudo-class-only-of-type',
  'css-pseudo-class-target', 'css-pseudo-class-visited',
] as const;

/** `css-pseudo-element-<name>`: that pseudo-element (`::placeholder` is explicit: its prefixed forms are what mail uses). */
const PSEUDO_ELEMENT_SLUGS = [
  'css-pseudo-element-after', 'css-pseudo-element-before', 'css-pseudo-element-first-letter',
  'css-pseudo-element-first-line', 'css-pseudo-element-marker',
] as const;

/** `css-selector-<form>`: that form of selector. */
const SELECTOR_SLUGS = [
  'css-selector-adjacent-sibling', 'css-selector-attribute', 'css-selector-chaining', 'css-selector-child',
  'css-selector-class', 'css-selector-descendant', 'css-selector-general-sibling', 'css-selector-grouping',
  'css-selector-id', 'css-selector-type', 'css-selector-universal',
] as const;

/** `css-unit-<unit>`: a dimension in that unit in a declaration's value (not in a media query). */
const UNIT_SLUGS = [
  'css-unit-ch', 'css-unit-cm', 'css-unit-em', 'css-unit-ex', 'css-unit-in', 'css-unit-mm', 'css-unit-pc',
  'css-unit-pt', 'css-unit-px', 'css-unit-rem', 'css-unit-vh', 'css-unit-vmax', 'css-unit-vmin', 'css-unit-vw',
] as const;

/** `css-function-<name>`: that function in a declaration's value. */
const FUNCTION_SLUGS = ['css-function-clamp', 'css-function-light-dark', 'css-function-max', 'css-function-min'] as const;

/** `html-<element>`: that element. */
const ELEMENT_SLUGS = [
  'html-abbr', 'html-acronym', 'html-address', 'html-audio', 'html-base', 'html-bdi', 'html-blockquote', 'html-body',
  'html-code', 'html-del', 'html-dfn', 'html-dialog', 'html-div', 'html-form', 'html-hr', 'html-img', 'html-link',
  'html-marquee', 'html-meter', 'html-object', 'html-p', 'html-picture', 'html-pre', 'html-progress', 'html-rp',
  'html-rt', 'html-ruby', 'html-select', 'html-small', 'html-span', 'html-strike', 'html-strong', 'html-style',
  'html-svg', 'html-table', 'html-textarea', 'html-video', 'html-wbr',
] as const;

/** `html-<attribute>`: that attribute, on any element. */
const ATTRIBUTE_SLUGS = [
  'html-align', 'html-background', 'html-cellpadding', 'html-cellspacing', 'html-dir', 'html-height', 'html-hidden',
  'html-lang', 'html-required', 'html-role', 'html-valign', 'html-width',
] as const;

/** `html-aria-<name>`: the `aria-<name>` attribute. */
const ARIA_SLUGS = ['html-aria-describedby', 'html-aria-hidden', 'html-aria-label', 'html-aria-labelledby', 'html-aria-live'] as const;

/** Slugs whose meaning their name alone does not give. */
const EXPLICIT: Array<[string, Detection[]]> = [
  // Longhands and shorthands, as each page's title, description and keywords list them.
  ['css-animation', [declaration('animation', 'animation-name', 'animation-duration', 'animation-timing-function', 'animation-delay', 'animation-iteration-count', 'animation-direction', 'animation-fill-mode', 'animation-play-state', 'animation-composition')]],
  // Every border longhand and shorthand the page's notes list; radius, image, collapse, spacing and the logical ones have pages of their own.
  ['css-border', [declaration(
    'border', 'border-width', 'border-style', 'border-color',
    'border-top', 'border-right', 'border-bottom', 'border-left',
    'border-top-width', 'border-top-style', 'border-top-color', 'border-right-width', 'border-right-style', 'border-right-color',
    'border-bottom-width', 'border-bottom-style', 'border-bottom-color', 'border-left-width', 'border-left-style', 'border-left-color',
  )]],
  ['css-border-inline-block', [declaration('border-inline', 'border-block')]],
  ['css-border-inline-block-individual', [declaration(
    'border-inline-color', 'border-block-color', 'border-inline-style', 'border-block-style', 'border-inline-width', 'border-block-width',
    'border-inline-start', 'border-inline-end', 'border-block-start', 'border-block-end',
  )]],
  ['css-border-inline-block-longhand', [declaration(
    'border-inline-start-color', 'border-block-start-color', 'border-inline-start-style', 'border-block-start-style',
    'border-inline-start-width', 'border-block-start-width', 'border-inline-end-color', 'border-block-end-color',
    'border-inline-end-style', 'border-block-end-style', 'border-inline-end-width', 'border-block-end-width',
  )]],
  // The shorthand and its four physical corners; the logical corners are css-border-radius-logical.
  ['css-border-radius', [declaration('border-radius', 'border-top-left-radius', 'border-top-right-radius', 'border-bottom-right-radius', 'border-bottom-left-radius')]],
  ['css-border-radius-logical', [declaration('border-start-start-radius', 'border-start-end-radius', 'border-end-start-radius', 'border-end-end-radius')]],
  // Both pages test inline-size: a declaration of it is reported on both.
  ['css-block-inline-size', [declaration('block-size', 'inline-size')]],
  // column-count and column-gap have pages of their own (css-column-count, css-gap).
  ['css-column-layout-properties', [declaration('columns', 'column-fill', 'column-rule', 'column-rule-color', 'column-rule-style', 'column-rule-width', 'column-span', 'column-width')]],
  ['css-gap', [declaration('gap', 'column-gap', 'row-gap')]],
  ['css-grid-template', [declaration('grid-template', 'grid-template-areas', 'grid-template-columns', 'grid-template-rows')]],
  ['css-inset', [declaration('inset', 'inset-block', 'inset-inline', 'inset-block-start', 'inset-block-end', 'inset-inline-start', 'inset-inline-end')]],
  ['css-left-right-top-bottom', [declaration('left', 'right', 'top', 'bottom')]],
  // The shorthand and its four physical sides, as the page's description says; the logical ones have pages of their own.
  ['css-margin', [declaration('margin', 'margin-top', 'margin-right', 'margin-bottom', 'margin-left')]],
  ['css-margin-block-start-end', [declaration('margin-block-start', 'margin-block-end')]],
  ['css-margin-inline-block', [declaration('margin-inline', 'margin-block')]],
  ['css-margin-inline-start-end', [declaration('margin-inline-start', 'margin-inline-end')]],
  ['css-padding', [declaration('padding', 'padding-top', 'padding-right', 'padding-bottom', 'padding-left')]],
  ['css-padding-block-start-end', [declaration('padding-block-start', 'padding-block-end')]],
  ['css-padding-inline-block', [declaration('padding-inline', 'padding-block')]],
  ['css-padding-inline-start-end', [declaration('padding-inline-start', 'padding-inline-end')]],
  // outline-offset has a page of its own.
  ['css-outline', [declaration('outline', 'outline-color', 'outline-style', 'outline-width')]],
  ['css-overflow', [declaration('overflow', 'overflow-x', 'overflow-y', 'overflow-block', 'overflow-inline')]],
  ['css-scroll-snap', [declaration('scroll-snap-type', 'scroll-snap-align', 'scroll-snap-stop')]],
  // text-emphasis-position has a page of its own.
  ['css-text-emphasis', [declaration('text-emphasis', 'text-emphasis-color', 'text-emphasis-style')]],
  ['css-transition', [declaration('transition', 'transition-property', 'transition-duration', 'transition-timing-function', 'transition-delay', 'transition-behavior')]],

  // Values of a property: the page names the value (`display:flex`, `flex-direction:column`, `flex-wrap: wrap`).
  ['css-display-flex', [declarationWith(['display'], ['flex', 'inline-flex'])]],
  ['css-display-grid', [declarationWith(['display'], ['grid', 'inline-grid'])]],
  ['css-display-none', [declarationWith(['display'], ['none'])]],
  ['css-flex-direction', [declarationWith(['flex-direction', 'flex-flow'], ['column', 'column-reverse'])]],
  ['css-flex-wrap', [declarationWith(['flex-wrap', 'flex-flow'], ['wrap', 'wrap-reverse'])]],
  ['css-intrinsic-size', [{ on: 'keyword', keywords: ['fit-content', 'min-content', 'max-content' ] }, functions('fit-content')]],
  ['css-sytem-ui', [{ on: 'keyword', keywords: ['system-ui', 'ui-serif', 'ui-sans-serif', 'ui-rounded', 'ui-monospace'], properties: ['font-family', 'font'] }]],
  ['css-unit-initial', [{ on: 'keyword', keywords: ['initial'] }]],
  ['css-unit-percent', [{ on: 'unit', units: ['%'] }]],

  // Functions: the page's function, its repeating and vendor-prefixed forms (the same gradient to a client that reads them).
  ['css-linear-gradient', [functions('linear-gradient', 'repeating-linear-gradient', '-webkit-linear-gradient', '-moz-linear-gradient', '-webkit-repeating-linear-gradient')]],
  ['css-radial-gradient', [functions('radial-gradient', 'repeating-radial-gradient', '-webkit-radial-gradient', '-moz-radial-gradient', '-webkit-repeating-radial-gradient')]],
  ['css-conic-gradient', [functions('conic-gradient', 'repeating-conic-gradient')]],
  ['css-modern-color', [functions('lch', 'oklch', 'lab', 'oklab')]],
  ['css-rgb', [functions('rgb')]],
  ['css-rgba', [functions('rgba')]],
  ['css-unit-calc', [functions('calc', '-webkit-calc')]],
  // Declaring a custom property or reading one: the page's notes tell the two apart, either is a use.
  ['css-variables', [{ on: 'custom-property' }, functions('var')]],
  ['css-important', [{ on: 'important' }]],
  ['css-comments', [{ on: 'css-comment' }]],
  ['css-nesting', [{ on: 'selector', form: 'nesting' }]],

  ['css-at-keyframes', [{ on: 'at-rule', names: ['keyframes', '-webkit-keyframes'] }]],
  ['css-at-media-device-pixel-ratio', [{ on: 'media-feature', names: ['-webkit-device-pixel-ratio', '-webkit-min-device-pixel-ratio', '-webkit-max-device-pixel-ratio', 'device-pixel-ratio', 'min-device-pixel-ratio', 'max-device-pixel-ratio'] }]],
  ['css-at-media-hover', [{ on: 'media-feature', names: ['hover', 'any-hover'] }]],
  ['css-at-media-orientation', [{ on: 'media-feature', names: ['orientation'] }]],
  ['css-at-media-prefers-color-scheme', [{ on: 'media-feature', names: ['prefers-color-scheme'] }]],
  ['css-at-media-prefers-reduced-motion', [{ on: 'media-feature', names: ['prefers-reduced-motion'] }]],
  ['css-pseudo-element-placeholder', [{ on: 'pseudo-element', names: ['placeholder', '-webkit-input-placeholder', '-moz-placeholder', '-ms-input-placeholder'] }]],

  // The page is about the HTML attribute, whatever its css- slug says.
  ['css-inert-attribute', [attribute('inert')]],

  ['html-h1-h6', [element('h1', 'h2', 'h3', 'h4', 'h5', 'h6')]],
  // One place per list; its <li>, <dt> and <dd> are part of it.
  ['html-lists', [element('ul', 'ol', 'dl')]],
  ['html-semantics', [element('article', 'aside', 'details', 'figcaption', 'figure', 'footer', 'header', 'main', 'mark', 'nav', 'section', 'summary', 'time')]],
  ['html-image-maps', [element('map'), { on: 'attribute', names: ['usemap'], tags: ['img'] }]],
  // A <button> without a type is a submit button, an <input> without one a text field (HTML's defaults).
  ['html-button-reset', [{ on: 'element', tags: ['button'], types: ['reset'] }]],
  ['html-button-submit', [{ on: 'element', tags: ['button'], types: ['submit'], untyped: true }]],
  ['html-input-checkbox', [{ on: 'element', tags: ['input'], types: ['checkbox'] }]],
  ['html-input-hidden', [{ on: 'element', tags: ['input'], types: ['hidden'] }]],
  ['html-input-radio', [{ on: 'element', tags: ['input'], types: ['radio'] }]],
  ['html-input-reset', [{ on: 'element', tags: ['input'], types: ['reset'] }]],
  ['html-input-submit', [{ on: 'element', tags: ['input'], types: ['submit'] }]],
  ['html-input-text', [{ on: 'element', tags: ['input'], types: ['text'], untyped: true }]],
  ['html-target', [{ on: 'attribute', names: ['target'], tags: ['a', 'area'] }]],
  ['html-srcset', [{ on: 'attribute', names: ['srcset', 'sizes'], tags: ['img', 'source'] }]],
  ['html-loading-attribute', [{ on: 'attribute', names: ['loading'], tags: ['img'] }]],
  // The page's notes are about popovertarget too.
  ['html-popover', [attribute('popover', 'popovertarget')]],
  ['html-mailto-links', [{ on: 'link', to: 'mailto' }]],
  ['html-anchor-links', [{ on: 'link', to: 'anchor' }]],
  ['html-meta-color-scheme', [{ on: 'meta', names: ['color-scheme', 'supported-color-schemes'] }]],
  ['html-doctype', [{ on: 'doctype' }]],
  ['html-comments', [{ on: 'html-comment' }]],

  // caniemail tested each format as a linked file of that extension (images.html); an animated
  // PNG named .png cannot be told from a still one, so image-apng is only .apng and image/apng.
  ['image-apng', [image(['apng'], ['image/apng'])]],
  ['image-avif', [image(['avif'], ['image/avif'])]],
  ['image-bmp', [image(['bmp'], ['image/bmp', 'image/x-ms-bmp'])]],
  ['image-gif', [image(['gif'], ['image/gif'])]],
  ['image-hdr', [image(['hdr'], ['image/vnd.radiance'])]],
  ['image-heif', [image(['heif', 'heic'], ['image/heif', 'image/heic'])]],
  ['image-ico', [image(['ico'], ['image/x-icon', 'image/vnd.microsoft.icon'])]],
  ['image-jpg', [image(['jpg', 'jpeg', 'jpe', 'jfif'], ['image/jpeg'])]],
  ['image-mp4', [image(['mp4', 'm4v'], ['video/mp4'])]],
  ['image-png', [image(['png'], ['image/png'])]],
  ['image-svg', [image(['svg'], ['image/svg+xml'])]],
  ['image-tiff', [image(['tif', 'tiff'], ['image/tiff'])]],
  ['image-webp', [image(['webp'], ['image/webp'])]],
  // The page tests base64 data: URLs; a data: URL that is not base64 is not this format.
  ['image-base64', [{ on: 'image-data-url' }]],
];

/** The rows as a map; a slug twice is a mistake in this file, caught when it loads. */
function table(rows: Array<[string, Detection[]]>): ReadonlyMap<string, readonly Detection[]> {
  const map = new Map<string, readonly Detection[]>();
  for (const [slug, detections] of rows) {
    if (map.has(slug)) throw new Error(`html-features: "${slug}" has two rows; merge them`);
    map.set(slug, detections);
  }
  return map;
}

/** Every detected slug and how it shows in a mail. */
export const DETECTORS = table([
  ...derived('css-', (name) => declaration(name), PROPERTY_SLUGS),
  ...derived('css-at-', (name) => ({ on: 'at-rule', names: [name] }), AT_RULE_SLUGS),
  ...derived('css-pseudo-class-', (name) => ({ on: 'pseudo-class', names: [name] }), PSEUDO_CLASS_SLUGS),
  ...derived('css-pseudo-element-', (name) => ({ on: 'pseudo-element', names: [name] }), PSEUDO_ELEMENT_SLUGS),
  ...derived('css-selector-', (name) => ({ on: 'selector', form: name as SelectorForm }), SELECTOR_SLUGS),
  ...derived('css-unit-', (name) => ({ on: 'unit', units: [name] }), UNIT_SLUGS),
  ...derived('css-function-', (name) => functions(name), FUNCTION_SLUGS),
  ...derived('html-', (name) => element(name), ELEMENT_SLUGS),
  ...derived('html-', (name) => attribute(name), ATTRIBUTE_SLUGS),
  ...derived('html-', (name) => attribute(name), ARIA_SLUGS),
  ...EXPLICIT,
]);

/**
 * Slugs of the data that are not detected, with the reason: neither shows in the HTML of a mail.
 */
export const NOT_DETECTED: Readonly<Record<string, string>> = {
  amp: 'AMP for Email is a text/x-amp-html part of its own, beside the HTML part this check reads',
  bimi: 'BIMI is a DNS record of the sender and a mail authentication result, not part of the HTML',
};
