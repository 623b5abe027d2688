// Owns the Greek words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Greek (el). */
export const el: Vocabulary = {
  verify: ['επιβεβαίω*', 'επαλήθευ*'],
  code: ['κωδικό*'],
};
