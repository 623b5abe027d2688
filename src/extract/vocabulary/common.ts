// Owns the words of extraction's vocabulary that belong to no one language (brands, unit and number signs).
import type { Vocabulary } from './types.js';

/** Words shared by every language: brand and product names, unit symbols, number signs. */
export const common: Vocabulary = {
  social: ['facebook', 'twitter', 'instagram', 'linkedin', 'youtube', 'tiktok', 'pinterest'],
  appStore: ['app store', 'google play'],
  nonCodeLabel: [
    'nº', 'n°', '№',
    'whatsapp', // a messenger: the number next to it is a phone number
  ],
  meeting: ['zoom', 'microsoft teams', 'webex', 'google meet'],
  unitAfter: ['km', 'kg', 'mb', 'gb', 'px'],
};
