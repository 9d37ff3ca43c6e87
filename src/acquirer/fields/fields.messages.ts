// Texts of the secure fields and the simulated bank page, in English and French.
import { pageLang } from '../../shared/lang.js';

export type Lang = 'en' | 'fr';

export const langOf = pageLang;

export const FIELD_TEXT = {
  en: {
    number: 'Card number', expiry: 'Expiry date', cvc: 'Security code',
    numberPlaceholder: '1234 1234 1234 1234', expiryPlaceholder: 'MM / YY', cvcPlaceholder: '123',
    required: 'This field is required', invalidNumber: 'This card number is not valid', invalidExpiry: 'Enter a date as MM / YY',
    pastExpiry: 'This card has expired', invalidCvc: 'Enter the security code on the back of the card',
    incomplete: 'Check the card details', network: 'The connection failed; try again',
    unavailable: 'Card payments are not available on this service',
    tooMany: 'Too many cards entered for this payment; return to the merchant to start again',
    expired: 'This payment page is no longer active',
  },
  fr: {
    number: 'Numéro de carte', expiry: "Date d'expiration", cvc: 'Cryptogramme',
    numberPlaceholder: '1234 1234 1234 1234', expiryPlaceholder: 'MM / AA', cvcPlaceholder: '123',
    required: 'Ce champ est obligatoire', invalidNumber: "Ce numéro de carte n'est pas valide", invalidExpiry: 'Saisissez une date au format MM / AA',
    pastExpiry: 'Cette carte est expirée', invalidCvc: 'Saisissez le cryptogramme au dos de la carte',
    incomplete: 'Vérifiez les informations de la carte', network: 'La connexion a échoué ; réessayez',
    unavailable: "Le paiement par carte n'est pas disponible sur ce service",
    tooMany: 'Trop de cartes saisies pour ce paiement ; revenez chez le marchand pour recommencer',
    expired: "Cette page de paiement n'est plus active",
  },
} as const;

export const BANK_TEXT = {
  en: {
    title: '3-D Secure authentication', tag: 'Test mode: simulated bank', intro: 'Your bank asks you to confirm this payment.',
    amount: 'Amount', card: 'Card', authenticate: 'Authenticate', fail: 'Fail authentication', done: 'This authentication is already complete.',
  },
  fr: {
    title: 'Authentification 3-D Secure', tag: 'Mode test : banque simulée', intro: 'Votre banque vous demande de confirmer ce paiement.',
    amount: 'Montant', card: 'Carte', authenticate: 'Authentifier', fail: "Faire échouer l'authentification", done: 'Cette authentification est déjà terminée.',
  },
} as const;
