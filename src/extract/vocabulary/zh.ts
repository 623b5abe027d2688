// Owns the Chinese words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Chinese (simplified and traditional) (zh). */
export const zh: Vocabulary = {
  verify: ['验证', '驗證', '确认邮箱', '确认您的', '確認您的', '激活', '啟用'],
  reset: ['重置', '重设', '重設', '新密码', '新密碼', '设置密码', '設定密碼'],
  login: ['登录', '登入'],
  weakAction: ['点击', '继续'],
  negativeAction: ['取消', '拒绝'],
  notMe: ['如果不是您本人'],
  unsubscribe: ['退订', '取消订阅', '退訂'],
  preferences: ['设置', '訂閱設定'],
  privacy: ['隐私', '隱私', '个人信息'],
  terms: ['服务条款', '服務條款', '条款'],
  help: ['帮助', '幫助', '客服', '联系我们', '聯絡我們'],
  viewInBrowser: ['在浏览器中查看', '在瀏覽器中查看', '网页版'],
  social: ['关注我们'],
  code: ['验证码', '驗證碼', '校验码', '校驗碼', '动态码', '確認碼', '确认码', '安全码', '认证码', '認證碼', '动态密码', '一次性密码', '代码'],
  fakeCode: ['优惠码', '優惠碼', '邮政编码', '邮编', '优惠券'],
  enter: ['输入', '輸入'],
  bookingCode: ['确认码', '预订号'],
  booking: ['预订', '航班'],
  nonCodeLabel: ['订单', '訂單', '单号', '發票', '发票', '预订', '电话', '客户', '金额', '总计', '价格', '快递', '运单'],
  meeting: ['会议'],
  promo: ['折扣'],
  unitAfter: ['分', '分钟', '分鐘', '秒', '小时', '小時', '点', '日', '天', '年', '月', '号', '人', '件', '個'],
  copula: ['是', '为', '為', '為您'],
  disclaimer: [
    '忽略',
  ],
  pointer: [
    '以下链接', '下面的链接', '下方按钮',
  ],
  advice: ['建议您'],
};
