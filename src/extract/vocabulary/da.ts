// Owns the Danish words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Danish (da). */
export const da: Vocabulary = {
  verify: ['bekræft', 'aktiver'],
  reset: ['nulstil'],
  login: ['log ind'],
  unsubscribe: ['afmeld'],
  terms: ['vilkår'],
  help: ['hjælp'],
  code: ['*kode'],
  copula: ['er'],
};
