// Owns the Indonesian words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Indonesian (id). */
export const id: Vocabulary = {
  verify: ['verifikasi', 'konfirmasi', 'aktifkan'],
  login: ['masuk'],
  code: ['*kode'],
};
