// Owns what a URL's shape says about a link: its words, whether it carries a one-time token, whether it is a home page.
import { unwrap } from './tracking.js';
import type { Unwrapped } from './tracking.js';

/** Query parameters that only feed analytics: never evidence of anything. */
const ANALYTICS_PARAM = /^(utm_.*|mc_.*|_hs.*|hs.*|pk_.*|mtm_.*|mkt_tok|oly_.*|vero_.*|_ke|fbclid|gclid|dclid|msclkid|yclid|trk.*|cid|eid|sid|ref|src|source|campaign|medium|s_cid|ecid|et_.*|sc_.*|cmp|dm_i|spm)$/i;

/** Parameter names that carry one-time secrets. */
const TOKEN_PARAM = /^(token|t|tok|key|k|code|otp|ticket|hash|h|sig|signature|nonce|oobcode|confirmation_?token|reset_?(password_?)?token|invitation_?token|invite_?token|magic|magic_?token|login_?token|auth_?token|verification_?token|verify_?token|activation_?(key|code|token)|id_?token|access_?token|secret|otc|jwt|challenge|state|c|v|uid|u)$/i;

const ACTION_SEGMENT = /verif|confirm|activat|aktiv|attiv|ativa|validat|bestaetig|bevestig|potwierdz|reset|password|passwort|senha|magic|login|signin|auth|token|invite|invitation|approve|email-change|change-email/i;

/** Everything known about a link's URL. */
export interface UrlEvidence {
  /** Parsed URL (http/https only). */
  url?: URL;
  /** The scheme, lower-case, without the colon. */
  scheme: string;
  /** Tracking wrapper information. */
  wrapper: Unwrapped;
  /** Lower-case words of the URL that says something (the destination for a known tracker). */
  words: string[];
  /** Path words only (no host, no query), for kind classification. */
  pathWords: string[];
  /** Host names that count for the link (the destination's for a wrapper). */
  hosts: string[];
  /** Why the URL looks like it carries a one-time token, if it does. */
  token?: string;
  /** Whether the destination is a bare home page (no path, no meaningful query). */
  home: boolean;
}

function splitWords(s: string): string[] {
  return s
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

function looksRandom(value: string): boolean {
  const v = value.replace(/%[0-9a-f]{2}/gi, '');
  if (/^eyJ[A-Za-z0-9_-]{10,}/.test(v)) return true; // JWT
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v)) return true; // UUID
  if (/^[0-9a-f]{16,}$/i.test(v) && /[0-9]/.test(v) && /[a-f]/i.test(v)) return true; // hex
  if (v.length < 16 || !/^[A-Za-z0-9_.~+/=-]+$/.test(v)) return false;
  const parts = v.split(/[-_]/);
  if (parts.length >= 2 && parts.every((p) => /^[a-z]*$/i.test(p) || /^\d{1,4}$/.test(p))) return false; // a slug
  const digits = (v.match(/[0-9]/g) ?? []).length;
  const upper = (v.match(/[A-Z]/g) ?? []).length;
  const lower = (v.match(/[a-z]/g) ?? []).length;
  const distinct = new Set(v).size;
  return distinct >= 10 && ((digits >= 2 && upper + lower >= 2) || (upper >= 2 && lower >= 2));
}

function tokenIn(url: URL): string | undefined {
  const params = [...url.searchParams];
  const hashParams = url.hash.includes('=') ? [...new URLSearchParams(url.hash.slice(1))] : [];
  for (const [name, value] of [...params, ...hashParams]) {
    if (ANALYTICS_PARAM.test(name)) continue;
    if (/^https?:/i.test(value)) continue;
    if (TOKEN_PARAM.test(name) && value.length >= 6 && /[0-9]/.test(value)) return `query parameter "${name}" holds a token`;
    if (TOKEN_PARAM.test(name) && value.length >= 12) return `query parameter "${name}" holds a token`;
    if (looksRandom(value)) return `query parameter "${name}" looks like a one-time token`;
  }
  const segments = url.pathname.split('/').filter(Boolean);
  for (const segment of segments) {
    if (looksRandom(segment) && (segment.length >= 16 || /^eyJ/.test(segment))) {
      return 'a path segment looks like a one-time token';
    }
  }
  // shorter ids after an action word: /verify/8f3k2a9c, /activate/42/x7k2p9q1
  const actionAt = segments.findIndex((s) => ACTION_SEGMENT.test(s));
  if (actionAt >= 0) {
    const rest = segments.slice(actionAt + 1).find((s) => s.length >= 6 && /\d/.test(s) && !/^[a-z]+(-[a-z]+)*$/i.test(s));
    if (rest) return 'a path segment after the action looks like a token';
  }
  for (const [name, value] of params) {
    if (!ANALYTICS_PARAM.test(name) && value.length >= 8 && /\d/.test(value) && /[a-z]/i.test(value) && /^[A-Za-z0-9_-]+$/.test(value)) {
      return `query parameter "${name}" looks like a token`;
    }
  }
  return undefined;
}

function wordsOf(url: URL): { words: string[]; pathWords: string[] } {
  const hostWords = url.hostname.toLowerCase().split('.').slice(0, -1).filter((w) => w !== 'www');
  const pathWords = url.pathname.split('/').filter((s) => s && !looksRandom(s)).flatMap(splitWords);
  const queryWords: string[] = [];
  for (const [name, value] of url.searchParams) {
    if (ANALYTICS_PARAM.test(name)) continue;
    queryWords.push(...splitWords(name));
    if (value.length <= 40 && !looksRandom(value) && !/^https?:/i.test(value)) queryWords.push(...splitWords(value));
  }
  const hashWords = url.hash.length > 1 && url.hash.length < 60 ? splitWords(url.hash) : [];
  return { words: [...hostWords, ...pathWords, ...queryWords, ...hashWords], pathWords };
}

function isHome(url: URL): boolean {
  const meaningful = [...url.searchParams.keys()].filter((k) => !ANALYTICS_PARAM.test(k));
  return (url.pathname === '/' || url.pathname === '') && meaningful.length === 0 && url.hash.length <= 1;
}

function parse(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/** Reads a URL's words, token and wrapper. Wrapped destinations supply the evidence; the wrapper supplies nothing. */
export function urlEvidence(raw: string): UrlEvidence {
  const scheme = (/^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1] ?? '').toLowerCase();
  const url = scheme === 'http' || scheme === 'https' ? parse(raw) : undefined;
  if (!url) return { scheme, wrapper: { tracked: false, known: false }, words: [], pathWords: [], hosts: [], home: false };
  const wrapper = unwrap(url);
  const target = wrapper.target ? parse(wrapper.target) : undefined;
  const outer = wordsOf(url);
  const inner = target ? wordsOf(target) : { words: [], pathWords: [] };
  const outerCounts = !wrapper.known;
  const words = [...(outerCounts ? outer.words : []), ...inner.words];
  const pathWords = [...(outerCounts ? outer.pathWords : []), ...inner.pathWords];
  const hosts = [...(wrapper.tracked ? [] : [url.hostname.toLowerCase()]), ...(target ? [target.hostname.toLowerCase()] : [])];
  // A wrapper that reveals its destination: ids in the wrapper itself are click ids, not one-time tokens.
  const token = target ? tokenIn(target) : outerCounts ? tokenIn(url) : undefined;
  const home = target ? isHome(target) : !wrapper.tracked && isHome(url);
  return token ? { url, scheme, wrapper, words, pathWords, hosts, token, home } : { url, scheme, wrapper, words, pathWords, hosts, home };
}
