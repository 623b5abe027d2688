// Owns the multilingual word lists behind link and code extraction, compiled once into regular expressions.
import { wordRegExp } from './text-utils.js';

// ---------------------------------------------------------------------------------------------
// Link actions (anchor text, text around a link)
// ---------------------------------------------------------------------------------------------

/** Confirm-an-address / activate-an-account actions. */
export const VERIFY_ACTION = wordRegExp([
  // en
  'verify*', 'verification', 'confirm*', 'activate*', 'activation', 'validate*', 'validation', 'approve*',
  'complete registration', 'complete your registration', 'complete sign up', 'complete signup', 'finish signing up',
  'finish sign up', 'finish setting up', 'magic link', 'magic sign in link', 'yes, it was me', 'it was me',
  'subscribe me', 'yes, subscribe me', 'confirm subscription', 'opt in', 'opt-in',
  // de
  'bestätig*', 'verifizier*', 'aktivier*', 'freischalten', 'registrierung abschließen', 'validieren',
  // fr
  'vérifi*', 'confirmer', 'confirmez', 'activer', 'activez', 'valider', 'validez', 'finaliser',
  // es / pt
  'verificar', 'verifica', 'verifique', 'confirmar', 'confirma', 'confirme', 'activar', 'activa', 'ativar', 'ative',
  'validar', 'completar registro', 'concluir cadastro',
  // it
  'conferma', 'confermare', 'verificare', 'attiva', 'attivare', 'convalida',
  // nl
  'bevestig*', 'verifieer', 'verifiëren', 'activeer', 'activeren', 'valideer',
  // pl
  'potwierdź', 'potwierdz*', 'zweryfikuj', 'weryfikuj', 'aktywuj', 'aktywacja',
  // ru / uk
  'подтверд*', 'активир*', 'верифиц*', 'підтверд*', 'активуй*',
  // nordic, tr, cs, hu, el, id, vi
  'bekräfta', 'verifiera', 'aktivera', 'bekræft', 'bekreft', 'aktiver', 'vahvista', 'aktivoi', 'doğrula', 'onayla',
  'ověřit', 'potvrdit', 'potvrďte', 'aktivovat', 'megerősít*', 'aktivál*', 'επιβεβαίω*', 'επαλήθευ*', 'verifikasi',
  'konfirmasi', 'aktifkan', 'xác minh', 'xác nhận', 'kích hoạt',
  // ja / zh / ko / others
  '確認する', 'メールアドレスを確認', '認証する', '有効化', '本登録', '登録を完了', 'アカウントを有効', '验证', '驗證', 'メールアドレスの確認', '確認してください', '确认邮箱', '确认您的', '確認您的',
  '激活', '啟用', '인증', '확인', '활성화', 'ยืนยัน', 'تأكيد', 'تحقق', 'تفعيل', 'אימות', 'אשר', 'सत्यापित',
]);

/** Password reset / set-a-password actions. */
export const RESET_ACTION = wordRegExp([
  'reset*', 'set password', 'set your password', 'set a password', 'set new password', 'set a new password',
  'choose a new password', 'choose a password', 'create password', 'create a password', 'create your password',
  'create new password', 'change password', 'change my password', 'change your password', 'new password', 'recover*',
  'passwort zurücksetzen', 'zurücksetzen', 'neues passwort', 'passwort festlegen', 'passwort ändern',
  'réinitialis*', 'nouveau mot de passe', 'restablecer', 'restablece', 'nueva contraseña', 'redefinir', 'nova senha',
  'recuperar', 'reimposta', 'reimpostare', 'nuova password', 'herstel', 'opnieuw instellen', 'nieuw wachtwoord',
  'zresetuj', 'resetuj', 'ustaw hasło', 'nowe hasło', 'сбросить', 'сброс', 'восстанов*', 'новый пароль',
  'återställ', 'nulstil', 'tilbakestill', 'palauta', 'obnovit', 'sıfırla', 'yeni şifre', 'パスワードを再設定', '再設定',
  'リセット', '新しいパスワード', 'パスワードを設定', '重置', '重设', '重設', '新密码', '新密碼', '设置密码', '設定密碼', '재설정',
  '비밀번호 변경', '새 비밀번호',
]);

/** Sign-in actions. Weaker: a plain "Log in" link to a login page is not a one-time link. */
export const LOGIN_ACTION = wordRegExp([
  'sign in', 'sign-in', 'signin', 'log in', 'log-in', 'login', 'log me in', 'sign me in', 'magic', 'one-click login',
  'unlock my account', 'unlock your account', 'unlock account', 'invited you to join', 'invited you to', 'invites you to join',
  'invitation to join', "you're invited to join", 'you have been invited', "you've been invited", 'join now',
  'accept invitation', 'accept invite', 'accept the invitation', 'accept your invitation', 'join the team', 'join team',
  'anmelden', 'einloggen', 'jetzt anmelden', 'se connecter', 'connectez-vous', 'connexion', 'iniciar sesión',
  'inicia sesión', 'acceder', 'accede', 'entrar', 'fazer login', 'accedi', 'inloggen', 'log in', 'aanmelden',
  'zaloguj*', 'logowanie', 'войти', 'вход', 'увійти', 'logga in', 'log ind', 'logg inn', 'kirjaudu', 'přihlásit',
  'giriş yap', 'masuk', 'đăng nhập', 'ログイン', 'サインイン', '登录', '登入', '로그인',
]);

/** Vague call-to-action words that only count together with other evidence. */
export const WEAK_ACTION = wordRegExp([
  'continue', 'get started', 'click here', 'here', 'open', 'go', 'go to', 'this link', 'accept', 'join', 'yes', "that's me",
  'this is me', "let's go", 'start', 'finish', 'complete', 'next', 'link', 'button', 'weiter', 'hier', 'continuer', 'ici', 'continuar', 'aquí',
  'aqui', 'continua', 'qui', 'doorgaan', 'hier klikken', 'dalej', 'tutaj', 'продолжить', 'здесь', 'こちら', '点击',
  '继续', '계속',
]);

/** Actions that undo or refuse something: never the link to follow. */
export const NEGATIVE_ACTION = wordRegExp([
  'cancel*', 'revert', 'undo', 'not me', "wasn't me", 'was not me', 'not you', "didn't request", 'did not request',
  "didn't sign up", 'did not sign up', 'report*', 'decline', 'deny', 'reject', 'secure your account', 'lock account',
  'lock your account', 'block', 'disavow', 'remove me', 'delete account', 'delete my account', 'abbrechen',
  'rückgängig', 'stornieren', 'ablehnen', 'nicht ich', 'annuler', 'refuser', "ce n'était pas moi", 'cancelar',
  'rechazar', 'no fui yo', 'annulla', 'rifiuta', 'annuleren', 'weigeren', 'anuluj', 'odrzuć', 'to nie ja', 'отменить',
  'отклонить', 'это не я', 'キャンセル', '取り消', '拒否', '取消', '拒绝', '취소', '거절',
]);

/** Conditions that put the link next to them in the "it wasn't me" branch of an email. */
export const NOT_ME_CONTEXT = wordRegExp([
  "if this wasn't you", 'if this was not you', "if it wasn't you", "wasn't you", 'was not you', "if you didn't",
  'if you did not', "didn't request", 'did not request', "didn't make", 'did not make', "don't recognize",
  'do not recognize', "didn't recognize", 'unauthorized', 'not you?', 'falls sie das nicht waren', 'nicht von ihnen',
  "si ce n'était pas vous", "si vous n'êtes pas", 'si no fuiste tú', 'si no has sido tú', 'se non sei stato tu',
  'als jij dit niet was', 'als u dit niet was', 'jeśli to nie ty', 'если это были не вы', 'если это не вы',
  '心当たりがない', '如果不是您本人', '본인이 아닌 경우',
]);

// ---------------------------------------------------------------------------------------------
// Link kinds that are never the verification link
// ---------------------------------------------------------------------------------------------

export const UNSUBSCRIBE_WORDS = wordRegExp([
  'unsubscribe*', 'opt out', 'opt-out', 'optout', 'stop receiving', 'stop these emails', 'abmelden', 'abbestellen',
  'austragen', 'newsletter abbestellen', 'désabonner', 'désinscri*', 'se désabonner', 'désabonnement', 'darse de baja',
  'dar de baja', 'date de baja', 'baja', 'cancelar suscripción', 'anular suscripción', 'cancelar inscrição',
  'descadastrar', 'descadastre-se', 'annulla iscrizione', 'disiscriviti', 'cancella iscrizione', 'disiscrizione',
  'afmelden', 'uitschrijven', 'wypisz', 'wypisz się', 'rezygnacja', 'отписаться', 'отписка', 'отпишитесь',
  'avregistrera', 'avsluta prenumeration', 'afmeld', 'avslutt abonnement', 'abonelikten çık', 'odhlásit',
  '配信停止', '購読解除', '配信解除', '退订', '取消订阅', '退訂', '수신 거부', '수신거부', '구독 취소', '구독 해지',
]);

export const PREFERENCES_WORDS = wordRegExp([
  'preferences', 'preference center', 'email preferences', 'manage subscription*', 'manage your subscription*',
  'subscription settings', 'email settings', 'notification settings', 'manage notifications', 'update your preferences',
  'manage email', 'mailing preferences', 'einstellungen', 'präferenzen', 'préférences', 'preferencias', 'preferências',
  'preferenze', 'voorkeuren', 'ustawienia', 'preferencje', 'настройки', '配信設定', '通知設定', '设置', '訂閱設定', '설정',
]);

export const PRIVACY_WORDS = wordRegExp([
  'privacy*', 'datenschutz*', 'confidentialité', 'privacidad', 'privacidade', 'riservatezza', 'privacybeleid',
  'prywatności', 'prywatnosci', 'конфиденциальн*', 'персональных данных', 'cookie*', 'gdpr', 'dsgvo', 'integritet*',
  'プライバシー', '個人情報', '隐私', '隱私', '个人信息', '개인정보',
]);

export const TERMS_WORDS = wordRegExp([
  'terms', 'terms of service', 'terms of use', 'terms and conditions', 'conditions', 'legal', 'legal notice',
  'impressum', 'imprint', 'agb', 'nutzungsbedingungen', 'conditions générales', 'cgu', 'cgv', 'mentions légales',
  'términos', 'aviso legal', 'condiciones', 'termos', 'termini', 'condizioni', 'note legali', 'voorwaarden',
  'algemene voorwaarden', 'regulamin', 'условия', 'пользовательское соглашение', 'villkor', 'vilkår', 'ehdot',
  '利用規約', '特定商取引法', '服务条款', '服務條款', '条款', '이용약관', '약관',
]);

export const HELP_WORDS = wordRegExp([
  'help', 'help center', 'help centre', 'support', 'contact', 'contact us', 'faq', 'faqs', 'customer service',
  'get help', 'hilfe', 'hilfe-center', 'kontakt', 'kundenservice', 'aide', "centre d'aide", 'nous contacter',
  'assistance', 'ayuda', 'centro de ayuda', 'contáctanos', 'contacto', 'soporte', 'ajuda', 'suporte', 'fale conosco',
  'aiuto', 'assistenza', 'centro assistenza', 'contattaci', 'hulp', 'klantenservice', 'neem contact op', 'pomoc',
  'centrum pomocy', 'помощь', 'поддержк*', 'служба поддержки', 'hjälp', 'hjælp', 'hjelp', 'ヘルプ', 'お問い合わせ',
  'サポート', '帮助', '幫助', '客服', '联系我们', '聯絡我們', '도움말', '고객센터', '문의',
]);

export const VIEW_IN_BROWSER_WORDS = wordRegExp([
  'view in browser', 'view in your browser', 'view this email in your browser', 'view it in your browser',
  'view email in browser', 'view online', 'view it online', 'view this email online', 'view as a web page',
  'view as webpage', 'view web version', 'web version', 'open in browser', 'having trouble viewing',
  'im browser anzeigen', 'im browser öffnen', 'im browser ansehen', 'online ansehen', 'online-version', 'webversion',
  'web-version', 'version en ligne', 'voir la version en ligne', 'afficher dans le navigateur', 'voir dans le navigateur',
  'ouvrir dans le navigateur', 'ver en el navegador', 'ver en línea', 'versión web', 'ver no navegador',
  'visualizar no navegador', 'versão online', 'visualizza nel browser', 'versione web', 'visualizza online',
  'bekijk in je browser', 'bekijk in browser', 'bekijk online', 'webversie', 'zobacz w przeglądarce', 'wersja online',
  'otwórz w przeglądarce', 'открыть в браузере', 'веб-версия', 'посмотреть в браузере', 'веб версия',
  'ブラウザで表示', 'ブラウザで見る', 'ウェブ版', '在浏览器中查看', '在瀏覽器中查看', '网页版', '브라우저에서 보기', '웹에서 보기',
]);

export const SOCIAL_WORDS = wordRegExp([
  'facebook', 'twitter', 'instagram', 'linkedin', 'youtube', 'tiktok', 'pinterest', 'follow us', 'like us',
  'folgen sie uns', 'folge uns', 'suivez-nous', 'síguenos', 'siga-nos', 'seguici', 'volg ons', 'obserwuj nas',
  'мы в соцсетях', 'フォロー', '关注我们', '팔로우',
]);

export const APP_STORE_WORDS = wordRegExp([
  'app store', 'google play', 'download on the', 'get it on', 'download the app', 'get the app',
]);

// ---------------------------------------------------------------------------------------------
// Codes
// ---------------------------------------------------------------------------------------------

/** Words that announce a one-time code. Compounds ending in "code" count (`Bestätigungscode`). */
export const CODE_WORDS = wordRegExp([
  '*code', '*codes', 'otp', 'one-time', 'one time', 'passcode', 'pin', 'pin code', 'token', '2fa', 'mfa', 'tan',
  'two-factor', 'security number', 'verification number', 'einmalpasswort', 'einmal-passwort', 'sicherheitsnummer',
  'mot de passe à usage unique', 'código', 'códigos', 'clave de verificación', 'clave de seguridad', 'codice',
  'codici', '*kod', 'kod*', '*kode', '*koodi', '*kód', 'kód*', 'код', '*код', 'кода', 'кодом', 'одноразовый пароль',
  'κωδικό*', 'رمز', 'كود', 'קוד', 'कोड', 'ओटीपी', 'รหัส', 'mã xác minh', 'mã xác nhận', 'mã otp', 'mã xác thực',
  'code de vérification', 'code de confirmation', 'code de sécurité', 'código de verificación', 'código de verificação',
  'código de confirmación', 'código de seguridad', 'código de segurança', 'codice di verifica', 'codice di sicurezza',
  'codice di conferma', 'kod weryfikacyjny', 'kod potwierdzający', 'kod bezpieczeństwa', 'kod jednorazowy',
  'код подтверждения', 'проверочный код', 'одноразовый код', 'код безопасности', 'код доступа',
  '認証コード', '確認コード', 'セキュリティコード', 'ワンタイムパスワード', 'パスコード', 'コード', '認証番号', '確認番号',
  '暗証番号', '验证码', '驗證碼', '校验码', '校驗碼', '动态码', '確認碼', '确认码', '安全码', '认证码', '認證碼', '动态密码',
  '一次性密码', '代码', '인증 코드', '인증코드', '인증번호', '인증 번호', '확인 코드', '확인코드', '보안 코드', '보안코드',
  '코드', '일회용 비밀번호',
]);

/** Phrases with a code word that are not one-time codes. */
export const FAKE_CODE_WORDS = wordRegExp([
  'promo code', 'promo-code', 'promocode', 'promotional code', 'discount code', 'coupon code', 'coupon', 'voucher code',
  'voucher', 'gift code', 'gift card', 'referral code', 'invite code', 'postal code', 'zip code', 'zipcode', 'postcode',
  'post code', 'area code', 'country code', 'qr code', 'bar code', 'barcode', 'source code', 'error code',
  'reference code', 'ref code', 'booking code', 'reservation code', 'order code', 'customer code', 'client code',
  'approval code', 'authorization code', 'authorisation code', 'auth code', 'auth. code', 'tax code', 'postal', 'zip',
  'status code', 'tracking code', 'product code', 'item code', 'sort code', 'swift code', 'bic code', 'dress code',
  'gutscheincode', 'gutschein', 'rabattcode', 'aktionscode', 'postleitzahl', 'code promo', 'code de réduction',
  'code postal', 'code avantage', 'código promocional', 'código de descuento', 'código postal', 'código de rastreo',
  'código de rastreamento', 'cupón', 'cupom', 'codice sconto', 'codice promozionale', 'codice postale',
  'kortingscode', 'actiecode', 'kod rabatowy', 'kod promocyjny', 'kod pocztowy', 'промокод', 'промо-код',
  'почтовый индекс', 'クーポン', 'クーポンコード', '郵便番号', '优惠码', '優惠碼', '邮政编码', '邮编', '优惠券', '쿠폰', '우편번호',
  '할인 코드', '할인코드',
]);

/** Verbs that ask the reader to type what follows ("enter 482913"). */
export const ENTER_WORDS = wordRegExp([
  'enter', 'type', 'use', 'input', 'key in', 'paste', 'eingeben', 'geben sie', 'gib', 'saisissez', 'entrez', 'saisir',
  'introduce', 'introduzca', 'ingresa', 'ingrese', 'insira', 'digite', 'inserisci', 'digita', 'voer', 'vul', 'wpisz',
  'wprowadź', 'введите', 'укажите', '入力', '输入', '輸入', '입력',
]);

/** Code phrases that mean a booking reference in emails about bookings and trips. */
export const BOOKING_CODE_WORDS = wordRegExp([
  'confirmation code', 'confirmation number', 'booking code', 'reservation code', 'record locator', 'pnr',
  'code de confirmation', 'código de confirmación', 'código de reserva', 'codice di prenotazione', 'buchungscode',
  'bestätigungscode', 'boekingscode', 'kod rezerwacji', 'код бронирования', '予約番号', '确认码', '预订号', '예약 번호',
]);

/** Words of bookings and trips. */
export const BOOKING_WORDS = wordRegExp([
  'reservation', 'booking', 'itinerary', 'flight', 'hotel', 'check-in', 'check in', 'boarding', 'your trip',
  'your stay', 'buchung', 'reise', 'flug', 'réservation', 'vol', 'séjour', 'reserva', 'vuelo', 'viaje', 'voo',
  'prenotazione', 'volo', 'boeking', 'vlucht', 'rezerwacja', 'бронирование', 'рейс', '予約', 'フライト', '预订',
  '航班', '예약', '항공편',
]);

/** Labels that make the number next to them an identifier, an amount or a phone number. */
export const NON_CODE_LABELS = wordRegExp([
  // en
  'order', 'orders', 'order number', 'order no', 'invoice', 'receipt', 'ticket', 'ref', 'reference', 'case', 'booking',
  'reservation', 'confirmation number', 'confirmation no', 'tracking', 'tracking number', 'shipment', 'parcel',
  'package', 'account', 'account number', 'customer', 'member', 'membership', 'id', 'user id', 'serial', 'model',
  'version', 'sku', 'item', 'article', 'transaction', 'payment', 'card', 'ending in', 'last 4', 'last four', 'iban',
  'flight', 'seat', 'gate', 'room', 'page', 'step', 'chapter', 'vol', 'no', 'nr', 'number', 'nº', 'n°', '№', 'phone',
  'tel', 'telephone', 'call', 'fax', 'mobile', 'cell', 'whatsapp', 'hotline', 'toll-free', 'toll free', 'zip', 'postal',
  'suite', 'apt', 'apartment', 'unit', 'floor', 'box', 'street', 'total', 'subtotal', 'amount', 'price', 'balance',
  'tax', 'vat', 'qty', 'quantity', 'points', 'miles', 'year', 'since',
  // de
  'bestellung', '*nummer', 'rechnung', 'kunde', 'auftrag', 'telefon', 'buchung', 'konto', 'betrag', 'summe', 'gesamt',
  'preis', 'artikel', 'art-nr', 'sendung', 'lieferung', 'vorgang', 'plz', 'postfach',
  // fr
  'commande', 'numéro', 'facture', 'réservation', 'téléphone', 'tél', 'appelez', 'compte', 'client', 'montant', 'prix',
  'billet', 'dossier', 'colis', 'suivi',
  // es / pt
  'pedido', 'número', 'factura', 'reserva', 'teléfono', 'llámanos', 'llame', 'cuenta', 'cliente', 'importe', 'precio',
  'envío', 'seguimiento', 'boleto', 'encomenda', 'fatura', 'nota fiscal', 'telefone', 'conta', 'valor', 'preço',
  'rastreamento',
  // it
  'ordine', 'numero', 'fattura', 'prenotazione', 'telefono', 'chiama', 'conto', 'importo', 'totale', 'prezzo',
  'spedizione',
  // nl
  'bestelling', 'factuur', 'boeking', 'reservering', 'telefoon', 'bel', 'rekening', 'klant', 'bedrag', 'totaal',
  'prijs', 'zending',
  // pl
  'zamówienie', 'zamówienia', 'zamowienie', 'faktura', 'faktury', 'rezerwacja', 'klient', 'kwota', 'cena', 'suma',
  'przesyłka', 'numer',
  // ru / uk
  'заказ*', 'счёт', 'счет', 'счета', 'бронирован*', 'телефон*', 'тел', 'звоните', 'клиент*', 'сумма', 'итого', 'цена',
  'номер', 'посылк*', 'отправлени*', 'замовлення',
  // ja / zh / ko
  '注文', 'ご注文', '請求', '予約', '電話', 'お客様番号', '会員番号', '金額', '合計', '価格', '配送', '追跡', '問い合わせ番号',
  '伝票番号', '受付番号', '订单', '訂單', '单号', '發票', '发票', '预订', '电话', '客户', '金额', '总计', '价格', '快递', '运单',
  '주문', '송장', '예약', '전화', '고객', '금액', '합계', '가격', '배송', '운송장',
]);

/** Words that place a number in a meeting invitation (meeting ids, dial-in numbers, meeting passcodes). */
export const MEETING_WORDS = wordRegExp([
  'meeting', 'meeting id', 'webinar', 'conference', 'dial-in', 'dial in', 'dial by', 'join by phone', 'zoom',
  'microsoft teams', 'webex', 'google meet', 'participant', 'host key', 'besprechung', 'konferenz', 'réunion',
  'reunión', 'riunione', 'vergadering', 'spotkanie', 'встреча', 'конференц*', '会議', '会议', '회의',
]);

/** Line-level words of promotions: a "code" on such a line is a discount code. */
export const PROMO_WORDS = wordRegExp([
  'discount', 'sale', 'off', 'checkout', 'coupon', 'promo', 'voucher', 'save', 'rabatt', 'gutschein', 'réduction',
  'remise', 'descuento', 'sconto', 'korting', 'rabat', 'скидк*', '割引', '折扣', '할인',
]);

/** Words of postal addresses: numbers on such a line are house numbers and postal codes. */
export const ADDRESS_WORDS = wordRegExp([
  'street', 'st.', 'avenue', 'ave', 'road', 'rd', 'boulevard', 'blvd', 'lane', 'drive', 'suite', 'floor', 'p.o. box',
  'po box', '*straße', '*strasse', '*str.', 'str.', '*weg', '*platz', '*allee', '*gasse', 'rue', 'boulevard', 'cedex',
  'calle', 'avenida', 'plaza', 'paseo', 'viale', 'piazza', 'corso', 'rua', '*straat', '*laan', '*plein',
  '*gracht', 'ul.', 'ulica', 'улица', 'ул.', 'проспект', 'пр-т', '丁目', '番地', '〒',
]);

/** Units after a number that make it a duration, a time or a quantity. */
export const UNIT_AFTER = wordRegExp([
  'minute*', 'min', 'mins', 'hour*', 'hr', 'hrs', 'h', 'second*', 'sec', 'secs', 'day*', 'week*', 'month*', 'year*',
  'am', 'pm', 'a.m', 'p.m', 'uhr', 'minuten', 'stunde*', 'sekunde*', 'tag', 'tage', 'tagen', 'minutos', 'horas',
  'segundos', 'días', 'dias', 'heure*', 'jour*', 'minuti', 'ore', 'secondi', 'giorni', 'uur', 'seconden', 'dagen',
  'minut*', 'godzin*', 'sekund*', 'dni', 'минут*', 'час*', 'секунд*', 'дн*', 'день', 'лет', 'год*', 'items', 'item',
  'points', 'pts', 'miles', 'km', 'kg', 'mb', 'gb', 'px', 'members', 'users', 'people', 'customers', 'downloads',
  'views', 'likes', 'followers', 'subscribers', 'orders', 'stars', 'reviews', '分', '分钟', '分鐘', '分間', '秒', '時間', '小时',
  '小時', '時', '点', '日', '天', '年', '月', '号', '人', '件', '個', '名', '분', '초', '시간', '시', '일', '년', '월', '개', '명',
]);

/** Currency words and symbols (before or after an amount). */
export const CURRENCY = /(?:[$€£¥₹₽₩¢₺₴₪฿]|\b(?:usd|eur|gbp|chf|jpy|cny|rmb|rub|pln|sek|nok|dkk|czk|huf|brl|mxn|cad|aud|inr|krw|zł|zl|kr|руб|грн|р\.)\b|円|元|원)/iu;

/** Month names (a number right after one is part of a date). */
export const MONTHS = wordRegExp([
  'jan', 'january', 'feb', 'february', 'mar', 'march', 'apr', 'april', 'may', 'jun', 'june', 'jul', 'july', 'aug',
  'august', 'sep', 'sept', 'september', 'oct', 'october', 'nov', 'november', 'dec', 'december', 'januar', 'februar',
  'märz', 'mai', 'juni', 'juli', 'oktober', 'dezember', 'janvier', 'février', 'mars', 'avril', 'juin', 'juillet',
  'août', 'septembre', 'octobre', 'novembre', 'décembre', 'enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio',
  'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre', 'gennaio', 'febbraio', 'aprile', 'maggio',
  'giugno', 'luglio', 'settembre', 'ottobre', 'dicembre', 'januari', 'februari', 'maart', 'mei', 'augustus',
  'stycznia', 'lutego', 'marca', 'kwietnia', 'maja', 'czerwca', 'lipca', 'sierpnia', 'września', 'października',
  'listopada', 'grudnia', 'января', 'февраля', 'марта', 'апреля', 'мая', 'июня', 'июля', 'августа', 'сентября',
  'октября', 'ноября', 'декабря', 'janeiro', 'fevereiro', 'março', 'maio', 'junho', 'julho', 'setembro', 'outubro',
  'dezembro',
]);

// ---------------------------------------------------------------------------------------------
// Disclaimers
// ---------------------------------------------------------------------------------------------

/**
 * Words that tell the reader to ignore the mail or that nothing happens without them: a sentence with
 * them ("If you did not request this, please ignore this email") is about the mail, not about a link.
 */
export const DISCLAIMER_WORDS = wordRegExp([
  // en
  'ignore', 'ignored', 'disregard', 'disregarded', 'no further action', 'no action is needed', 'no action is required',
  'no action needed', 'no action required', 'do nothing', 'nothing to do', 'nothing else to do', "don't need to do anything",
  'do not need to do anything', "don't have to do anything", 'safely delete', 'delete this email', 'delete this message',
  "won't change", 'will not change', 'will remain', 'remains unchanged', 'stays the same', 'stay the same',
  'will be removed', 'will be deleted', "won't be created", 'will not be created', 'no changes will be made', 'can be safely',
  // de
  'ignorieren', 'ignoriere', 'nichts weiter tun', 'nichts tun', 'keine weiteren schritte', 'bleibt unverändert', 'löschen sie diese',
  // fr
  'ignorer', 'ignorez', 'ne rien faire', 'aucune action', 'reste inchangé',
  // es / pt
  'ignora', 'ignore', 'ignorar', 'no es necesario hacer nada', 'no tienes que hacer nada', 'desconsidere', 'permanecerá',
  // it / nl / pl
  'ignorare', 'nessuna azione', 'negeer', 'negeren', 'zignoruj', 'zignorować',
  // ru / ja / zh / ko
  'проигнорируйте', 'игнорируйте', 'просто удалите', '破棄', '無視', '忽略', '무시',
]);

/**
 * Words that point at the link that follows ("Click on the link below to start this process", "Open the
 * link below:"): the block with them introduces the link, so what that block says is what the link does.
 */
export const POINTER_WORDS = wordRegExp([
  // en
  'link below', 'button below', 'url below', 'address below', 'following link', 'following url', 'following address',
  'following page', 'following button', 'link beneath',
  // de
  'folgenden link', 'link unten', 'untenstehenden link', 'nachfolgenden link', 'button unten', 'folgende schaltfläche',
  // fr
  'lien ci-dessous', 'lien suivant', 'bouton ci-dessous',
  // es / pt
  'enlace de abajo', 'siguiente enlace', 'enlace a continuación', 'botón de abajo', 'link abaixo', 'seguinte link', 'botão abaixo',
  // it / nl / pl
  'link qui sotto', 'seguente link', 'link sottostante', 'pulsante qui sotto', 'onderstaande link', 'link hieronder',
  'knop hieronder', 'poniższy link', 'link poniżej', 'przycisk poniżej',
  // ru / ja / zh / ko
  'ссылке ниже', 'следующей ссылке', 'кнопку ниже', '以下のリンク', '下記のリンク', '下のボタン', '以下链接', '下面的链接', '下方按钮',
  '아래 링크', '아래 버튼',
]);
