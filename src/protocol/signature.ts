// Owns Standard Webhooks signing and verification (webhook-id, webhook-timestamp,
// webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">), used by the server's
// delivery and by the fixture's receiver.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
/** How far a webhook-timestamp may be from now before verification refuses it (seconds). */
const DEFAULT_TOLERANCE_SECONDS = 300;

/** A new `whsec_…` secret holding 24 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

function secretKey(secret: string): Buffer {
  const body = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(body, 'base64');
}

/** The `v1,<sig>` value for one delivery. `timestamp` is in whole seconds. */
function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three headers a signed delivery carries. */
export function webhookHeaders(secret: string, id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, id, timestamp, body),
  };
}

/** Why a delivery failed verification. */
type SignatureFailure = 'missing_headers' | 'timestamp_out_of_range' | 'bad_signature';

/**
 * Checks a delivery's headers against the secret. Returns `null` when it is authentic,
 * otherwise the reason. Header names must be lower-case (as Node gives them).
 */
export function verifyWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  options: { now?: number; toleranceSeconds?: number } = {},
): SignatureFailure | null {
  const one = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const id = one('webhook-id');
  const ts = one('webhook-timestamp');
  const signatures = one('webhook-signature');
  if (!id || !ts || !signatures) return 'missing_headers';
  const timestamp = Number(ts);
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (!Number.isInteger(timestamp) || Math.abs(now - timestamp) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    return 'timestamp_out_of_range';
  }
  const expected = Buffer.from(signWebhook(secret, id, timestamp, body).slice(3), 'base64');
  for (const part of signatures.split(' ')) {
    const [version, sig] = part.split(',', 2);
    if (version !== 'v1' || !sig) continue;
    const given = Buffer.from(sig, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return null;
  }
  return 'bad_signature';
}
