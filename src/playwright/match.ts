// Owns message matching: what a `match` may hold, checking a message against it, and
// describing it readably for step titles and timeout errors.
import { FIXTURE_ERROR_CODES, MailwrightFixtureError } from './errors.js';
import type { MailMessage } from './message.js';

/**
 * How one field is matched:
 * - a string matches when the field **contains** it, ignoring case (`'verify'` matches
 *   "Please verify your email");
 * - a RegExp is tested against the field as it is (add the `i` flag yourself);
 * - a function receives the field and returns true for a match.
 */
export type TextMatcher = string | RegExp | ((value: string) => boolean);

/**
 * Which messages a wait accepts. Every given field must match (AND).
 * - `subject`, `text`, `html`: the decoded subject and bodies (a missing body is `''`);
 * - `from`: the sender as `Name <address>` (a string therefore matches name or address);
 * - `to`: a recipient address in To or Cc. A string must equal the address **exactly**
 *   (ignoring case): `'a@x.test'` does not match `'aa@x.test'`; a RegExp or function is
 *   tried on each recipient address.
 *
 * @example
 * ```ts
 * await inbox.waitForMessage({ subject: 'Verify', from: /@app\.test$/ });
 * ```
 */
export interface MessageMatch {
  subject?: TextMatcher;
  from?: TextMatcher;
  to?: TextMatcher;
  text?: TextMatcher;
  html?: TextMatcher;
}

/** A {@link MessageMatch}, or one predicate over the whole message. */
export type MatchInput = MessageMatch | ((message: MailMessage) => boolean);

const FIELDS = ['subject', 'from', 'to', 'text', 'html'] as const;
type Field = (typeof FIELDS)[number];

/**
 * Checks a match for unknown keys (a common slip is passing options as the match) and
 * returns it. Throws `MW_ERR_INVALID_MATCH`.
 */
export function validateMatch(match: MatchInput | undefined, method = 'waitForMessage'): MatchInput | undefined {
  if (match === undefined || match === null || typeof match === 'function') return match ?? undefined;
  if (typeof match !== 'object') {
    throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.invalidMatch, `${method}() got ${JSON.stringify(match)} as its match; pass an object such as { subject: 'Verify' }, a predicate, or nothing`);
  }
  for (const [key, value] of Object.entries(match)) {
    if (!(FIELDS as readonly string[]).includes(key)) {
      const asOption = ['timeout', 'since', 'within'].includes(key);
      throw new MailwrightFixtureError(
        FIXTURE_ERROR_CODES.invalidMatch,
        `${method}() match has an unknown key "${key}"; match keys are ${FIELDS.join(', ')}.` +
          (asOption ? ` Options go in the second argument: ${method}(undefined, { ${key}: … }) or ${method}({ subject: 'x' }, { ${key}: … }).` : ''),
      );
    }
    if (value !== undefined && typeof value !== 'string' && typeof value !== 'function' && !(value instanceof RegExp)) {
      throw new MailwrightFixtureError(FIXTURE_ERROR_CODES.invalidMatch, `${method}() match "${key}" must be a string, a RegExp or a function, got ${typeof value}`);
    }
  }
  return match;
}

function test(matcher: TextMatcher, value: string): boolean {
  if (typeof matcher === 'string') return value.toLowerCase().includes(matcher.toLowerCase());
  if (matcher instanceof RegExp) {
    matcher.lastIndex = 0; // a /g or /y RegExp keeps state between calls
    return matcher.test(value);
  }
  return matcher(value) === true;
}

function fieldMatches(field: Field, matcher: TextMatcher, message: MailMessage): boolean {
  switch (field) {
    case 'subject':
      return test(matcher, message.subject);
    case 'from':
      return test(matcher, message.fromDisplay);
    case 'text':
      return test(matcher, message.text ?? '');
    case 'html':
      return test(matcher, message.html ?? '');
    case 'to': {
      const recipients = [...message.to, ...message.cc];
      if (typeof matcher === 'string') {
        const wanted = matcher.trim().toLowerCase();
        return recipients.some((address) => address.toLowerCase() === wanted);
      }
      return recipients.some((address) => test(matcher, address));
    }
  }
}

/** True when the message satisfies the match (no match = every message). */
export function matchesMessage(match: MatchInput | undefined, message: MailMessage): boolean {
  if (match === undefined) return true;
  if (typeof match === 'function') return match(message) === true;
  for (const field of FIELDS) {
    const matcher = match[field];
    if (matcher !== undefined && !fieldMatches(field, matcher, message)) return false;
  }
  return true;
}

function quote(text: string, max = 60): string {
  const short = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return JSON.stringify(short);
}

function describeMatcher(field: Field, matcher: TextMatcher): string {
  if (typeof matcher === 'string') return field === 'to' ? `to = ${quote(matcher)}` : `${field} ~ ${quote(matcher)}`;
  if (matcher instanceof RegExp) return `${field} ~ ${String(matcher)}`;
  // `{ html: (h) => … }` names the arrow "html": that is no name worth showing.
  const named = matcher.name && matcher.name !== field;
  return `${field} satisfies ${named ? `${matcher.name}()` : 'a predicate'}`;
}

/**
 * The match in words, for step titles and errors: `subject ~ "Verify" and to = "a@x.test"`,
 * `from ~ /@app\.test$/`, `text satisfies hasLink()`, or `any message`.
 */
export function describeMatch(match: MatchInput | undefined): string {
  if (match === undefined) return 'any message';
  if (typeof match === 'function') return match.name ? `message satisfies ${match.name}()` : 'message satisfies a predicate';
  const parts = FIELDS.flatMap((field) => {
    const matcher = match[field];
    return matcher === undefined ? [] : [describeMatcher(field, matcher)];
  });
  return parts.length === 0 ? 'any message' : parts.join(' and ');
}
