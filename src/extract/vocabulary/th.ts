// Owns the Thai words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Thai (th). */
export const th: Vocabulary = {
  verify: ['ยืนยัน'],
  code: ['รหัส'],
};
