// Owns identifier generation: short, URL-safe, lower-case random ids with a type prefix.
// Random bytes come from the CSPRNG in 4 KiB draws, not one system call per id (ingestion
// makes one or two ids per message).
import { randomFillSync } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const pool = Buffer.alloc(4096);
let used = pool.length;

function randomByte(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++]!;
}

/** `length` random characters from [a-z0-9] (rejection-sampled, so unbiased). */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 252) out += ALPHABET[byte % 36];
  }
  return out;
}

/** A new id such as `mbx_4k2…` (prefix + 20 random characters). */
export function newId(prefix: 'acc' | 'key' | 'mbx' | 'msg' | 'wh' | 'evt' | 'top' | 'flt'): string {
  return `${prefix}_${randomToken(20)}`;
}
