// Owns the Dutch words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Dutch (nl). */
export const nl: Vocabulary = {
  verify: ['bevestig*', 'verifieer', 'verifiëren', 'activeer', 'activeren', 'valideer'],
  reset: ['herstel', 'opnieuw instellen', 'nieuw wachtwoord'],
  login: ['inloggen', 'log in', 'aanmelden'],
  weakAction: ['doorgaan', 'hier', 'hier klikken'],
  negativeAction: ['annuleren', 'weigeren'],
  notMe: ['als jij dit niet was', 'als u dit niet was', 'was jij dit niet', 'was u dit niet', 'was jij dat niet', 'was u dat niet'],
  unsubscribe: ['afmelden', 'uitschrijven'],
  preferences: ['voorkeuren'],
  privacy: ['privacybeleid'],
  terms: ['voorwaarden', 'algemene voorwaarden'],
  help: ['hulp', 'klantenservice', 'neem contact op'],
  viewInBrowser: ['bekijk in je browser', 'bekijk in browser', 'bekijk online', 'webversie'],
  social: ['volg ons'],
  fakeCode: ['kortingscode', 'actiecode'],
  enter: ['voer', 'vul'],
  bookingCode: ['boekingscode'],
  booking: ['boeking', 'vlucht'],
  nonCodeLabel: [
    'bestelling', 'factuur', 'boeking', 'reservering', 'telefoon', 'bel', 'rekening', 'klant', 'bedrag', 'totaal',
    'prijs', 'zending',
  ],
  meeting: ['vergadering'],
  promo: ['korting'],
  address: ['*straat', '*laan', '*plein', '*gracht'],
  unitAfter: ['minuten', 'uur', 'seconden', 'dagen'],
  months: [
    'januari', 'februari', 'maart', 'april', 'mei', 'juni', 'juli', 'augustus', 'september', 'oktober', 'november',
    'december',
  ],
  confirmationNoun: ['bevestiging'],
  copula: ['is', 'luidt'],
  disclaimer: [
    'negeer', 'negeren',
  ],
  pointer: [
    'onderstaande link', 'link hieronder', 'knop hieronder',
  ],
  doneNotice: ['gewijzigd', 'bijgewerkt', 'geactiveerd', 'geverifieerd'],
  advice: ['we raden je aan', 'wij raden u aan', 'we adviseren'],
};
