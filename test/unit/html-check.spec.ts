// Tests the HTML check as its callers see it: the features a mail uses (each class of
// detection beside a look-alike that is not one), where they are, which clients lack them by
// the caniemail data, the clients option (ids, globs, default, errors) and the detector table
// against the data file. Expected support values were read from src/checks/caniemail.json by
// hand (data of 2026-05-13) and are written here as literals.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { checkHtml, DEFAULT_CLIENTS, HtmlCheckError, htmlCheckClients } from '../../src/checks/html-check.js';
import { DETECTORS, NOT_DETECTED } from '../../src/checks/html-features.js';

/** Every client: a feature is reported when any client lacks it. */
const ALL = ['*'];

/** The features of `html` some client lacks or supports in part, sorted. */
function used(html: string): string[] {
  return checkHtml(html, { clients: ALL }).issues.map((issue) => issue.feature).sort();
}

test.describe('detection', () => {
  test('a CSS property, in a style attribute or a <style> block; not its name in a class, in text, or vendor-prefixed', () => {
    expect(used('<p style="box-shadow: 0 0 4px red">x</p>')).toContain('css-box-shadow');
    expect(used('<style>.card { box-shadow: 0 0 4px red }</style>')).toContain('css-box-shadow');
    expect(used('<p class="box-shadow" style="-webkit-box-shadow: 0 0 4px red">box-shadow: 0</p>')).not.toContain('css-box-shadow');
  });

  test('longhands count for the page that lists them, and only for it', () => {
    expect(used('<p style="margin-top: 4px">x</p>')).toContain('css-margin');
    const logical = used('<p style="margin-inline-start: 4px">x</p>');
    expect(logical).toContain('css-margin-inline-start-end');
    expect(logical).not.toContain('css-margin');
    expect(used('<p style="border-top-color: red">x</p>')).toContain('css-border');
    expect(used('<p style="border-radius: 4px">x</p>')).not.toContain('css-border');
  });

  test('a property value: display:flex is flex; display:block, a .flex class or "grid" in text are not', () => {
    expect(used('<div style="display:flex">x</div>')).toEqual(['css-display', 'css-display-flex']);
    expect(used('<div style="display: inline-flex">x</div>')).toContain('css-display-flex');
    expect(used('<div style="display:block">x</div>')).toEqual(['css-display']);
    expect(used('<style>.flex { color: red }</style><div class="flex">grid</div>')).not.toContain('css-display-flex');
    expect(used('<p>use display:grid for layout</p>')).not.toContain('css-display-grid');
    expect(used('<style>.g { display: inline-grid }</style>')).toContain('css-display-grid');
    expect(used('<div style="flex-direction: column">x</div>')).toContain('css-flex-direction');
    expect(used('<div style="flex-direction: row">x</div>')).not.toContain('css-flex-direction');
  });

  test('a condition of @supports is not a use of what it tests', () => {
    const features = used('<style>@supports (display: grid) { .g { color: red } }</style>');
    expect(features).toContain('css-at-supports');
    expect(features).not.toContain('css-display-grid');
  });

  test('at-rules and media features', () => {
    const dark = used('<style>@media (prefers-color-scheme: dark) { .a { color: white } }</style>');
    expect(dark).toContain('css-at-media');
    expect(dark).toContain('css-at-media-prefers-color-scheme');
    const narrow = used('<style>@media screen and (max-width: 600px) { .a { color: white } }</style>');
    expect(narrow).toContain('css-at-media');
    expect(narrow).not.toContain('css-at-media-prefers-color-scheme');
    expect(used('<style>@media (orientation: landscape) {}</style>')).toContain('css-at-media-orientation');
    expect(used('<style>@media (any-hover: hover) {}</style>')).toContain('css-at-media-hover');
    expect(used('<style>@font-face { font-family: X; src: url(x.woff2) }</style>')).toContain('css-at-font-face');
    expect(used('<style>@import url(x.css);</style>')).toContain('css-at-import');
    expect(used('<style>@keyframes spin { from { opacity: 0 } to { opacity: 1 } }</style>')).toContain('css-at-keyframes');
    expect(used('<p>@media and @import in text</p>')).toEqual([]);
  });

  test('selectors: pseudo-classes, pseudo-elements, combinators, chaining, grouping', () => {
    expect(used('<style>a:hover { color: red }</style>')).toContain('css-pseudo-class-hover');
    expect(used('<style>a.hover { color: red }</style>')).not.toContain('css-pseudo-class-hover');
    expect(used('<style>li:not(.x) { color: red }</style>')).toContain('css-pseudo-class-not');
    expect(used('<style>p::before { content: "" }</style>')).toContain('css-pseudo-element-before');
    // The CSS 2 form of a pseudo-element is the same pseudo-element.
    expect(used('<style>p:before { content: "" }</style>')).toContain('css-pseudo-element-before');
    const combinators = used('<style>.a > .b { color: red } .c + .d { color: red } .e ~ .f { color: red }</style>');
    expect(combinators).toEqual(expect.arrayContaining(['css-selector-child', 'css-selector-adjacent-sibling', 'css-selector-general-sibling']));
    expect(combinators).not.toContain('css-selector-descendant');
    expect(used('<style>.a .b { color: red }</style>')).toContain('css-selector-descendant');
    expect(used('<style>.a.b { color: red }</style>')).toContain('css-selector-chaining');
    expect(used('<style>td.a { color: red }</style>')).not.toContain('css-selector-chaining');
    expect(used('<style>.a, .b { color: red }</style>')).toContain('css-selector-grouping');
    expect(used('<style>.a { color: red }</style>')).not.toContain('css-selector-grouping');
    expect(used('<style>* { margin: 0 }</style>')).toContain('css-selector-universal');
    expect(used('<style>[data-x] { color: red }</style>')).toContain('css-selector-attribute');
    expect(used('<style>#main { color: red }</style>')).toContain('css-selector-id');
    expect(used('<style>p { color: red }</style>')).toContain('css-selector-type');
    // A keyframe selector (`from`, `to`) is not a type selector.
    expect(used('<style>@keyframes k { from { opacity: 0 } to { opacity: 1 } }</style>')).not.toContain('css-selector-type');
  });

  test('nesting, with & and without', () => {
    expect(used('<style>.a { color: red; & .b { color: blue } }</style>')).toContain('css-nesting');
    const bare = used('<style>.a { color: red; .b:hover { color: blue } }</style>');
    expect(bare).toContain('css-nesting');
    // The nested rule is read too.
    expect(bare).toContain('css-pseudo-class-hover');
    expect(used('<style>.a { color: red; @media (max-width: 600px) { color: blue } }</style>')).toContain('css-nesting');
    expect(used('<style>.a { color: red } .a .b { color: blue } @media (max-width: 600px) { .a { color: blue } }</style>')).not.toContain('css-nesting');
  });

  test('values: units, functions, custom properties, !important, comments', () => {
    expect(used('<p style="width: 50vw">x</p>')).toContain('css-unit-vw');
    expect(used('<p style="font-size: 1.2rem">x</p>')).toContain('css-unit-rem');
    expect(used('<style>@media (max-width: 40rem) { .a { color: red } }</style>')).not.toContain('css-unit-rem');
    expect(used('<p style="width: calc(100% - 8px)">x</p>')).toContain('css-unit-calc');
    expect(used('<p style="width: clamp(200px, 50%, 600px)">x</p>')).toContain('css-function-clamp');
    expect(used('<p style="color: rgba(0, 0, 0, .5)">x</p>')).toContain('css-rgba');
    expect(used('<p class="rgba" style="color: #000">rgba(0, 0, 0, .5)</p>')).not.toContain('css-rgba');
    expect(used('<p style="background-image: linear-gradient(red, blue)">x</p>')).toContain('css-linear-gradient');
    expect(used('<p style="--brand: red">x</p>')).toContain('css-variables');
    expect(used('<p style="color: var(--brand)">x</p>')).toContain('css-variables');
    expect(used('<p style="color: red">--brand</p>')).not.toContain('css-variables');
    expect(used('<p style="color: red !important">x</p>')).toContain('css-important');
    expect(used('<p style="color: red">!important</p>')).not.toContain('css-important');
    expect(used('<style>/* dark */ .a { color: red }</style>')).toContain('css-comments');
    expect(used('<p style="color: red /* dark */">x</p>')).toContain('css-comments');
    expect(used('<p>/* not CSS */</p>')).not.toContain('css-comments');
    expect(used('<p style="width: fit-content">x</p>')).toContain('css-intrinsic-size');
    expect(used('<p style="color: initial">x</p>')).toContain('css-unit-initial');
    expect(used('<p style="font-family: system-ui, sans-serif">x</p>')).toContain('css-sytem-ui');
    expect(used('<p style="color: red">initial system-ui</p>')).toEqual([]);
  });

  test('HTML elements, by tag and by type', () => {
    expect(used('<video src="a.webm"></video>')).toContain('html-video');
    expect(used('<p>a video</p>')).not.toContain('html-video');
    expect(used('<audio src="a.mp3"></audio>')).toContain('html-audio');
    expect(used('<svg width="10" height="10"></svg>')).toContain('html-svg');
    expect(used('<form action="https://example.test"></form>')).toContain('html-form');
    expect(used('<ol><li>x</li></ol>')).toContain('html-lists');
    expect(used('<section>x</section>')).toContain('html-semantics');
    expect(used('<input type="checkbox">')).toContain('html-input-checkbox');
    expect(used('<input type="checkbox">')).not.toContain('html-input-text');
    // HTML's defaults: an <input> without a type is a text field, a <button> a submit button.
    expect(used('<input name="q">')).toContain('html-input-text');
    expect(used('<button>Go</button>')).toContain('html-button-submit');
    expect(used('<button type="button">Go</button>')).not.toContain('html-button-submit');
    expect(used('<img src="a.png" usemap="#m"><map name="m"></map>')).toContain('html-image-maps');
  });

  test('HTML attributes, links, the doctype, meta', () => {
    expect(used('<p align="center">x</p>')).toContain('html-align');
    expect(used('<p style="text-align: center">align</p>')).not.toContain('html-align');
    expect(used('<a href="https://example.test" target="_blank">x</a>')).toContain('html-target');
    expect(used('<form target="_blank"></form>')).not.toContain('html-target');
    expect(used('<table role="presentation"><tr><td>x</td></tr></table>')).toContain('html-role');
    expect(used('<p aria-label="x">x</p>')).toContain('html-aria-label');
    expect(used('<p dir="rtl">x</p>')).toContain('html-dir');
    expect(used('<img src="a.png" loading="lazy">')).toContain('html-loading-attribute');
    expect(used('<img src="a.png" srcset="a2.png 2x">')).toContain('html-srcset');
    expect(used('<p hidden>x</p>')).toContain('html-hidden');
    expect(used('<a href="mailto:help@example.test">x</a>')).toContain('html-mailto-links');
    expect(used('<a href="#top">x</a>')).toContain('html-anchor-links');
    expect(used('<a href="https://example.test/#top">x</a>')).not.toContain('html-anchor-links');
    expect(used('<!DOCTYPE html><p>x</p>')).toContain('html-doctype');
    expect(used('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"><p>x</p>')).not.toContain('html-doctype');
    expect(used('<meta name="color-scheme" content="light dark">')).toContain('html-meta-color-scheme');
    expect(used('<meta name="viewport" content="width=device-width">')).not.toContain('html-meta-color-scheme');
  });

  test('images by extension, MIME type and data: URL, wherever an image is; a link to one is not an image', () => {
    expect(used('<img src="https://cdn.example.test/hero.webp?v=2">')).toContain('image-webp');
    expect(used('<img src="a.png" srcset="a.avif 2x">')).toContain('image-avif');
    expect(used('<picture><source type="image/webp" srcset="hero"><img src="hero.png"></picture>')).toContain('image-webp');
    expect(used('<td style="background-image: url(bg.gif)">x</td>')).toContain('image-gif');
    expect(used('<style>.hero { background: url("hero.svg") }</style>')).toContain('image-svg');
    expect(used('<table background="bg.webp"><tr><td>x</td></tr></table>')).toContain('image-webp');
    const inline = used('<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">');
    expect(inline).toEqual(expect.arrayContaining(['image-base64', 'image-gif']));
    expect(used('<img src="clip.mp4">')).toContain('image-mp4');
    expect(used('<video src="clip.mp4"></video>')).not.toContain('image-mp4');
    expect(used('<a href="hero.webp">the picture</a>')).not.toContain('image-webp');
    expect(used('<style>@font-face { font-family: I; src: url(icons.svg) }</style>')).not.toContain('image-svg');
  });
});

test.describe('the report', () => {
  test('support and notes come from each client\'s newest version, in the data\'s order', () => {
    const report = checkHtml('<div style="display:flex">x</div>', { clients: ['gmail.*', 'outlook.windows'] });
    expect(report).toEqual({
      hasHtml: true,
      clients: ['gmail.android', 'gmail.desktop-webmail', 'gmail.ios', 'gmail.mobile-webmail', 'outlook.windows'],
      dataDate: '2026-05-13',
      issues: [
        {
          feature: 'css-display-flex',
          title: 'display:flex',
          url: 'https://www.caniemail.com/features/css-display-flex/',
          category: 'css',
          clients: [
            // gmail.ios and .android: 2019-02 "y", then 2020-11 and 2026-03 "a #1".
            { client: 'gmail.android', name: 'Gmail Android', support: 'partial', notes: ['Not supported with non Google accounts.'] },
            { client: 'gmail.ios', name: 'Gmail iOS', support: 'partial', notes: ['Not supported with non Google accounts.'] },
            { client: 'outlook.windows', name: 'Outlook Windows', support: 'no', notes: [] },
          ],
          where: ['line 1: <div style="display:flex">'],
          count: 1,
        },
        {
          feature: 'css-display',
          title: 'display',
          url: 'https://www.caniemail.com/features/css-display/',
          category: 'css',
          clients: [
            {
              client: 'gmail.android', name: 'Gmail Android', support: 'partial',
              notes: ['Partial. `flex`, `grid`, `flow-root`, `contents`, `inline flow-root`, `inline flex`, `inline grid`, `initial`, `revert`, `unset` are not supported with non Google accounts.'],
            },
            {
              client: 'gmail.ios', name: 'Gmail iOS', support: 'partial',
              notes: ['Partial. `flex`, `grid`, `flow-root`, `contents`, `inline flow-root`, `inline flex`, `inline grid`, `initial`, `revert`, `unset` are not supported with non Google accounts.'],
            },
            {
              client: 'outlook.windows', name: 'Outlook Windows', support: 'partial',
              notes: ['Buggy. `display:none` does not inherit to inner tables.', 'Partial. Only supports `display:none` (but not on `<img>`).'],
            },
          ],
          where: ['line 1: <div style="display:flex">'],
          count: 1,
        },
      ],
    });
  });

  test('an older version\'s value does not count, nor does JavaScript\'s key order ("16" before "12.4")', () => {
    // css-pseudo-class-active, apple-mail.macos: {"12.4":"n","16":"a #2"} → partial, note 2.
    const active = checkHtml('<style>a:active { color: red }</style>', { clients: ['apple-mail.macos'] });
    expect(active.issues.find((i) => i.feature === 'css-pseudo-class-active')?.clients).toEqual([
      { client: 'apple-mail.macos', name: 'Apple Mail macOS', support: 'partial', notes: ['Partial. Supported with mouse clicks. Not supported with keyboard input.'] },
    ]);
    // css-border-inline-block, apple-mail.macos: {"10.15":"n","11":"y","12":"y"} → supported.
    expect(checkHtml('<p style="border-inline: 1px solid red">x</p>', { clients: ['apple-mail.macos'] }).issues.map((i) => i.feature)).not.toContain('css-border-inline-block');
    // css-display-grid, gmail.desktop-webmail: {"2019-02":"n","2026-03":"y"} → supported; outlook.windows "n".
    const grid = checkHtml('<div style="display:grid">x</div>', { clients: ['gmail.desktop-webmail', 'outlook.windows'] });
    expect(grid.issues.find((i) => i.feature === 'css-display-grid')?.clients.map((c) => c.client)).toEqual(['outlook.windows']);
  });

  test('where: the line and the place, up to 5, with the count of all', () => {
    const html = [
      '<html><head>',
      '<style>',
      '  .row { display: flex; gap: 8px }',
      '  .col {',
      '    display: flex;',
      '  }',
      '</style></head><body>',
      '<div class="row" style="display:flex">',
      '<div style="display:flex">a</div><div style="display:flex">b</div>',
      '<div style="display:flex">c</div>',
      '</div></body></html>',
    ].join('\n');
    const flex = checkHtml(html, { clients: ['outlook.windows'] }).issues.find((i) => i.feature === 'css-display-flex');
    expect(flex?.count).toBe(6);
    expect(flex?.where).toEqual([
      'line 3, <style>: .row { display: flex }',
      'line 5, <style>: .col { display: flex }',
      'line 8: <div class="row" style="display:flex">',
      'line 9: <div style="display:flex">',
      'line 9: <div style="display:flex">',
    ]);
  });

  test('a selector\'s place is its rule; a media feature\'s its @media', () => {
    const report = checkHtml('<style>\na:hover, b:hover { color: red }\n@media (prefers-color-scheme: dark) { .a { color: white } }\n</style>', { clients: ['outlook.windows'] });
    const where = Object.fromEntries(report.issues.map((i) => [i.feature, [i.count, ...i.where]]));
    expect(where['css-pseudo-class-hover']).toEqual([1, 'line 2, <style>: a:hover, b:hover { … }']);
    expect(where['css-at-media-prefers-color-scheme']).toEqual([1, 'line 3, <style>: @media (prefers-color-scheme: dark) { … }']);
  });

  test('most clients with "no" first, then by slug; a feature no client lacks is left out', () => {
    const report = checkHtml('<video src="a.webm"></video><div style="display:grid;border-radius:4px">x</div>', {
      clients: ['apple-mail.macos', 'gmail.desktop-webmail', 'outlook.windows'],
    });
    // html-video: gmail.desktop-webmail "n #2", outlook.windows "n"; border-radius and display:grid: outlook.windows "n";
    // display: outlook.windows "a #4 #5"; apple-mail.macos supports all of them.
    expect(report.issues.map((i) => [i.feature, i.clients.map((c) => `${c.client}:${c.support}`).join(' ')])).toEqual([
      ['html-video', 'gmail.desktop-webmail:no outlook.windows:no'],
      ['css-border-radius', 'outlook.windows:no'],
      ['css-display-grid', 'outlook.windows:no'],
      ['css-display', 'outlook.windows:partial'],
    ]);
  });

  test('a mail without HTML: hasHtml false and no issues', () => {
    for (const html of [null, undefined, '', ' \n ']) {
      expect(checkHtml(html, { clients: ['outlook.windows'] })).toEqual({ hasHtml: false, clients: ['outlook.windows'], dataDate: '2026-05-13', issues: [] });
    }
  });
});

test.describe('clients', () => {
  test('globs of * match ids; several are merged and sorted', () => {
    expect(checkHtml('', { clients: ['gmail.*'] }).clients).toEqual(['gmail.android', 'gmail.desktop-webmail', 'gmail.ios', 'gmail.mobile-webmail']);
    expect(checkHtml('', { clients: ['*.ios'] }).clients).toEqual([
      'aol.ios', 'apple-mail.ios', 'gmail.ios', 'gmx.ios', 'laposte.ios', 'orange.ios', 'outlook.ios', 'protonmail.ios', 'sfr.ios', 'web-de.ios', 'yahoo.ios',
    ]);
    expect(checkHtml('', { clients: ['outlook.windows', 'Outlook.Win*', 'yahoo.*s'] }).clients).toEqual(['outlook.windows', 'outlook.windows-mail', 'yahoo.ios']);
    expect(checkHtml('', { clients: ['*'] }).clients).toHaveLength(48);
  });

  test('the default: every platform of Apple Mail, Gmail, Outlook and Yahoo! Mail (also for an empty list)', () => {
    const defaults = [
      'apple-mail.ios', 'apple-mail.macos',
      'gmail.android', 'gmail.desktop-webmail', 'gmail.ios', 'gmail.mobile-webmail',
      'outlook.android', 'outlook.ios', 'outlook.macos', 'outlook.outlook-com', 'outlook.windows', 'outlook.windows-mail',
      'yahoo.android', 'yahoo.desktop-webmail', 'yahoo.ios',
    ];
    expect(DEFAULT_CLIENTS).toEqual(['apple-mail.*', 'gmail.*', 'outlook.*', 'yahoo.*']);
    expect(checkHtml('<p>x</p>').clients).toEqual(defaults);
    expect(checkHtml('<p>x</p>', { clients: [] }).clients).toEqual(defaults);
  });

  test('the clients have the names of the data', () => {
    const clients = htmlCheckClients();
    expect(clients).toHaveLength(48);
    expect(clients).toContainEqual({ id: 'outlook.windows', name: 'Outlook Windows' });
    expect(clients).toContainEqual({ id: 'yahoo.desktop-webmail', name: 'Yahoo! Mail Desktop Webmail' });
  });

  test('an unknown id or a glob matching nothing is a coded error naming it, the known ids and the way out', () => {
    let error: unknown;
    try {
      checkHtml('<p>x</p>', { clients: ['outlook.windows', 'outlok.windows', 'hotmail.*'] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(HtmlCheckError);
    const e = error as HtmlCheckError;
    expect(e.code).toBe('MW_ERR_HTML_CHECK_CLIENT');
    expect(e.unknown).toEqual(['outlok.windows', 'hotmail.*']);
    expect(e.message).toContain('"outlok.windows" is not a mail client, "hotmail.*" matches no mail client of the caniemail data');
    expect(e.message).toContain('or globs of them ("outlook.*", "*.ios"), or leave the clients out for the default (apple-mail.*, gmail.*, outlook.*, yahoo.*)');
    expect(e.message).toContain('The clients are: aol.android, aol.desktop-webmail,');
    expect(e.message).toContain('outlook.windows, outlook.windows-mail,');
    // Even a mail without HTML: the option is wrong either way.
    expect(() => checkHtml(null, { clients: ['nope'] })).toThrow(HtmlCheckError);
  });
});

test('every slug of the data file is detected or on the commented list of slugs not detected, not both', () => {
  const data = JSON.parse(readFileSync(new URL('../../src/checks/caniemail.json', import.meta.url), 'utf8')) as { data: Array<{ slug: string }> };
  const slugs = data.data.map((f) => f.slug);
  expect(slugs).toHaveLength(307);
  const notDetected = Object.keys(NOT_DETECTED);
  for (const slug of slugs) {
    expect(Number(DETECTORS.has(slug)) + Number(notDetected.includes(slug)), slug).toBe(1);
  }
  // Nor does the table name a slug the data does not have (a typo, or a feature caniemail removed).
  const inData = new Set(slugs);
  expect([...DETECTORS.keys(), ...notDetected].filter((slug) => !inData.has(slug))).toEqual([]);
  expect(DETECTORS.size).toBe(305);
  expect(notDetected.sort()).toEqual(['amp', 'bimi']);
});
