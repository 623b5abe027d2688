// Owns the English words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** English (en). */
export const en: Vocabulary = {
  verify: [
    'verify*', 'verification', 'confirm*', 'activate*', 'activation', 'validate*', 'validation', 'approve*',
    'complete registration', 'complete your registration', 'complete sign up', 'complete signup', 'finish signing up',
    'finish sign up', 'finish setting up', 'magic link', 'magic sign in link', 'yes, it was me', 'it was me',
    'subscribe me', 'yes, subscribe me', 'confirm subscription', 'opt in', 'opt-in',
  ],
  reset: [
    'reset*', 'set password', 'set your password', 'set a password', 'set new password', 'set a new password',
    'choose a new password', 'choose a password', 'create password', 'create a password', 'create your password',
    'create new password', 'change password', 'change my password', 'change your password', 'new password', 'recover*',
  ],
  login: [
    'unlock my account', 'unlock your account', 'unlock account', 'invited you to join', 'invited you to',
    'invites you to join', 'invitation to join', "you're invited to join", 'become a member', 'would like you to join', 'asked you to join', 'you have been invited',
    "you've been invited", 'join now',
    'sign in', 'sign-in', 'signin', 'log in', 'log-in', 'login', 'log me in', 'sign me in', 'magic', 'one-click login',
    'accept invitation', 'accept invite', 'accept the invitation', 'accept your invitation', 'join the team',
    'join team',
  ],
  weakAction: [
    'continue', 'get started', 'click here', 'here', 'open', 'go', 'go to', 'this link', 'accept', 'join', 'yes',
    "that's me", 'this is me', "let's go", 'start', 'finish', 'complete', 'next', 'link', 'button',
  ],
  negativeAction: [
    'cancel*', 'revert', 'undo', 'not me', "wasn't me", 'was not me', 'not you', "didn't request", 'did not request',
    "didn't sign up", 'did not sign up', 'report*', 'decline', 'deny', 'reject', 'secure your account', 'lock account',
    'lock your account', 'block', 'disavow', 'remove me', 'delete account', 'delete my account',
  ],
  notMe: [
    "if this wasn't you", 'if this was not you', "if it wasn't you", "wasn't you", 'was not you', "if you didn't",
    'if you did not', "didn't request", 'did not request', "didn't make", 'did not make', "don't recognize",
    'do not recognize', "didn't recognize", 'unauthorized', 'not you?',
  ],
  unsubscribe: ['unsubscribe*', 'opt out', 'opt-out', 'optout', 'stop receiving', 'stop these emails'],
  preferences: [
    'preferences', 'preference center', 'email preferences', 'manage subscription*', 'manage your subscription*',
    'subscription settings', 'email settings', 'notification settings', 'manage notifications',
    'update your preferences', 'manage email', 'mailing preferences',
  ],
  privacy: ['privacy*', 'cookie*', 'gdpr'],
  terms: [
    'terms', 'terms of service', 'terms of use', 'terms and conditions', 'conditions', 'legal', 'legal notice',
    'imprint',
  ],
  help: [
    'help', 'help center', 'help centre', 'support', 'contact', 'contact us', 'faq', 'faqs', 'customer service',
    'get help',
  ],
  viewInBrowser: [
    'view in browser', 'view in your browser', 'view this email in your browser', 'view it in your browser',
    'view email in browser', 'view online', 'view it online', 'view this email online', 'view as a web page',
    'view as webpage', 'view web version', 'web version', 'open in browser', 'having trouble viewing',
  ],
  social: ['follow us', 'like us'],
  appStore: ['download on the', 'get it on', 'download the app', 'get the app'],
  code: [
    '*code', // also ends German, French and Dutch compounds (`Bestätigungscode`, `verificatiecode`)
    '*codes', 'otp', 'one-time', 'one time', 'passcode', 'pin', 'pin code', 'token', '2fa', 'mfa', 'two-factor',
    'security number', 'verification number',
  ],
  fakeCode: [
    'promo code', 'promo-code', 'promocode', 'promotional code', 'discount code', 'coupon code', 'coupon',
    'voucher code', 'voucher', 'gift code', 'gift card', 'referral code', 'invite code', 'postal code', 'zip code',
    'zipcode', 'postcode', 'post code', 'area code', 'country code', 'qr code', 'bar code', 'barcode', 'source code',
    'error code', 'reference code', 'ref code', 'booking code', 'reservation code', 'order code', 'customer code',
    'client code', 'approval code', 'authorization code', 'authorisation code', 'auth code', 'auth. code', 'tax code',
    'postal', 'zip', 'status code', 'tracking code', 'product code', 'item code', 'sort code', 'swift code', 'bic code',
    'dress code',
  ],
  enter: ['enter', 'type', 'use', 'input', 'key in', 'paste'],
  bookingCode: [
    'confirmation code', 'confirmation number', 'booking code', 'reservation code', 'record locator', 'pnr',
  ],
  booking: [
    'reservation', 'booking', 'itinerary', 'flight', 'hotel', 'check-in', 'check in', 'boarding', 'your trip',
    'your stay',
  ],
  nonCodeLabel: [
    'order', 'orders', 'order number', 'order no', 'invoice', 'receipt', 'ticket', 'ref', 'reference', 'case',
    'booking', 'reservation', 'confirmation number', 'confirmation no', 'tracking', 'tracking number', 'shipment',
    'parcel', 'package', 'account', 'account number', 'customer', 'member', 'membership', 'id', 'user id', 'serial',
    'model', 'version', 'sku', 'item', 'article', 'transaction', 'payment', 'card', 'ending in', 'last 4', 'last four',
    'iban', 'flight', 'seat', 'gate', 'room', 'page', 'step', 'chapter', 'vol', 'no', 'nr', 'number', 'phone', 'tel',
    'telephone', 'call', 'fax', 'mobile', 'cell', 'hotline', 'toll-free', 'toll free', 'zip', 'postal', 'suite', 'apt',
    'apartment', 'unit', 'floor', 'box', 'street', 'total', 'subtotal', 'amount', 'price', 'balance', 'tax', 'vat',
    'qty', 'quantity', 'points', 'miles', 'year', 'since',
  ],
  meeting: [
    'meeting', 'meeting id', 'webinar', 'conference', 'dial-in', 'dial in', 'dial by', 'join by phone', 'participant',
    'host key',
  ],
  promo: ['discount', 'sale', 'off', 'checkout', 'coupon', 'promo', 'voucher', 'save'],
  address: [
    'street', 'st.', 'avenue', 'ave', 'road', 'rd', 'boulevard', 'blvd', 'lane', 'drive', 'suite', 'floor', 'p.o. box',
    'po box',
  ],
  unitAfter: [
    'minute*', 'min', 'mins', 'hour*', 'hr', 'hrs', 'h', 'second*', 'sec', 'secs', 'day*', 'week*', 'month*', 'year*',
    'am', 'pm', 'a.m', 'p.m', 'items', 'item', 'points', 'pts', 'miles', 'members', 'users', 'people', 'customers',
    'downloads', 'views', 'likes', 'followers', 'subscribers', 'orders', 'stars', 'reviews',
  ],
  months: [
    'jan', 'january', 'feb', 'february', 'mar', 'march', 'apr', 'april', 'may', 'jun', 'june', 'jul', 'july', 'aug',
    'august', 'sep', 'sept', 'september', 'oct', 'october', 'nov', 'november', 'dec', 'december',
  ],
  doneNotice: [
    'tried to sign in', 'tried to log in', 'attempted to sign in', 'sign-in attempt', 'login attempt', 'blocked',
    'verified', 'confirmed', 'activated', 'approved', 'changed', 'updated', 'succeeded', 'successful', 'successfully',
    'completed', 'was reset', 'been reset', 'new sign in', 'new sign-in', 'new signin', 'new log in', 'new log-in',
    'new login', 'signed in', 'logged in',
  ],
  confirmationNoun: ['confirmation'],
  account: ['email', 'e-mail', 'address', 'account', 'registration', 'sign up', 'sign-up', 'signup', 'subscription'],
  filler: ['to', 'the', 'your', 'my', 'a', 'an', 'this', 'now', 'please', 'and', 'on', 'in', 'with'],
  copula: ['is'],
  disclaimer: [
    'ignore', 'ignored', 'disregard', 'disregarded', 'no further action', 'no action is needed',
    'no action is required', 'no action needed', 'no action required', 'do nothing', 'nothing to do',
    'nothing else to do', "don't need to do anything", 'do not need to do anything', "don't have to do anything",
    'safely delete', 'delete this email', 'delete this message', "won't change", 'will not change', 'will remain',
    'remains unchanged', 'stays the same', 'stay the same', 'will be removed', 'will be deleted', "won't be created",
    'will not be created', 'no changes will be made', 'can be safely',
  ],
  pointer: [
    'link below', 'button below', 'url below', 'address below', 'following link', 'following url',
    'following address', 'following page', 'following button', 'link beneath',
  ],
  advice: ['we recommend', 'we suggest', 'we advise', 'we strongly recommend', 'we strongly suggest', 'recommend that you', 'recommend you', 'consider changing'],
};
