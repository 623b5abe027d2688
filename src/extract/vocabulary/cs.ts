// Owns the Czech words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Czech (cs). */
export const cs: Vocabulary = {
  verify: ['ověřit', 'potvrdit', 'potvrďte', 'aktivovat'],
  reset: ['obnovit'],
  login: ['přihlásit'],
  unsubscribe: ['odhlásit'],
  code: ['*kód', 'kód*'],
  copula: ['je'],
};
