// Owns secret material: API keys (shown once, stored as SHA-256), redeem codes, and
// scrypt password hashes.
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { randomToken } from '../ids.js';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

const API_KEY_PREFIX = 'mw_';

/** SHA-256 hex of a secret; keys and codes are looked up by this, never stored in clear. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A new API key: the secret (shown once), a displayable prefix and its hash. */
export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = API_KEY_PREFIX + randomToken(40);
  return { key, prefix: key.slice(0, 8), hash: hashSecret(key) };
}

/** A new redeem code, e.g. `MW-4K2Q-9XZA-…`. */
export function generateRedeemCode(): string {
  const raw = randomToken(16).toUpperCase();
  return `MW-${raw.match(/.{4}/g)!.join('-')}`;
}

/** Redeem codes are compared case-insensitively and without dashes or spaces. */
export function normalizeRedeemCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

/** `scrypt$<salt>$<hash>` for a password. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Whether `password` matches a `scrypt$salt$hash` string (constant time). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash no password matches, checked for unknown accounts so they take as long as known ones. */
export const UNMATCHABLE_PASSWORD_HASH = `scrypt$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(32).toString('base64')}`;
