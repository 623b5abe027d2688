// Owns the Polish words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Polish (pl). */
export const pl: Vocabulary = {
  verify: ['potwierdź', 'potwierdz*', 'zweryfikuj', 'weryfikuj', 'aktywuj', 'aktywacja'],
  reset: ['zresetuj', 'resetuj', 'ustaw hasło', 'nowe hasło'],
  login: ['zaloguj*', 'logowanie'],
  weakAction: ['dalej', 'tutaj'],
  negativeAction: ['anuluj', 'odrzuć', 'to nie ja'],
  notMe: ['jeśli to nie ty'],
  unsubscribe: ['wypisz', 'wypisz się', 'rezygnacja'],
  preferences: ['ustawienia', 'preferencje'],
  privacy: ['prywatności', 'prywatnosci'],
  terms: ['regulamin'],
  help: ['pomoc', 'centrum pomocy'],
  viewInBrowser: ['zobacz w przeglądarce', 'wersja online', 'otwórz w przeglądarce'],
  social: ['obserwuj nas'],
  code: [
    '*kod', // also Swedish and Turkish
    'kod*', 'kod weryfikacyjny', 'kod potwierdzający', 'kod bezpieczeństwa', 'kod jednorazowy',
  ],
  fakeCode: ['kod rabatowy', 'kod promocyjny', 'kod pocztowy'],
  enter: ['wpisz', 'wprowadź'],
  bookingCode: ['kod rezerwacji'],
  booking: ['rezerwacja'],
  nonCodeLabel: [
    'zamówienie', 'zamówienia', 'zamowienie', 'faktura', 'faktury', 'rezerwacja', 'klient', 'kwota', 'cena', 'suma',
    'przesyłka', 'numer',
  ],
  meeting: ['spotkanie'],
  promo: ['rabat'],
  address: ['ul.', 'ulica'],
  unitAfter: ['minut*', 'godzin*', 'sekund*', 'dni'],
  months: [
    'stycznia', 'lutego', 'marca', 'kwietnia', 'maja', 'czerwca', 'lipca', 'sierpnia', 'września', 'października',
    'listopada', 'grudnia',
  ],
  confirmationNoun: ['potwierdzenie'],
  account: ['konto'],
  copula: ['jest'],
  disclaimer: [
    'zignoruj', 'zignorować',
  ],
  pointer: [
    'poniższy link', 'link poniżej', 'przycisk poniżej',
  ],
  advice: ['zalecamy', 'zalecamy zmianę'],
};
