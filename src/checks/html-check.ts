// Owns the HTML check of a mail: which HTML and CSS features it uses (parsed with cheerio's
// htmlparser2 and css-tree, never matched as text), and which mail clients lack them or support
// them in part, by the caniemail.com data (MIT, caniemail.LICENSE) beside this module. The data
// is read on the first check; the detector table is html-features.ts.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { load } from 'cheerio';
import type * as CssTree from 'css-tree';
import type { CssNode, Declaration, Rule, WalkContext } from 'css-tree';
import { isComment, isDirective, isTag, type AnyNode, type Element } from 'domhandler';
import { DEFAULT_HTML_CHECK_CLIENTS, type HtmlCheckClient, type HtmlCheckIssue, type HtmlCheckReport } from '../protocol/schemas.js';
import { DETECTORS, type Detection, type SelectorForm } from './html-features.js';

export type { HtmlCheckClient, HtmlCheckIssue, HtmlCheckReport };

/**
 * The clients checked when none are given: the families with the most readers, every platform
 * of each (Apple Mail, Gmail, Outlook, Yahoo! Mail).
 */
export const DEFAULT_CLIENTS: readonly string[] = DEFAULT_HTML_CHECK_CLIENTS;

/** Options of {@link checkHtml}. */
export interface HtmlCheckOptions {
  /**
   * The mail clients to check, as `family.platform` ids of the caniemail data
   * (`outlook.windows`, `gmail.desktop-webmail`, `apple-mail.ios`) or globs of them where `*`
   * is any text (`gmail.*`, `*.ios`). See {@link htmlCheckClients} for the ids. Absent or
   * empty: the default.
   * @default ['apple-mail.*', 'gmail.*', 'outlook.*', 'yahoo.*'] — the families with the most readers
   */
  clients?: readonly string[];
}

/**
 * A `clients` option the check cannot use: an id the caniemail data does not know, or a glob
 * that matches no client. `code` is stable; the message names what was given,
 * lists the known ids and says what to pass instead.
 */
export class HtmlCheckError extends Error {
  override readonly name = 'HtmlCheckError';
  /** Stable machine code: match on it, not on the message. */
  readonly code = 'MW_ERR_HTML_CHECK_CLIENT';
  constructor(
    message: string,
    /** The ids and globs given that match no client. */
    readonly unknown: readonly string[],
    /** Every client id of the data. */
    readonly known: readonly string[],
  ) {
    super(message);
  }
}

/**
 * Every mail client of the caniemail data, sorted by id: `{ id: 'outlook.windows', name: 'Outlook Windows' }`.
 * Reads the data on the first call.
 */
export function htmlCheckClients(): Array<{ id: string; name: string }> {
  return [...caniemail().clients].map(([id, name]) => ({ id, name }));
}

/**
 * Which HTML and CSS features of a mail each client lacks (`no`) or supports in part
 * (`partial`), by the caniemail.com data. A client's support is that of the newest version the
 * data lists for it; a feature every client checked supports, or that the mail does not use, is
 * not reported. Issues come with the most clients answering `no` first, then by feature slug;
 * each names up to 5 places in the mail (`line 12: <div style="display:flex">`,
 * `line 4, <style>: .row { display: flex }`) and how many there are.
 *
 * Common basics caniemail marks partial somewhere (`<p>`, `<div>`, `margin`, `width`) are
 * reported like any other feature: what fails a test is for the caller to decide.
 *
 * @param html - The decoded `text/html` body; `null`, `undefined` or blank for a mail without
 *   one (then `hasHtml` is false and there are no issues).
 * @param options - The clients to check; default {@link DEFAULT_CLIENTS}: `apple-mail.*`,
 *   `gmail.*`, `outlook.*`, `yahoo.*`, the families with the most readers.
 * @throws {HtmlCheckError} `MW_ERR_HTML_CHECK_CLIENT` for an unknown client id or a glob that
 *   matches none.
 *
 * @example
 * ```ts
 * import { checkHtml } from 'mailwright';
 *
 * const report = checkHtml(message.html, { clients: ['outlook.windows', 'gmail.*'] });
 * for (const issue of report.issues) {
 *   console.log(issue.title, issue.clients.map((c) => `${c.name}: ${c.support}`).join(', '), issue.where[0]);
 * }
 * ```
 */
export function checkHtml(html: string | null | undefined, options: HtmlCheckOptions = {}): HtmlCheckReport {
  const data = caniemail();
  const clients = resolveClients(options.clients, data.clients);
  const hasHtml = typeof html === 'string' && html.trim() !== '';
  const report: HtmlCheckReport = { hasHtml, clients, dataDate: data.date, issues: [] };
  if (!hasHtml) return report;
  const found = findFeatures(html, detectorIndex());
  for (const [slug, uses] of found) {
    const feature = data.features.get(slug);
    if (!feature) continue;
    const lacking: HtmlCheckClient[] = [];
    for (const client of clients) {
      const support = feature.support.get(client);
      if (support === undefined) continue;
      lacking.push({ client, name: data.clients.get(client) ?? client, support: support.level, notes: [...support.notes] });
    }
    if (lacking.length === 0) continue;
    report.issues.push({ feature: slug, title: feature.title, url: feature.url, category: feature.category, clients: lacking, where: uses.where, count: uses.count });
  }
  const noes = (issue: HtmlCheckIssue) => issue.clients.filter((c) => c.support === 'no').length;
  report.issues.sort((a, b) => noes(b) - noes(a) || (a.feature < b.feature ? -1 : a.feature > b.feature ? 1 : 0));
  return report;
}

// ---- clients ---------------------------------------------------------------------------

function resolveClients(given: readonly string[] | undefined, known: ReadonlyMap<string, string>): string[] {
  const ids = [...known.keys()];
  const wayOut =
    `pass family.platform ids of the caniemail data or globs of them ("outlook.*", "*.ios"), ` +
    `or leave the clients out for the default (${DEFAULT_CLIENTS.join(', ')}). The clients are: ${ids.join(', ')}`;
  const chosen = new Set<string>();
  const unknown: string[] = [];
  for (const raw of given?.length ? given : DEFAULT_CLIENTS) {
    const pattern = raw.trim().toLowerCase();
    const matches = pattern.includes('*') ? ids.filter(globMatcher(pattern)) : known.has(pattern) ? [pattern] : [];
    if (matches.length === 0) unknown.push(raw);
    for (const id of matches) chosen.add(id);
  }
  if (unknown.length > 0) {
    const what = unknown.map((u) => (u.includes('*') ? `"${u}" matches no mail client` : `"${u}" is not a mail client`)).join(', ');
    throw new HtmlCheckError(`${what} of the caniemail data; ${wayOut}`, unknown, ids);
  }
  return ids.filter((id) => chosen.has(id));
}

/** A glob of `*` (any text, dots included) as a test. */
function globMatcher(pattern: string): (id: string) => boolean {
  const parts = pattern.split('*');
  return (id) => {
    const first = parts[0]!;
    const last = parts[parts.length - 1]!;
    if (!id.startsWith(first) || id.length < first.length + last.length || !id.endsWith(last)) return false;
    let at = first.length;
    for (let i = 1; i < parts.length - 1; i++) {
      const found = id.indexOf(parts[i]!, at);
      if (found < 0 || found + parts[i]!.length > id.length - last.length) return false;
      at = found + parts[i]!.length;
    }
    return true;
  };
}

// ---- the caniemail data ------------------------------------------------------------------

interface Support {
  level: 'no' | 'partial';
  notes: readonly string[];
}

interface Feature {
  title: string;
  url: string;
  category: string;
  /** Clients whose newest tested version lacks the feature or supports it in part (the others support it or are untested). */
  support: ReadonlyMap<string, Support>;
}

interface Caniemail {
  /** `last_update_date`, the day: YYYY-MM-DD. */
  date: string;
  /** Every `family.platform` of the data, sorted, with its name. */
  clients: ReadonlyMap<string, string>;
  features: ReadonlyMap<string, Feature>;
}

let loaded: Caniemail | undefined;

function caniemail(): Caniemail {
  loaded ??= readCaniemail();
  return loaded;
}

/** The data beside the compiled module (dist/checks), else in src/checks (run from src, or a build without assets). */
function readCaniemail(): Caniemail {
  const places = [new URL('./caniemail.json', import.meta.url), new URL('../../src/checks/caniemail.json', import.meta.url)];
  let text: string | undefined;
  for (const place of places) {
    try {
      text = readFileSync(place, 'utf8');
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  if (text === undefined) {
    throw new Error(`the caniemail data is missing: neither ${places.map((p) => p.pathname).join(' nor ')} exists; run npm run build, or node scripts/refresh-caniemail.js`);
  }
  return toCaniemail(text);
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function toCaniemail(text: string): Caniemail {
  const { value, keysOf } = parseKeepingOrder(text);
  const fail = (what: string): never => {
    throw new Error(`the caniemail data is not in the expected shape (${what}); refresh it with node scripts/refresh-caniemail.js`);
  };
  const object = (v: Json | undefined, what: string) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : fail(`${what} is not an object`));
  const root = object(value, 'the file');
  const nicenames = object(root.nicenames, 'nicenames');
  const families = object(nicenames.family, 'nicenames.family');
  const platforms = object(nicenames.platform, 'nicenames.platform');
  if (!Array.isArray(root.data)) fail('data is not an array');
  const clientNames = new Map<string, string>();
  const features = new Map<string, Feature>();
  for (const entry of root.data as Json[]) {
    const f = object(entry, 'a feature');
    if (typeof f.slug !== 'string') fail('a feature has no slug');
    const slug = f.slug as string;
    const stats = object(f.stats, `${slug}.stats`);
    const notesByNum: { [key: string]: Json } = {};
    const notes = f.notes_by_num === null || f.notes_by_num === undefined ? {} : object(f.notes_by_num, `${slug}.notes_by_num`);
    for (const key of Object.keys(notes)) notesByNum[unmarked(key)] = notes[key]!;
    const support = new Map<string, Support>();
    for (const family of keysOf(stats)) {
      const byPlatform = object(stats[family], `${slug}.stats.${family}`);
      for (const platform of keysOf(byPlatform)) {
        const id = `${family}.${platform}`;
        clientNames.set(id, `${String(families[family] ?? family)} ${String(platforms[platform] ?? platform)}`);
        // The newest tested version is the last listed, as caniemail.com itself reads it
        // (its feature-support include: "we go for the last version listed"). The file's order,
        // not JavaScript's: an object puts keys such as "16" before "15.4".
        const versions = object(byPlatform[platform], `${slug}.stats.${id}`);
        const newest = versions[keysOf(versions).at(-1) ?? ''];
        if (typeof newest !== 'string') continue;
        // 'y', 'n', 'a', 'u', each maybe followed by note references: 'a #1 #3'.
        const [level, ...refs] = newest.trim().split(/\s+/);
        if (level !== 'n' && level !== 'a') continue;
        const notes = refs.filter((r) => r.startsWith('#')).map((r) => notesByNum[r.slice(1)]).filter((n): n is string => typeof n === 'string');
        support.set(id, { level: level === 'n' ? 'no' : 'partial', notes });
      }
    }
    features.set(slug, { title: String(f.title ?? slug), url: String(f.url ?? ''), category: String(f.category ?? ''), support });
  }
  const date = typeof root.last_update_date === 'string' ? root.last_update_date.slice(0, 10) : fail('last_update_date is missing');
  const clients = new Map([...clientNames].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { date, clients, features };
}

/** Marks an integer-like key ("16") so that an object keeps it in the order of the text. */
const KEPT = '\u0001';

/**
 * `JSON.parse` with each object's keys in the order of the text: JavaScript puts integer-like
 * keys ("16") before the others ("15.4"), and the order of a client's versions is the data. Such
 * keys are parsed with a mark in front (a key is the only string JSON follows with `:`); `keysOf`
 * gives them back without it.
 */
function parseKeepingOrder(text: string): { value: Json; keysOf: (o: { [key: string]: Json }) => string[] } {
  const value = JSON.parse(text.replace(/(?<!\\)"(\d+)"(\s*):/g, '"\\u0001$1"$2:')) as Json;
  return { value, keysOf: (o) => Object.keys(o) };
}

/** A key as the data wrote it. */
function unmarked(key: string): string {
  return key.startsWith(KEPT) ? key.slice(KEPT.length) : key;
}

// ---- the detector table, indexed -----------------------------------------------------------

type Of<K extends Detection['on']> = Extract<Detection, { on: K }>;
type Row<K extends Detection['on']> = { slug: string; detection: Of<K> };

/** The table by what the walk meets: a property name, a function name, a tag, … */
interface DetectorIndex {
  declarations: Map<string, Array<Row<'declaration'>>>;
  keywords: Map<string, Array<Row<'keyword'>>>;
  functions: Map<string, string[]>;
  units: Map<string, string[]>;
  atRules: Map<string, string[]>;
  mediaFeatures: Map<string, string[]>;
  pseudoClasses: Map<string, string[]>;
  pseudoElements: Map<string, string[]>;
  selectors: Map<SelectorForm, string[]>;
  elements: Map<string, Array<Row<'element'>>>;
  attributes: Map<string, Array<Row<'attribute'>>>;
  meta: Map<string, string[]>;
  links: Map<'mailto' | 'anchor', string[]>;
  imageExtensions: Map<string, string[]>;
  imageTypes: Map<string, string[]>;
  /** Slugs of the detections that take no name: custom-property, important, css-comment, doctype, html-comment, image-data-url. */
  plain: Map<'custom-property' | 'important' | 'css-comment' | 'doctype' | 'html-comment' | 'image-data-url', string[]>;
}

let index: DetectorIndex | undefined;

function detectorIndex(): DetectorIndex {
  index ??= buildIndex();
  return index;
}

function buildIndex(): DetectorIndex {
  const idx: DetectorIndex = {
    declarations: new Map(), keywords: new Map(), functions: new Map(), units: new Map(), atRules: new Map(),
    mediaFeatures: new Map(), pseudoClasses: new Map(), pseudoElements: new Map(), selectors: new Map(),
    elements: new Map(), attributes: new Map(), meta: new Map(), links: new Map(), imageExtensions: new Map(),
    imageTypes: new Map(), plain: new Map(),
  };
  const put = <K, V>(map: Map<K, V[]>, key: K, value: V) => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  for (const [slug, detections] of DETECTORS) {
    for (const d of detections) {
      switch (d.on) {
        case 'declaration': for (const p of d.properties) put(idx.declarations, p, { slug, detection: d }); break;
        case 'keyword': for (const k of d.keywords) put(idx.keywords, k, { slug, detection: d }); break;
        case 'function': for (const n of d.names) put(idx.functions, n, slug); break;
        case 'unit': for (const u of d.units) put(idx.units, u, slug); break;
        case 'at-rule': for (const n of d.names) put(idx.atRules, n, slug); break;
        case 'media-feature': for (const n of d.names) put(idx.mediaFeatures, n, slug); break;
        case 'pseudo-class': for (const n of d.names) put(idx.pseudoClasses, n, slug); break;
        case 'pseudo-element': for (const n of d.names) put(idx.pseudoElements, n, slug); break;
        case 'selector': put(idx.selectors, d.form, slug); break;
        case 'element': for (const t of d.tags) put(idx.elements, t, { slug, detection: d }); break;
        case 'attribute': for (const n of d.names) put(idx.attributes, n, { slug, detection: d }); break;
        case 'meta': for (const n of d.names) put(idx.meta, n, slug); break;
        case 'link': put(idx.links, d.to, slug); break;
        case 'image':
          for (const e of d.extensions) put(idx.imageExtensions, e, slug);
          for (const t of d.mimeTypes) put(idx.imageTypes, t, slug);
          break;
        default: put(idx.plain, d.on, slug);
      }
    }
  }
  return idx;
}

// ---- finding the features a mail uses ---------------------------------------------------------

let cssTreeModule: typeof CssTree | undefined;

/** css-tree, loaded on the first check: importing it builds its CSS dictionary (~60 ms), which only the check needs. */
function cssTree(): typeof CssTree {
  cssTreeModule ??= createRequire(import.meta.url)('css-tree') as typeof CssTree;
  return cssTreeModule;
}

/** At most this many places are named per feature. */
const MAX_WHERE = 5;
/** A place's text is cut to this length. */
const MAX_PLACE_TEXT = 160;

interface Uses {
  count: number;
  where: string[];
  places: Set<number>;
}

/** What one CSS walk reports to: a feature at a node (the place), with the text of the place. */
interface CssSink {
  hit(slug: string, place: CssNode, context: () => string): void;
}

/** CSS pseudo-elements CSS 2 wrote with one colon. */
const LEGACY_PSEUDO_ELEMENTS = new Set(['before', 'after', 'first-letter', 'first-line']);

function findFeatures(html: string, idx: DetectorIndex): Map<string, Uses> {
  const found = new Map<string, Uses>();
  const lines = lineStarts(html);
  /** `place` is an offset in `html`: the element, comment or CSS node the use is at. */
  const add = (slug: string, place: number, where: () => string) => {
    let uses = found.get(slug);
    if (!uses) found.set(slug, (uses = { count: 0, where: [], places: new Set() }));
    if (uses.places.has(place)) return;
    uses.places.add(place);
    uses.count++;
    if (uses.where.length < MAX_WHERE) uses.where.push(where());
  };
  const lineOf = (offset: number) => lineAt(lines, offset);
  /** Slugs of a `style` attribute's text: the same text is analysed once per mail. */
  const inlineStyles = new Map<string, string[]>();

  const inlineStyle = (style: string): string[] => {
    let slugs = inlineStyles.get(style);
    if (slugs) return slugs;
    const set = new Set<string>();
    const sink: CssSink = { hit: (slug) => set.add(slug) };
    try {
      const ast = cssTree().parse(style, { context: 'declarationList', parseCustomProperty: false, onComment: () => idx.plain.get('css-comment')?.forEach((s) => set.add(s)) });
      walkStyles(ast, style, idx, sink, null);
    } catch {
      // css-tree recovers from bad CSS; a text it still cannot read uses no feature it can name.
    }
    slugs = [...set];
    inlineStyles.set(style, slugs);
    return slugs;
  };

  const styleElement = (el: Element) => {
    const first = el.children[0];
    const last = el.children.at(-1);
    if (!first || !last || first.startIndex === null || last.endIndex === null) return;
    const start = first.startIndex;
    const sink: CssSink = {
      hit: (slug, node, context) => {
        const offset = node.loc?.start.offset ?? start;
        add(slug, offset, () => `line ${lineOf(offset)}, <style>: ${clip(context())}`);
      },
    };
    try {
      const ast = cssTree().parse(html.slice(start, last.endIndex + 1), {
        positions: true,
        offset: start,
        parseCustomProperty: false,
        onComment: (text, loc) => {
          for (const slug of idx.plain.get('css-comment') ?? []) add(slug, loc.start.offset, () => `line ${lineOf(loc.start.offset)}, <style>: ${clip(`/*${text}*/`)}`);
        },
      });
      walkStyles(ast, html, idx, sink, null);
    } catch {
      // As for a style attribute: what css-tree cannot read names no feature.
    }
  };

  const visit = (node: AnyNode) => {
    if (isComment(node)) {
      const at = node.startIndex ?? 0;
      for (const slug of idx.plain.get('html-comment') ?? []) add(slug, at, () => `line ${lineOf(at)}: ${clip(`<!--${node.data}-->`)}`);
      return;
    }
    if (isDirective(node)) {
      const words = node.data.trim().toLowerCase().split(/\s+/);
      // The HTML5 doctype: `<!DOCTYPE html>`, or its legacy-compat form; any other (XHTML, HTML 4) is not it.
      if (words[0] === '!doctype' && words[1] === 'html' && (words.length === 2 || words[2] === 'system')) {
        const at = node.startIndex ?? 0;
        for (const slug of idx.plain.get('doctype') ?? []) add(slug, at, () => `line ${lineOf(at)}: ${clip(`<${node.data}>`)}`);
      }
      return;
    }
    if (!isTag(node)) return;
    const el = node;
    const at = el.startIndex ?? 0;
    const where = () => `line ${lineOf(at)}: ${clip(startTag(el))}`;
    const name = el.name.toLowerCase();
    const attribs = el.attribs;

    for (const { slug, detection } of idx.elements.get(name) ?? []) {
      if (detection.types) {
        const type = (attribs.type ?? '').trim().toLowerCase();
        if (type === '' ? !detection.untyped : !detection.types.includes(type)) continue;
      }
      add(slug, at, where);
    }
    for (const attribute of Object.keys(attribs)) {
      for (const { slug, detection } of idx.attributes.get(attribute.toLowerCase()) ?? []) {
        if (!detection.tags || detection.tags.includes(name)) add(slug, at, where);
      }
    }
    if (attribs.style !== undefined) for (const slug of inlineStyle(attribs.style)) add(slug, at, where);
    if ((name === 'a' || name === 'area') && attribs.href !== undefined) {
      const href = attribs.href.trim();
      const to = href.startsWith('#') ? 'anchor' : href.slice(0, 7).toLowerCase() === 'mailto:' ? 'mailto' : undefined;
      if (to) for (const slug of idx.links.get(to) ?? []) add(slug, at, where);
    }
    if (name === 'meta' && attribs.name !== undefined) {
      for (const slug of idx.meta.get(attribs.name.trim().toLowerCase()) ?? []) add(slug, at, where);
    }
    for (const slug of imagesOf(el, name, idx)) add(slug, at, where);
    if (name === 'style') styleElement(el);
    for (const child of el.children) visit(child);
  };

  const $ = load(html, { xml: { xmlMode: false, withStartIndices: true, withEndIndices: true, decodeEntities: true } });
  for (const child of $.root()[0]!.children) visit(child);
  return found;
}

/** Image formats of an element's images: `<img src srcset>`, `<picture>` `<source srcset type>`, the `background` attribute. */
function imagesOf(el: Element, name: string, idx: DetectorIndex): string[] {
  const slugs: string[] = [];
  const attribs = el.attribs;
  if (name === 'img') {
    if (attribs.src !== undefined) slugs.push(...imageFormats(attribs.src, undefined, idx));
    if (attribs.srcset !== undefined) for (const url of srcsetUrls(attribs.srcset)) slugs.push(...imageFormats(url, undefined, idx));
  }
  if (name === 'source' && el.parent !== null && isTag(el.parent) && el.parent.name.toLowerCase() === 'picture') {
    const type = attribs.type?.trim().toLowerCase() || undefined;
    for (const url of srcsetUrls(attribs.srcset ?? '')) slugs.push(...imageFormats(url, type, idx));
    if (type && !attribs.srcset) slugs.push(...imageFormats('', type, idx));
  }
  if (attribs.background !== undefined) slugs.push(...imageFormats(attribs.background, undefined, idx));
  return slugs;
}

/** The URLs of a `srcset`, by HTML's rules: a URL runs to white space (commas in it included) or to its trailing commas; descriptors follow. */
function srcsetUrls(srcset: string): string[] {
  const urls: string[] = [];
  const space = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';
  let i = 0;
  while (i < srcset.length) {
    while (i < srcset.length && (space(srcset[i]) || srcset[i] === ',')) i++;
    let end = i;
    while (end < srcset.length && !space(srcset[end])) end++;
    let url = srcset.slice(i, end);
    i = end;
    if (url.endsWith(',')) {
      while (url.endsWith(',')) url = url.slice(0, -1);
    } else {
      while (i < srcset.length && srcset[i] !== ',') i++;
    }
    if (url) urls.push(url);
  }
  return urls;
}

/** The image-format slugs of an image: its given MIME type, a `data:` URL's, or its file's extension. */
function imageFormats(url: string, type: string | undefined, idx: DetectorIndex): string[] {
  const trimmed = url.trim();
  if (type) return idx.imageTypes.get(type) ?? [];
  if (trimmed.slice(0, 5).toLowerCase() === 'data:') {
    const header = trimmed.slice(5, trimmed.indexOf(',') < 0 ? undefined : trimmed.indexOf(',')).toLowerCase();
    const [mime = '', ...params] = header.split(';').map((p) => p.trim());
    return [...(idx.imageTypes.get(mime) ?? []), ...(params.includes('base64') ? idx.plain.get('image-data-url') ?? [] : [])];
  }
  let path = trimmed;
  try {
    path = new URL(trimmed, 'https://mail.invalid/').pathname;
  } catch {
    // Not a URL a client can load either; its text is all there is.
  }
  const file = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  // The extension of the file, or of a name inside it that an image service reads (`fff.jpg&text=x`).
  for (let dot = file.lastIndexOf('.'); dot >= 0; dot = file.lastIndexOf('.', dot - 1)) {
    const extension = /^[a-z0-9]+/.exec(file.slice(dot + 1))?.[0];
    const slugs = extension === undefined ? undefined : idx.imageExtensions.get(extension);
    if (slugs) return slugs;
    if (dot === 0) break;
  }
  return [];
}

/**
 * Walks parsed CSS (a `<style>` sheet, a `style` attribute's declarations, or rules nested in a
 * rule) and reports each feature to `sink` at the node that is its place: the declaration for
 * what is in a value, the rule for what is in a selector, the at-rule for a media feature.
 * `source` is the text the node offsets point into; `nestedIn` the selector of the rule around
 * rules css-tree left unparsed (nesting without `&`), which are parsed again and walked here.
 */
function walkStyles(ast: CssNode, source: string, idx: DetectorIndex, sink: CssSink, nestedIn: string | null): void {
  const text = (node: CssNode | null | undefined) => (node?.loc ? collapse(source.slice(node.loc.start.offset, node.loc.end.offset)) : '');
  const ruleText = (rule: Rule) => text(rule.prelude);
  const atRuleHead = (ctx: WalkContext) => {
    const at = ctx.atrule;
    if (!at) return '';
    return `@${at.name}${at.prelude ? ` ${text(at.prelude)}` : ''}`;
  };
  const ownerOf = (ctx: WalkContext) => (ctx.rule ? ruleText(ctx.rule) : atRuleHead(ctx));
  const declarationContext = (ctx: WalkContext, declaration: Declaration) => {
    const owner = ownerOf(ctx);
    return owner ? `${owner} { ${text(declaration)} }` : text(declaration);
  };
  const selectorHit = (ctx: WalkContext, slugs: readonly string[] | undefined) => {
    const rule = ctx.rule;
    if (!slugs || !rule) return;
    for (const slug of slugs) sink.hit(slug, rule, () => `${ruleText(rule)} { … }`);
  };
  const valueHit = (ctx: WalkContext, slugs: readonly string[] | undefined) => {
    const declaration = ctx.declaration;
    if (!slugs || !declaration) return;
    for (const slug of slugs) sink.hit(slug, declaration, () => declarationContext(ctx, declaration));
  };
  const mediaFeature = (ctx: WalkContext, name: string) => {
    const at = ctx.atrule;
    if (!at) return;
    for (const slug of idx.mediaFeatures.get(name.toLowerCase()) ?? []) sink.hit(slug, at, () => `${atRuleHead(ctx)} { … }`);
  };
  let ruleDepth = nestedIn === null ? 0 : 1;

  cssTree().walk(ast, {
    enter(this: WalkContext, node: CssNode) {
      // A selector of a style rule: not a keyframe selector (`from`, `50%`), not a condition of @supports.
      const inSelector = this.rule !== null && this.declaration === null && this.atrulePrelude === null && !this.atrule?.name.toLowerCase().endsWith('keyframes');
      // A declaration's value: not a declaration in a condition (`@supports (display: grid)`).
      const inValue = this.declaration !== null && this.atrulePrelude === null;
      switch (node.type) {
        case 'Atrule': {
          const head = () => `@${node.name}${node.prelude ? ` ${text(node.prelude)}` : ''}`;
          const slugs = idx.atRules.get(node.name.toLowerCase());
          if (slugs) for (const slug of slugs) sink.hit(slug, node, () => `${head()}${node.block ? ' { … }' : ';'}`);
          // An at-rule in a style rule (`.a { @media (…) { color: red } }`) is nesting too.
          if (ruleDepth > 0) {
            const outer = nestedIn ?? (this.rule ? ruleText(this.rule) : '');
            for (const slug of idx.selectors.get('nesting') ?? []) sink.hit(slug, node, () => `${outer} { ${head()} { … } }`);
          }
          break;
        }
        case 'Feature':
          if (node.kind === 'media') mediaFeature(this, node.name);
          break;
        case 'FeatureRange':
          if (node.kind === 'media') {
            for (const side of [node.left, node.middle, node.right]) if (side?.type === 'Identifier') mediaFeature(this, side.name);
          }
          break;
        case 'Rule':
          if (ruleDepth > 0) {
            const outer = nestedIn ?? (this.rule ? ruleText(this.rule) : '');
            for (const slug of idx.selectors.get('nesting') ?? []) sink.hit(slug, node, () => `${outer} { ${text(node.prelude)} { … } }`);
          }
          ruleDepth++;
          break;
        case 'SelectorList':
          if (inSelector && this.rule?.prelude === node && node.children.size > 1) selectorHit(this, idx.selectors.get('grouping'));
          break;
        case 'Selector': {
          if (!inSelector) break;
          // Chaining: two or more class, id or attribute selectors in one compound (between combinators).
          let chained = 0;
          let chaining = false;
          node.children.forEach((part) => {
            if (part.type === 'Combinator') chained = 0;
            else if (part.type === 'ClassSelector' || part.type === 'IdSelector' || part.type === 'AttributeSelector') chaining ||= ++chained >= 2;
          });
          if (chaining) selectorHit(this, idx.selectors.get('chaining'));
          break;
        }
        case 'Combinator': {
          if (!inSelector) break;
          const form: SelectorForm | undefined = node.name === '>' ? 'child' : node.name === '+' ? 'adjacent-sibling' : node.name === '~' ? 'general-sibling' : node.name.trim() === '' ? 'descendant' : undefined;
          if (form) selectorHit(this, idx.selectors.get(form));
          break;
        }
        case 'TypeSelector':
          if (inSelector) selectorHit(this, idx.selectors.get(node.name === '*' || node.name.endsWith('|*') ? 'universal' : 'type'));
          break;
        case 'ClassSelector':
          if (inSelector) selectorHit(this, idx.selectors.get('class'));
          break;
        case 'IdSelector':
          if (inSelector) selectorHit(this, idx.selectors.get('id'));
          break;
        case 'AttributeSelector':
          if (inSelector) selectorHit(this, idx.selectors.get('attribute'));
          break;
        case 'NestingSelector':
          if (inSelector) selectorHit(this, idx.selectors.get('nesting'));
          break;
        case 'PseudoClassSelector': {
          if (!inSelector) break;
          const name = node.name.toLowerCase();
          selectorHit(this, LEGACY_PSEUDO_ELEMENTS.has(name) ? idx.pseudoElements.get(name) : idx.pseudoClasses.get(name));
          break;
        }
        case 'PseudoElementSelector':
          if (inSelector) selectorHit(this, idx.pseudoElements.get(node.name.toLowerCase()));
          break;
        case 'Declaration': {
          if (this.atrulePrelude !== null) break;
          const declaration = node;
          const hit = (slugs: readonly string[] | undefined) => {
            if (slugs) for (const slug of slugs) sink.hit(slug, declaration, () => declarationContext(this, declaration));
          };
          if (declaration.property.startsWith('--')) hit(idx.plain.get('custom-property'));
          const rows = idx.declarations.get(declaration.property.toLowerCase());
          if (rows) {
            let keywords: Set<string> | undefined;
            for (const { slug, detection } of rows) {
              if (detection.values) {
                keywords ??= keywordsOf(declaration.value);
                if (!detection.values.some((v) => keywords!.has(v))) continue;
              }
              hit([slug]);
            }
          }
          if (declaration.important) hit(idx.plain.get('important'));
          break;
        }
        case 'Function':
          if (inValue) valueHit(this, idx.functions.get(node.name.toLowerCase()));
          break;
        case 'Dimension':
          if (inValue) valueHit(this, idx.units.get(node.unit.toLowerCase()));
          break;
        case 'Percentage':
          if (inValue) valueHit(this, idx.units.get('%'));
          break;
        case 'Identifier': {
          if (!inValue) break;
          const property = this.declaration!.property.toLowerCase();
          const rows = idx.keywords.get(node.name.toLowerCase());
          if (rows) valueHit(this, rows.filter((r) => !r.detection.properties || r.detection.properties.includes(property)).map((r) => r.slug));
          break;
        }
        case 'Url':
          // Images: not the fonts of @font-face.
          if (inValue && this.atrule?.name.toLowerCase() !== 'font-face') valueHit(this, imageFormats(node.value, undefined, idx));
          break;
        case 'Raw': {
          // What css-tree could not read in a rule's block: nested rules without `&`, read as rules.
          if (this.rule === null || this.declaration !== null || this.atrulePrelude !== null || !node.loc || !node.value.includes('{')) break;
          try {
            const nested = cssTree().parse(node.value, { positions: true, offset: node.loc.start.offset, parseCustomProperty: false });
            walkStyles(nested, source, idx, sink, nestedIn ?? ruleText(this.rule));
          } catch {
            // Still unreadable: it uses no feature that can be named.
          }
          break;
        }
      }
    },
    leave(node: CssNode) {
      if (node.type === 'Rule') ruleDepth--;
    },
  });
}

/** The keywords (identifiers) of a declaration's value, lower case. */
function keywordsOf(value: CssNode): Set<string> {
  const keywords = new Set<string>();
  cssTree().walk(value, { visit: 'Identifier', enter: (node) => void keywords.add(node.name.toLowerCase()) });
  return keywords;
}

/** The start tag of an element as a reader would write it again (long attribute values cut). */
function startTag(el: Element): string {
  let tag = `<${el.name}`;
  for (const [name, value] of Object.entries(el.attribs)) {
    const shown = value.length > 60 ? `${value.slice(0, 57)}…` : value;
    tag += value === '' ? ` ${name}` : ` ${name}="${shown.replaceAll('"', '&quot;')}"`;
  }
  return `${tag}>`;
}

/** White space runs as one space, for display. */
function collapse(text: string): string {
  return text.trim().split(/\s+/).join(' ');
}

function clip(text: string): string {
  const flat = collapse(text);
  return flat.length > MAX_PLACE_TEXT ? `${flat.slice(0, MAX_PLACE_TEXT - 1)}…` : flat;
}

/** Offsets where each line of `text` starts. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The 1-based line of `offset`. */
function lineAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}
