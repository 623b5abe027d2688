// Owns the Norwegian Bokmål words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Norwegian Bokmål (nb). */
export const nb: Vocabulary = {
  verify: ['bekreft', 'aktiver'],
  reset: ['tilbakestill'],
  login: ['logg inn'],
  unsubscribe: ['avslutt abonnement'],
  terms: ['vilkår'],
  help: ['hjelp'],
  code: ['*kode'],
  copula: ['er'],
};
