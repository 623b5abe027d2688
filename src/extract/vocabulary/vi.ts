// Owns the Vietnamese words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Vietnamese (vi). */
export const vi: Vocabulary = {
  verify: ['xác minh', 'xác nhận', 'kích hoạt'],
  login: ['đăng nhập'],
  code: ['mã xác minh', 'mã xác nhận', 'mã otp', 'mã xác thực'],
};
