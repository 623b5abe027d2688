// Owns the Arabic words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Arabic (ar). */
export const ar: Vocabulary = {
  verify: ['تأكيد', 'تحقق', 'تفعيل'],
  code: ['رمز', 'كود'],
};
