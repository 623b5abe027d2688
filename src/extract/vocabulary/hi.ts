// Owns the Hindi words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Hindi (hi). */
export const hi: Vocabulary = {
  verify: ['सत्यापित'],
  code: ['कोड', 'ओटीपी'],
};
