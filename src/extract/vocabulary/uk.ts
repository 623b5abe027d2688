// Owns the Ukrainian words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Ukrainian (uk). */
export const uk: Vocabulary = {
  verify: ['підтверд*', 'активуй*'],
  login: ['увійти'],
  nonCodeLabel: ['замовлення'],
};
