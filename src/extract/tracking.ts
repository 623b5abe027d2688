// Owns recognising click-tracking / redirect wrappers and recovering the destination they encode.

const KNOWN_TRACKERS =
  /(^|\.)(sendgrid\.net|list-manage\d*\.com|mandrillapp\.com|mailgun\.(org|net)|pstmrk\.it|mcsv\.net|hubspotlinks\.com|hubspotemail\.net|hs-sites\.com|awstrack\.me|sparkpostmail\d*\.com|mjt\.lu|mailjet\.com|sendibt\d*\.com|sendinblue\.com|brevo\.com|rs6\.net|createsend\d*\.com|cmail\d+\.com|exct\.net|exacttarget\.com|mkt\d+\.com|klclick\d*\.com|klaviyomail\.com|customeriomail\.com|cio\d*\.com|urldefense\.(com|proofpoint\.com)|safelinks\.protection\.outlook\.com|mailchimp\.com|mailtrack\.io|trk\.mail\.ru|email\.mg\.[a-z.]+)$/i;

const GENERIC_TRACKER_LABEL = /^(click|clicks|link|links|track|tracking|trk|ct|email|emails|em|e|go|l|r|t|u\d*|url\d*|mail|mg|lnk|redirect|out|c)$/i;

const REDIRECT_PATH =
  /(^|\/)(ls\/click|wf\/click|track\/click|ss\/c|c|l|r|t|u|cl0|l0|redirect|redir|click|clicks|track|out|go|link|lnk|3s|v1\/url|v2\/url|v3\/__)(\/|$)/i;

/** Paths that only click trackers use. */
const CLICK_PATH = /\/(ls|wf|track|tr)\/(click|cl)\b|\/ss\/c\/|\/CL0\/|\/L0\/|\/e\/c\/eyJ/;

/** What a URL's wrapper, if any, reveals. */
export interface Unwrapped {
  /** Whether the URL looks like a click-tracking or redirect wrapper. */
  tracked: boolean;
  /** The destination encoded in the wrapper (query parameter, path segment or base64), when there is one. */
  target?: string;
  /** Whether the host is a known click-tracking service (its own path and query say nothing about the link). */
  known: boolean;
  /** Why the URL counts as a wrapper. */
  reason?: string;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function asAbsolute(raw: string): string | undefined {
  let value = raw.trim();
  for (let i = 0; i < 2 && /^https?%3a/i.test(value); i++) value = safeDecode(value);
  if (/^https?:\/\/[^\s/]+/i.test(value)) return value;
  if (/^aHR0c[A-Za-z0-9+/_=-]{8,}$/.test(value)) {
    const decoded = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    if (/^https?:\/\/[^\s/]+/i.test(decoded) && !/[\u0000-\u001f\ufffd]/.test(decoded)) return decoded;
  }
  // host/path without a scheme, as Postmark encodes it in a path segment
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)+\.[a-z]{2,}\/\S*/i.test(value) && /[/?]/.test(value)) return `https://${value}`;
  return undefined;
}

/** A base64url JSON segment (`eyJ…`) that names the destination, as Customer.io and others encode it. */
function fromJsonSegment(segment: string): string | undefined {
  if (!/^eyJ[A-Za-z0-9_-]{10,}={0,2}$/.test(segment)) return undefined;
  try {
    const json = Buffer.from(segment.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    const m = /"(?:href|url|link|target|destination|redirect)"\s*:\s*"(https?:[^"]+)"/i.exec(json);
    return m?.[1]?.replace(/\\\//g, '/');
  } catch {
    return undefined;
  }
}

function findEncodedTarget(url: URL): string | undefined {
  for (const [, value] of url.searchParams) {
    const target = asAbsolute(value);
    if (target) return target;
  }
  for (const segment of url.pathname.split('/')) {
    const fromJson = fromJsonSegment(segment);
    if (fromJson) return fromJson;
    if (!segment || !/%2f|%3a|^aHR0c/i.test(segment)) continue;
    const target = asAbsolute(safeDecode(segment)) ?? asAbsolute(segment);
    if (target) return target;
  }
  return undefined;
}

/** Path segments that read as words (`verify`, `reset-password`), not ids or tokens. */
export function hasWordyPath(url: URL): boolean {
  return url.pathname.split('/').some((segment) => /^[a-z]{3,}([_-][a-z]{2,})*$/i.test(segment) && !REDIRECT_PATH.test(`/${segment}/`));
}

/**
 * Recognises click-tracking and redirect wrappers (SendGrid, Mailchimp, Postmark, SES, Mailgun, Outlook safe links,
 * generic `/redirect?url=`) and recovers the destination when the wrapper encodes it. The URL to follow is still the
 * wrapper: only the evidence comes from the destination.
 */
export function unwrap(url: URL, depth = 0): Unwrapped {
  const host = url.hostname.toLowerCase();
  const target = findEncodedTarget(url);
  const firstLabel = host.split('.')[0] ?? '';
  const redirectPath = REDIRECT_PATH.test(url.pathname);
  let reason: string | undefined;
  const known = KNOWN_TRACKERS.test(host) && !(/list-manage/.test(host) && !/\/track\//.test(url.pathname));
  if (known) reason = `${host} is a click-tracking service`;
  else if (CLICK_PATH.test(url.pathname)) reason = `${host} uses a click-tracking path`;
  else if (GENERIC_TRACKER_LABEL.test(firstLabel) && (redirectPath || target)) reason = `${host} looks like a click-tracking host`;
  else if (target && (redirectPath || !hasWordyPath(url))) reason = 'the URL is a redirect to another address';
  if (!reason) return { tracked: false, known };
  if (target && depth < 3) {
    try {
      const inner = unwrap(new URL(target), depth + 1);
      if (inner.tracked && inner.target) return { tracked: true, known, target: inner.target, reason };
    } catch {
      // keep the outer target
    }
  }
  return target ? { tracked: true, known, target, reason } : { tracked: true, known, reason };
}
