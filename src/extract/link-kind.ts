// Owns classifying a link by purpose: unsubscribe, privacy, help, social, logo, view-in-browser, … or other.
import type { RawLink } from './link-collect.js';
import { isUrlText } from './link-collect.js';
import type { LinkKind } from './types.js';
import { firstWord, hasWord } from './text-utils.js';
import {
  APP_STORE_WORDS, HELP_WORDS, PREFERENCES_WORDS, PRIVACY_WORDS, SOCIAL_WORDS, TERMS_WORDS, UNSUBSCRIBE_WORDS,
  VIEW_IN_BROWSER_WORDS, WEAK_ACTION,
} from './vocabulary/index.js';

const SOCIAL_HOSTS =
  /(^|\.)(facebook\.com|fb\.com|fb\.me|twitter\.com|x\.com|instagram\.com|linkedin\.com|lnkd\.in|youtube\.com|youtu\.be|tiktok\.com|pinterest\.[a-z.]+|reddit\.com|discord\.gg|discord\.com|t\.me|telegram\.me|vk\.com|ok\.ru|weibo\.com|line\.me|medium\.com|threads\.net|bsky\.app|mastodon\.social|wa\.me|whatsapp\.com|snapchat\.com|tumblr\.com|twitch\.tv|xing\.com|kakao\.com|naver\.com|qq\.com|douyin\.com|bilibili\.com|github\.com|dribbble\.com|behance\.net)$/;
const APP_STORE_HOSTS = /(^|\.)(apps\.apple\.com|itunes\.apple\.com|play\.google\.com|appgallery\.huawei\.com|apps\.microsoft\.com|galaxystore\.samsung\.com|amazon\.com\/gp\/mas)$/;
const HELP_HOSTS = /(^|\.)(zendesk\.com|freshdesk\.com|intercom\.help|helpscout\.net|helpshift\.com)$|^(help|support|helpcenter|hilfe|aide|ayuda|ajuda|aiuto|faq|kundenservice|service)\./;
const VIEW_HOSTS = /(^|\.)(mailchi\.mp|campaign-archive\.com|createsend\.com|us\d+\.campaign-archive\.com)$/;

const PATH_KINDS: Array<[LinkKind, RegExp]> = [
  ['view-in-browser', /^(webversion|view-in-browser|viewinbrowser|view-online|viewonline|view_online|web-version|browserview|browser|view-email|webview|online-version|onlineversion|mirror)$/],
  ['unsubscribe', /^(unsubscribe|unsub|optout|opt-out|opt_out|unsubscribed|unsubscription|abmelden|abbestellen|desabonner|desinscription|baja|uitschrijven|afmelden|disiscriviti|otpisatsya)$/],
  ['preferences', /^(preferences|preference|preference-center|email-preferences|manage-preferences|notification-settings|email-settings|manage-subscriptions|manage-subscription|subscription-center|subscriptions-center|profile-center)$/],
  ['privacy', /^(privacy|privacy-policy|privacypolicy|privacy-notice|gdpr|cookie|cookies|cookie-policy|datenschutz|datenschutzerklaerung|confidentialite|privacidad|privacidade|privacybeleid)$/],
  ['terms', /^(terms|tos|terms-of-service|terms-of-use|terms-and-conditions|legal|impressum|imprint|agb|conditions|cgu|cgv|mentions-legales|terminos|termos|termini|voorwaarden|regulamin)$/],
  ['help', /^(help|support|faq|faqs|contact|contact-us|contactus|helpcenter|help-center|hc|kontakt|aide|ayuda|ajuda|aiuto|hilfe|customer-service|kundenservice)$/],
];

/** The kind of a link with the reasons for it. `verification` is decided later, by scoring. */
export interface KindVerdict {
  kind: LinkKind;
  reasons: string[];
}

const TEXT_KINDS: Array<[LinkKind, RegExp]> = [
  ['view-in-browser', VIEW_IN_BROWSER_WORDS],
  ['unsubscribe', UNSUBSCRIBE_WORDS],
  ['preferences', PREFERENCES_WORDS],
  ['privacy', PRIVACY_WORDS],
  ['terms', TERMS_WORDS],
  ['help', HELP_WORDS],
  ['app-store', APP_STORE_WORDS],
];

/** Classifies a link by its scheme, anchor text, images, host and path words. */
export function classifyLink(link: RawLink): KindVerdict {
  const { evidence } = link;
  if (['mailto', 'tel', 'sms', 'callto', 'facetime'].includes(evidence.scheme)) {
    return { kind: 'contact', reasons: [`${evidence.scheme}: link`] };
  }
  if (!evidence.url) return { kind: 'other', reasons: ['not a web link'] };
  const texts = link.texts.filter((t) => !isUrlText(t));
  for (const [kind, words] of TEXT_KINDS) {
    for (const text of texts) {
      const word = firstWord(words, text);
      if (word) return { kind, reasons: [`text "${clip(text)}" says "${word}"`] };
    }
  }
  const generic = texts.length === 0 || texts.every((t) => hasWord(WEAK_ACTION, t));
  if (generic) {
    for (const [kind, words] of TEXT_KINDS.slice(0, 3)) {
      for (const context of link.contexts.filter((c) => c.inline)) {
        const word = firstWord(words, context.text);
        if (word) return { kind, reasons: [`the sentence around it says "${word}"`] };
      }
    }
  }
  for (const host of evidence.hosts) {
    if (VIEW_HOSTS.test(host)) return { kind: 'view-in-browser', reasons: [`${host} hosts web versions of emails`] };
  }
  for (const [kind, pattern] of PATH_KINDS) {
    const word = evidence.pathWords.find((w) => pattern.test(w)) ?? joinedPathMatch(evidence.pathWords, pattern);
    if (word) return { kind, reasons: [`URL path says "${word}"`] };
  }
  for (const host of evidence.hosts) {
    if (HELP_HOSTS.test(host)) return { kind: 'help', reasons: [`${host} is a help site`] };
    if (APP_STORE_HOSTS.test(host)) return { kind: 'app-store', reasons: [`${host} is an app store`] };
    if (SOCIAL_HOSTS.test(host) && !evidence.token) return { kind: 'social', reasons: [`${host} is a social network`] };
  }
  if (link.image || texts.length === 0) {
    const social = link.imageHints.map((h) => firstWord(SOCIAL_WORDS, h)).find(Boolean);
    if (social) return { kind: 'social', reasons: [`image says "${social}"`] };
  }
  if (link.image) {
    if (link.imageHints.some((h) => /logo|brand|header/i.test(h))) return { kind: 'logo', reasons: ['image-only link showing a logo'] };
    if (evidence.home) return { kind: 'logo', reasons: ['image-only link to the home page'] };
  }
  for (const text of texts) {
    const word = firstWord(SOCIAL_WORDS, text);
    if (word && text.length < 40) return { kind: 'social', reasons: [`text "${clip(text)}" says "${word}"`] };
  }
  return { kind: 'other', reasons: [] };
}

/** Multi-word path segments such as `privacy-policy` were split into words; try them joined with a hyphen. */
function joinedPathMatch(words: string[], pattern: RegExp): string | undefined {
  for (let i = 0; i + 1 < words.length; i++) {
    const pair = `${words[i]}-${words[i + 1]}`;
    if (pattern.test(pair)) return pair;
    const triple = i + 2 < words.length ? `${pair}-${words[i + 2]}` : '';
    if (triple && pattern.test(triple)) return triple;
  }
  return undefined;
}

/** Shortens a text for a reason string. */
export function clip(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
