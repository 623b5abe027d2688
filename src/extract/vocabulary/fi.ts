// Owns the Finnish words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Finnish (fi). */
export const fi: Vocabulary = {
  verify: ['vahvista', 'aktivoi'],
  reset: ['palauta'],
  login: ['kirjaudu'],
  terms: ['ehdot'],
  code: ['*koodi'],
};
