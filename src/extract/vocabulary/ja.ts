// Owns the Japanese words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Japanese (ja). */
export const ja: Vocabulary = {
  verify: ['確認する', 'メールアドレスを確認', '認証する', '有効化', '本登録', '登録を完了', 'アカウントを有効', 'メールアドレスの確認', '確認してください'],
  reset: ['パスワードを再設定', '再設定', 'リセット', '新しいパスワード', 'パスワードを設定'],
  login: ['ログイン', 'サインイン'],
  weakAction: ['こちら'],
  negativeAction: ['キャンセル', '取り消', '拒否'],
  notMe: ['心当たりがない'],
  unsubscribe: ['配信停止', '購読解除', '配信解除'],
  preferences: ['配信設定', '通知設定'],
  privacy: ['プライバシー', '個人情報'],
  terms: ['利用規約', '特定商取引法'],
  help: ['ヘルプ', 'お問い合わせ', 'サポート'],
  viewInBrowser: ['ブラウザで表示', 'ブラウザで見る', 'ウェブ版'],
  social: ['フォロー'],
  code: ['認証コード', '確認コード', 'セキュリティコード', 'ワンタイムパスワード', 'パスコード', 'コード', '認証番号', '確認番号', '暗証番号'],
  fakeCode: ['クーポン', 'クーポンコード', '郵便番号'],
  enter: ['入力'],
  bookingCode: ['予約番号'],
  booking: ['予約', 'フライト'],
  nonCodeLabel: [
    '注文', 'ご注文', '請求', '予約', '電話', 'お客様番号', '会員番号', '金額', '合計', '価格', '配送', '追跡', '問い合わせ番号', '伝票番号', '受付番号',
  ],
  meeting: ['会議'],
  promo: ['割引'],
  address: ['丁目', '番地', '〒'],
  unitAfter: ['分', '分間', '秒', '時間', '時', '日', '年', '月', '人', '件', '個', '名'],
  copula: ['は', 'が'],
  disclaimer: [
    '破棄', '無視',
  ],
  pointer: [
    '以下のリンク', '下記のリンク', '下のボタン',
  ],
  advice: ['お勧めします', '推奨します'],
};
