// Owns reading a `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.

/**
 * Seconds to wait according to a `Retry-After` value, or `undefined` when absent or unreadable.
 * An HTTP-date in the past yields 0; a fractional or date-derived delay is rounded up.
 *
 * @example
 * ```ts
 * parseRetryAfter('120');                                  // → 120
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', now);  // → seconds from now until then
 * ```
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs = Date.now()): number | undefined {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.ceil(Number(raw));
  // Only accept strings that look like dates; Date.parse is too generous with bare numbers.
  if (!/[a-z]/i.test(raw)) return undefined;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}
