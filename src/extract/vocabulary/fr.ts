// Owns the French words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** French (fr). */
export const fr: Vocabulary = {
  verify: ['vérifi*', 'confirmer', 'confirmez', 'activer', 'activez', 'valider', 'validez', 'finaliser'],
  reset: ['réinitialis*', 'nouveau mot de passe'],
  login: ['se connecter', 'connectez-vous', 'connexion'],
  weakAction: ['continuer', 'ici'],
  negativeAction: ['annuler', 'refuser', "ce n'était pas moi"],
  notMe: ["si ce n'était pas vous", "si vous n'êtes pas"],
  unsubscribe: ['désabonner', 'désinscri*', 'se désabonner', 'désabonnement'],
  preferences: ['préférences'],
  privacy: ['confidentialité'],
  terms: ['conditions', 'conditions générales', 'cgu', 'cgv', 'mentions légales'],
  help: ['aide', "centre d'aide", 'nous contacter', 'assistance'],
  viewInBrowser: [
    'version en ligne', 'voir la version en ligne', 'afficher dans le navigateur', 'voir dans le navigateur',
    'ouvrir dans le navigateur',
  ],
  social: ['suivez-nous'],
  code: ['mot de passe à usage unique', 'code de vérification', 'code de confirmation', 'code de sécurité'],
  fakeCode: ['code promo', 'code de réduction', 'code postal', 'code avantage'],
  enter: ['saisissez', 'entrez', 'saisir'],
  bookingCode: ['code de confirmation'],
  booking: ['réservation', 'vol', 'séjour'],
  nonCodeLabel: [
    'commande', 'numéro', 'facture', 'réservation', 'téléphone', 'tél', 'appelez', 'compte', 'client', 'montant',
    'prix', 'billet', 'dossier', 'colis', 'suivi',
  ],
  meeting: ['réunion'],
  promo: ['réduction', 'remise'],
  address: ['rue', 'boulevard', 'cedex'],
  unitAfter: ['heure*', 'jour*'],
  months: [
    'janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre',
    'décembre',
  ],
  confirmationNoun: ['confirmation'],
  account: ['adresse', 'compte'],
  copula: ['est', 'sera'],
  disclaimer: [
    'ignorer', 'ignorez', 'ne rien faire', 'aucune action', 'reste inchangé',
  ],
  pointer: [
    'lien ci-dessous', 'lien suivant', 'bouton ci-dessous',
  ],
  advice: ['nous vous recommandons', 'nous recommandons', 'nous vous conseillons'],
};
