// Owns the Italian words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Italian (it). */
export const it: Vocabulary = {
  verify: ['verifica', 'conferma', 'confermare', 'verificare', 'attiva', 'attivare', 'convalida'],
  reset: ['reimposta', 'reimpostare', 'nuova password'],
  login: ['accedi'],
  weakAction: ['continua', 'qui'],
  negativeAction: ['annulla', 'rifiuta'],
  notMe: ['se non sei stato tu'],
  unsubscribe: ['annulla iscrizione', 'disiscriviti', 'cancella iscrizione', 'disiscrizione'],
  preferences: ['preferenze'],
  privacy: ['riservatezza'],
  terms: ['termini', 'condizioni', 'note legali'],
  help: ['aiuto', 'assistenza', 'centro assistenza', 'contattaci'],
  viewInBrowser: ['visualizza nel browser', 'versione web', 'visualizza online'],
  social: ['seguici'],
  code: ['codice', 'codici', 'codice di verifica', 'codice di sicurezza', 'codice di conferma'],
  fakeCode: ['codice sconto', 'codice promozionale', 'codice postale'],
  enter: ['inserisci', 'digita'],
  bookingCode: ['codice di prenotazione'],
  booking: ['prenotazione', 'volo'],
  nonCodeLabel: [
    'ordine', 'numero', 'fattura', 'prenotazione', 'telefono', 'chiama', 'conto', 'cliente', 'importo', 'totale',
    'prezzo', 'spedizione',
  ],
  meeting: ['riunione'],
  promo: ['sconto'],
  address: ['viale', 'piazza', 'corso'],
  unitAfter: ['minuti', 'ore', 'secondi', 'giorni'],
  months: [
    'gennaio', 'febbraio', 'marzo', 'aprile', 'maggio', 'giugno', 'luglio', 'agosto', 'settembre', 'ottobre',
    'novembre', 'dicembre',
  ],
  confirmationNoun: ['conferma'],
  account: ['indirizzo'],
  copula: [
    'è',
    'e', // è typed without its accent
    'era',
  ],
  disclaimer: [
    'ignora', 'ignorare', 'nessuna azione',
  ],
  pointer: [
    'link qui sotto', 'seguente link', 'link sottostante', 'pulsante qui sotto',
  ],
  advice: ['ti consigliamo', 'vi consigliamo', 'consigliamo'],
};
