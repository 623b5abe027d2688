// Owns the Swedish words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Swedish (sv). */
export const sv: Vocabulary = {
  verify: ['bekräfta', 'verifiera', 'aktivera'],
  reset: ['återställ'],
  login: ['logga in'],
  unsubscribe: ['avregistrera', 'avsluta prenumeration'],
  privacy: ['integritet*'],
  terms: ['villkor'],
  help: ['hjälp'],
  copula: ['är'],
  code: ['kod', 'koden', 'engångskod', 'engångskoden', 'säkerhetskod', 'verifieringskod', 'bekräftelsekod'],
};
