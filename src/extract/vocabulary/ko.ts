// Owns the Korean words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Korean (ko). */
export const ko: Vocabulary = {
  verify: ['인증', '확인', '활성화'],
  reset: ['재설정', '비밀번호 변경', '새 비밀번호'],
  login: ['로그인'],
  weakAction: ['계속'],
  negativeAction: ['취소', '거절'],
  notMe: ['본인이 아닌 경우'],
  unsubscribe: ['수신 거부', '수신거부', '구독 취소', '구독 해지'],
  preferences: ['설정'],
  privacy: ['개인정보'],
  terms: ['이용약관', '약관'],
  help: ['도움말', '고객센터', '문의'],
  viewInBrowser: ['브라우저에서 보기', '웹에서 보기'],
  social: ['팔로우'],
  code: ['인증 코드', '인증코드', '인증번호', '인증 번호', '확인 코드', '확인코드', '보안 코드', '보안코드', '코드', '일회용 비밀번호'],
  fakeCode: ['쿠폰', '우편번호', '할인 코드', '할인코드'],
  enter: ['입력'],
  bookingCode: ['예약 번호'],
  booking: ['예약', '항공편'],
  nonCodeLabel: ['주문', '송장', '예약', '전화', '고객', '금액', '합계', '가격', '배송', '운송장'],
  meeting: ['회의'],
  promo: ['할인'],
  unitAfter: ['분', '초', '시간', '시', '일', '년', '월', '개', '명'],
  copula: ['는', '은', '이', '가'],
  disclaimer: [
    '무시',
  ],
  pointer: [
    '아래 링크', '아래 버튼',
  ],
  advice: ['권장합니다'],
};
