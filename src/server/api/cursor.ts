// Owns the opaque poll cursors: a message sequence number, base64url-wrapped and versioned.
import { ApiError } from './problem.js';

export function encodeCursor(seq: number): string {
  return Buffer.from(`c1:${seq}`).toString('base64url');
}

/** The seq inside a cursor; a malformed cursor is an invalid_request naming `field`. */
export function decodeCursor(cursor: string, field: string): number {
  const match = /^c1:(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw new ApiError('invalid_request', `${field} "${cursor}" is not a cursor this server issued; pass the cursor from a previous answer or omit it`, field);
  return Number(match[1]);
}
