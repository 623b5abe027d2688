// Owns the German words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** German (de). */
export const de: Vocabulary = {
  verify: ['bestätig*', 'verifizier*', 'aktivier*', 'freischalten', 'registrierung abschließen', 'validieren'],
  reset: ['passwort zurücksetzen', 'zurücksetzen', 'neues passwort', 'passwort festlegen', 'passwort ändern'],
  login: ['anmelden', 'einloggen', 'jetzt anmelden'],
  weakAction: ['weiter', 'hier'],
  negativeAction: ['abbrechen', 'rückgängig', 'stornieren', 'ablehnen', 'nicht ich'],
  notMe: ['falls sie das nicht waren', 'nicht von ihnen', 'warst du das nicht', 'waren sie das nicht', 'falls du das nicht warst'],
  unsubscribe: ['abmelden', 'abbestellen', 'austragen', 'newsletter abbestellen'],
  preferences: ['einstellungen', 'präferenzen'],
  privacy: ['datenschutz*', 'dsgvo'],
  terms: ['impressum', 'agb', 'nutzungsbedingungen'],
  help: ['hilfe', 'hilfe-center', 'kontakt', 'kundenservice'],
  viewInBrowser: [
    'im browser anzeigen', 'im browser öffnen', 'im browser ansehen', 'online ansehen', 'online-version', 'webversion',
    'web-version',
  ],
  social: ['folgen sie uns', 'folge uns'],
  code: ['tan', 'einmalpasswort', 'einmal-passwort', 'sicherheitsnummer'],
  fakeCode: ['gutscheincode', 'gutschein', 'rabattcode', 'aktionscode', 'postleitzahl'],
  enter: ['eingeben', 'geben sie', 'gib'],
  bookingCode: ['buchungscode', 'bestätigungscode'],
  booking: ['buchung', 'reise', 'flug', 'hotel'],
  nonCodeLabel: [
    'bestellung', '*nummer', 'rechnung', 'kunde', 'auftrag', 'telefon', 'buchung', 'konto', 'betrag', 'summe', 'gesamt',
    'preis', 'artikel', 'art-nr', 'sendung', 'lieferung', 'vorgang', 'plz', 'postfach',
  ],
  meeting: ['besprechung', 'konferenz'],
  promo: ['rabatt', 'gutschein'],
  address: ['*straße', '*strasse', '*str.', 'str.', '*weg', '*platz', '*allee', '*gasse'],
  unitAfter: ['uhr', 'minuten', 'stunde*', 'sekunde*', 'tag', 'tage', 'tagen'],
  months: [
    'januar', 'februar', 'märz', 'april', 'mai', 'juni', 'juli', 'august', 'september', 'oktober', 'november',
    'dezember',
  ],
  confirmationNoun: ['bestätigung'],
  account: ['adresse', 'konto', 'registrierung', 'anmeldung'],
  copula: ['ist', 'lautet'],
  disclaimer: [
    'ignorieren', 'ignoriere', 'nichts weiter tun', 'nichts tun', 'keine weiteren schritte', 'bleibt unverändert',
    'löschen sie diese',
  ],
  pointer: [
    'folgenden link', 'link unten', 'untenstehenden link', 'nachfolgenden link', 'button unten',
    'folgende schaltfläche',
  ],
  doneNotice: ['geändert', 'aktualisiert', 'aktiviert', 'verifiziert'],
  advice: ['wir empfehlen', 'empfehlen wir'],
};
