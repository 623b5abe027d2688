// Owns the Hebrew words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Hebrew (he). */
export const he: Vocabulary = {
  verify: ['אימות', 'אשר'],
  code: ['קוד'],
};
