// Owns the Turkish words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Turkish (tr). */
export const tr: Vocabulary = {
  verify: ['doğrula', 'onayla'],
  reset: ['sıfırla', 'yeni şifre'],
  login: ['giriş yap'],
  unsubscribe: ['abonelikten çık'],
};
