// Owns checking the accessibility of a mail as `inbox.open()` shows it: axe-core, with the
// rules that apply to a mail (MAIL_AXE_RULES) and one of ours that axe lacks (layout tables
// must be marked presentational), run in the page that shows the mail. axe is injected with
// `page.evaluate`, which Chromium runs outside the page's Content-Security-Policy (DevTools
// evaluation); the mail's own policy stays in force, so its scripts stay off while axe runs.
// The page-level rules of a web page (landmarks, region, bypass, page-has-heading-one) are
// off by construction: only the listed rules run.
import { createRequire } from 'node:module';
import type { Page } from '@playwright/test';
import type * as Axe from 'axe-core';
import * as cheerio from 'cheerio';
import createDebug from 'debug';
import { FIXTURE_ERROR_CODES, MailwrightFixtureError } from './errors.js';
import { MAIL_ORIGIN, mailDocument } from './mail-view.js';
import { MailMessage } from './message.js';

const debug = createDebug('mailwright:accessibility');

/** One element a rule found at fault. */
export interface AccessibilityNode {
  /** CSS selector of the element. */
  target: string;
  /** Its outer HTML, white space collapsed, shortened to about 200 characters. */
  html: string;
  /** What to fix, in one line (axe's failure summary). */
  summary: string;
}

/** A rule the mail fails, with the elements at fault. */
export interface AccessibilityViolation {
  /** The rule id: one of {@link MAIL_AXE_RULES}. */
  rule: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  /** What the rule asks for, in one sentence. */
  help: string;
  helpUrl: string;
  nodes: AccessibilityNode[];
}

/** Id of the rule of ours: a table used for layout carries `role="presentation"` (or `none`). */
export const LAYOUT_TABLE_RULE = 'layout-table-presentational';

/** The axe rules run on a mail, and the custom one. */
export const MAIL_AXE_RULES: readonly string[] = Object.freeze([
  // Language: a screen reader picks its voice and pronunciation from it.
  'html-has-lang',
  'html-lang-valid',
  'html-xml-lang-mismatch',
  'valid-lang',
  // Text alternatives: a mail is mostly images, and clients block them by default.
  'image-alt',
  'input-image-alt',
  'area-alt',
  'role-img-alt',
  'svg-img-alt',
  'image-redundant-alt',
  // Colour: grey-on-white footers and colour-only links are the usual failures.
  'color-contrast',
  'link-in-text-block',
  // Links: the point of most mails is one link; it needs a name.
  'link-name',
  // The document: its title (a screen reader announces it), and zoom left to the reader.
  'document-title',
  'meta-viewport',
  // Headings and lists: how a screen reader user skims a mail. heading-order is kept: a mail
  // is read as a document, and a skipped level (h1 then h3, for size) hides its structure.
  'empty-heading',
  'heading-order',
  'list',
  'listitem',
  'definition-list',
  'dlitem',
  // Data tables' headers. Not td-has-header nor table-fake-caption: axe applies them to the
  // tables its own heuristic takes for data (borders, colours, size), which mail layout tables
  // often pass for (a full-width header cell reads as a "fake caption"); ours judges those.
  'th-has-data-cells',
  'td-headers-attr',
  'scope-attr-valid',
  'empty-table-header',
  'table-duplicate-name',
  // ARIA a mail's markup can carry: valid roles and attributes, nothing focusable hidden, and
  // role=presentation not overridden (a focusable or labelled layout table is a table again).
  'aria-allowed-attr',
  'aria-allowed-role',
  'aria-braille-equivalent',
  'aria-conditional-attr',
  'aria-deprecated-role',
  'aria-hidden-body',
  'aria-hidden-focus',
  'aria-prohibited-attr',
  'aria-required-attr',
  'aria-required-children',
  'aria-required-parent',
  'aria-roles',
  'aria-valid-attr',
  'aria-valid-attr-value',
  'presentation-role-conflict',
  'duplicate-id-aria',
  // Moving text a reader cannot stop.
  'blink',
  'marquee',
  // Ours: axe has no rule for layout tables.
  LAYOUT_TABLE_RULE,
]);
// Left out on purpose: landmarks, region, bypass, skip-link and page-has-heading-one (a mail is
// not a site page), frames, forms and media (the view takes them out or loads none), meta-refresh
// (taken out), target-size (footer links are inline text, and the rule is noisy on them).

/** The rule of ours, as `axe.configure` takes it (functions run in the page). */
const LAYOUT_TABLE = {
  help: 'Layout tables must be marked role=presentation so screen readers do not announce rows and columns',
  // The WAI tables tutorial: data tables need headers; tables for layout are not data tables.
  helpUrl: 'https://www.w3.org/WAI/tutorials/tables/',
  description: 'Ensures tables used for layout (no headers, caption, summary, scope or headers attributes) have role="presentation" or role="none"',
  // serious, not moderate: Chromium exposes a role-less layout table as a table of rows and cells
  // (the spec checks its ARIA snapshot), so each one (mails nest several) is announced as a table
  // and the reader steps cell by cell through what is one column of text.
  impact: 'serious',
} as const;

/** Rank of an impact, most severe first. */
const SEVERITY: Record<string, number> = { critical: 0, serious: 1, moderate: 2, minor: 3 };

/** What the page-side run gets. */
interface PageRun {
  rules: string[];
  layoutTable: typeof LAYOUT_TABLE & { id: string };
}

let axeSource: string | undefined;
/** axe-core's source, loaded on first use (it is a large module). */
function loadAxeSource(): string {
  axeSource ??= (createRequire(import.meta.url)('axe-core') as typeof Axe).source;
  return axeSource;
}

let textStyle: string | undefined;
/** The style of the `<pre>` a text-only mail is shown in: how its view is told from an HTML mail's. */
function textViewStyle(): string {
  textStyle ??=
    cheerio
      .load(mailDocument(new MailMessage({ id: '', mailboxId: '', mailbox: '', from: null, to: [], cc: [], subject: '', receivedAt: new Date(0).toISOString(), size: 0, headers: {}, text: '', html: null, attachments: [] }), `${MAIL_ORIGIN}/0/`).html)('pre')
      .attr('style') ?? '';
  return textStyle;
}

/**
 * Runs axe-core (with {@link MAIL_AXE_RULES}, our layout-table rule among them) on the mail
 * `page` shows now (after `inbox.open()` or `showMail`) and resolves the rules it fails, most
 * severe first (axe's order among equals). Only violations: axe's "needs review" results
 * (contrast over a background image, say) are not reported. The mail's scripts stay off.
 *
 * A text-only mail is shown as its text in a page the view writes; that page has the subject as
 * its title but no `lang` (plain text carries no language markup, and mail clients set none), so
 * `html-has-lang` is not run on it: a sender could not fix it.
 *
 * @example
 * ```ts
 * const page = await inbox.open(message, page);
 * expect(await checkMailAccessibility(page)).toEqual([]);
 * ```
 */
export async function checkMailAccessibility(page: Page, options: { rules?: readonly string[] } = {}): Promise<AccessibilityViolation[]> {
  const unknown = (options.rules ?? []).filter((rule) => !MAIL_AXE_RULES.includes(rule));
  if (unknown.length > 0) {
    throw new MailwrightFixtureError(
      FIXTURE_ERROR_CODES.invalidArgument,
      `checkMailAccessibility() got rules it does not run on mail: ${unknown.join(', ')}; pick from MAIL_AXE_RULES (${MAIL_AXE_RULES.join(', ')})`,
    );
  }
  if (!page.url().startsWith(`${MAIL_ORIGIN}/`)) {
    throw new MailwrightFixtureError(
      FIXTURE_ERROR_CODES.invalidArgument,
      `checkMailAccessibility() needs a page that shows a mail, and this one is at ${page.url() || 'about:blank'}; call inbox.open(message, page) first`,
    );
  }
  let rules = [...(options.rules ?? MAIL_AXE_RULES)];
  const textOnly = await page.evaluate(
    (style) => document.body?.childElementCount === 1 && document.body.firstElementChild?.tagName === 'PRE' && document.body.firstElementChild.getAttribute('style') === style,
    textViewStyle(),
  );
  if (textOnly) rules = rules.filter((rule) => rule !== 'html-has-lang');
  if (rules.length === 0) return [];
  const hasAxe = await page.evaluate(() => typeof (window as { axe?: { run?: unknown } }).axe?.run === 'function');
  if (!hasAxe) await page.evaluate(loadAxeSource());
  const started = Date.now();
  const violations = await page.evaluate(runAxe, { rules, layoutTable: { id: LAYOUT_TABLE_RULE, ...LAYOUT_TABLE } });
  debug('%d rules on %s in %d ms: %d violated', rules.length, page.url(), Date.now() - started, violations.length);
  return violations.sort((a, b) => (SEVERITY[a.impact ?? ''] ?? 4) - (SEVERITY[b.impact ?? ''] ?? 4));
}

/** Runs in the page: registers the layout-table rule, runs axe on the document, and shapes its violations. */
async function runAxe({ rules, layoutTable }: PageRun): Promise<AccessibilityViolation[]> {
  const axe = (window as unknown as { axe: typeof Axe }).axe;
  /** The first token of an element's role attribute, lower case ('' when none). */
  const roleOf = (element: Element) => (element.getAttribute('role') ?? '').trim().toLowerCase().split(/\s+/)[0] ?? '';
  const presentational = (element: Element) => ['presentation', 'none'].includes(roleOf(element));
  /** A data table: given a role of its own other than presentational, or headers, a caption, a summary, scope or headers of its own (a nested table's are its own). */
  const isDataTable = (table: Element) => {
    const role = roleOf(table);
    if (role !== '' && !presentational(table)) return true;
    if (table.hasAttribute('summary')) return true;
    return Array.from(table.querySelectorAll('th, caption, [scope], [headers]')).some((element) => element.closest('table') === table);
  };
  axe.configure({
    checks: [
      {
        id: layoutTable.id,
        evaluate: (node: Element) => presentational(node),
        metadata: {
          impact: layoutTable.impact,
          messages: { pass: 'Layout table has role="presentation" or role="none"', fail: 'Layout table has no role="presentation" or role="none"' },
        },
      },
    ],
    rules: [
      {
        id: layoutTable.id,
        selector: 'table',
        // A layout table: not a data table, nor inside one (a table nested in a data table's cell is part of its data).
        matches: (node: Element) => {
          if (isDataTable(node)) return false;
          for (let outer = node.parentElement?.closest('table'); outer; outer = outer.parentElement?.closest('table')) {
            if (isDataTable(outer)) return false;
          }
          return true;
        },
        any: [layoutTable.id],
        impact: layoutTable.impact,
        tags: ['cat.tables', 'wcag2a', 'wcag131', 'mailwright'],
        metadata: { description: layoutTable.description, help: layoutTable.help, helpUrl: layoutTable.helpUrl },
      },
    ],
  });
  const results = await axe.run(document, {
    runOnly: { type: 'rule', values: rules },
    resultTypes: ['violations'],
    iframes: false,
    elementRef: false,
    ancestry: false,
    xpath: false,
  });
  const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
  /** "Fix any of the following:\n  a\n  b" as "Fix any of the following: a; b". */
  const summaryOf = (text: string) =>
    text
      .split(/\n\s*\n/)
      .map((group) => {
        const [head = '', ...items] = group.split('\n').map(oneLine).filter(Boolean);
        return items.length > 0 ? `${head} ${items.join('; ')}` : head;
      })
      .filter(Boolean)
      .join('. ');
  const shorten = (html: string) => {
    const line = oneLine(html);
    return line.length > 200 ? `${line.slice(0, 199)}…` : line;
  };
  return results.violations.map((violation) => ({
    rule: violation.id,
    impact: violation.impact ?? null,
    help: violation.help,
    helpUrl: violation.helpUrl,
    nodes: violation.nodes.map((node) => ({
      target: node.target.map((selector) => (Array.isArray(selector) ? selector.join(' >>> ') : selector)).join(' '),
      html: shorten(node.html),
      summary: summaryOf(node.failureSummary ?? ''),
    })),
  }));
}
