// Owns the Hungarian words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Hungarian (hu). */
export const hu: Vocabulary = {
  verify: ['megerősít*', 'aktivál*'],
  code: ['*kód', 'kód*'],
};
