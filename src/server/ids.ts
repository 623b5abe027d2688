// Owns identifier generation: short, URL-safe, lower-case random ids with a type prefix.
import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** `length` random characters from [a-z0-9] (rejection-sampled, so unbiased). */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 252 && out.length < length) out += ALPHABET[byte % 36];
    }
  }
  return out;
}

/** A new id such as `mbx_4k2…` (prefix + 20 random characters). */
export function newId(prefix: 'acc' | 'key' | 'mbx' | 'msg' | 'wh' | 'evt' | 'top'): string {
  return `${prefix}_${randomToken(20)}`;
}
