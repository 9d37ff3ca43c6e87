// Every text of the hosted payment pages, in French (the default) and English.
import { pageLang, type Lang } from '../../shared/lang.js';

export type { Lang };
export const langOf = pageLang;

const en = {
  title: 'Payment', secure: 'Secure payment', payByCard: 'Pay by card', testMode: 'Test mode: no real payment is made', order: 'Your order',
  quantity: 'Qty', subtotal: 'Subtotal', taxes: 'Taxes', total: 'Total', store: 'Store', reference: 'Order',
  email: 'Email', emailHint: 'Your receipt is sent to this address', emailInvalid: 'Enter a valid email address',
  cardDetails: 'Card details', savedCards: 'Your saved cards', newCard: 'Use another card',
  cardNumber: 'Card number', expiry: 'Expiry date', cvc: 'Security code', saveCard: 'Save my card',
  pay: 'Pay', processing: 'Processing…', cancel: 'Cancel and return to the merchant',
  challengeTitle: 'Confirm the payment with your bank', challengeClose: 'Close the authentication and return to the card form',
  challengeCancelled: 'The authentication was cancelled. You can pay again with this card or another one.', fieldsError: 'Check the card details',
  network: 'The connection failed. Check your connection and try again.',
  browserUnfit: 'Your bank cannot authenticate the payment in this browser. Try another browser or another card.',
  unavailable: 'Card payments are not available on this service for the moment.',
  successTitle: 'Payment accepted', successText: 'Thank you. Your payment to {merchant} has been accepted.',
  authorizedText: 'Thank you. Your payment to {merchant} has been authorized.',
  amountPaid: 'Amount', date: 'Date', card: 'Card', paymentRef: 'Payment reference',
  receipt: 'Download the receipt (PDF)', backToMerchant: 'Return to {merchant}',
  failedTitle: 'Payment declined', failedText: 'Your payment to {merchant} could not be completed.', reason: 'Reason:',
  retry: 'Try again', otherCard: 'Use another card',
  attemptsExhausted: 'Too many attempts: this payment can no longer be retried here. Return to {merchant} to start again.',
  expiredTitle: 'This payment page is no longer active',
  expiredText: 'The payment session has expired or was cancelled. If you still want to pay, return to the merchant and start again.',
  paidTitle: 'This order is already paid', paidText: 'Your payment to {merchant} has been accepted; there is nothing more to pay.',
  continue: 'Continue',
  notFound: 'Unknown payment page', receiptTitle: 'Payment receipt', poweredBy: 'Payments by Motu',
  discount: 'Discount', orderDiscount: 'Order discount', statementAs: 'This payment appears on your card statement as “{label}”.',
  refusals: {
    card_declined: 'Your bank declined the card.', insufficient_funds: 'The card has insufficient funds.',
    expired_card: 'The card has expired.', incorrect_cvc: 'The security code is incorrect.',
    processing_error: 'An error occurred while processing the card. Try again.', authentication_failed: 'The 3-D Secure authentication failed.',
  } as Record<string, string>,
  refusalDefault: 'The payment was declined.',
};

const fr: typeof en = {
  title: 'Paiement', secure: 'Paiement sécurisé', payByCard: 'Payer par carte', testMode: 'Mode test : aucun paiement réel', order: 'Votre commande',
  quantity: 'Qté', subtotal: 'Sous-total', taxes: 'Taxes', total: 'Total', store: 'Boutique', reference: 'Commande',
  email: 'E-mail', emailHint: 'Votre reçu est envoyé à cette adresse', emailInvalid: 'Saisissez une adresse e-mail valide',
  cardDetails: 'Informations de la carte', savedCards: 'Vos cartes enregistrées', newCard: 'Utiliser une autre carte',
  cardNumber: 'Numéro de carte', expiry: "Date d'expiration", cvc: 'Cryptogramme', saveCard: 'Enregistrer ma carte',
  pay: 'Payer', processing: 'Traitement…', cancel: 'Annuler et revenir chez le marchand',
  challengeTitle: 'Confirmez le paiement auprès de votre banque', challengeClose: "Fermer l'authentification et revenir au formulaire de carte",
  challengeCancelled: "L'authentification a été annulée. Vous pouvez payer à nouveau avec cette carte ou une autre.", fieldsError: 'Vérifiez les informations de la carte',
  network: 'La connexion a échoué. Vérifiez votre connexion et réessayez.',
  browserUnfit: "Votre banque ne peut pas authentifier le paiement dans ce navigateur. Essayez un autre navigateur ou une autre carte.",
  unavailable: "Le paiement par carte n'est pas disponible sur ce service pour le moment.",
  successTitle: 'Paiement accepté', successText: 'Merci. Votre paiement à {merchant} a été accepté.',
  authorizedText: 'Merci. Votre paiement à {merchant} a été autorisé.',
  amountPaid: 'Montant', date: 'Date', card: 'Carte', paymentRef: 'Référence du paiement',
  receipt: 'Télécharger le reçu (PDF)', backToMerchant: 'Revenir chez {merchant}',
  failedTitle: 'Paiement refusé', failedText: "Votre paiement à {merchant} n'a pas abouti.", reason: 'Motif :',
  retry: 'Réessayer', otherCard: 'Utiliser une autre carte',
  attemptsExhausted: 'Trop de tentatives : ce paiement ne peut plus être réessayé ici. Revenez sur {merchant} pour recommencer.',
  expiredTitle: "Cette page de paiement n'est plus active",
  expiredText: 'La session de paiement a expiré ou a été annulée. Pour payer, revenez chez le marchand et recommencez.',
  paidTitle: 'Cette commande est déjà payée', paidText: "Votre paiement à {merchant} a été accepté ; il n'y a plus rien à payer.",
  continue: 'Continuer',
  notFound: 'Page de paiement inconnue', receiptTitle: 'Reçu de paiement', poweredBy: 'Paiements par Motu',
  discount: 'Remise', orderDiscount: 'Remise sur la commande', statementAs: 'Ce paiement apparaît sur votre relevé de carte sous le libellé « {label} ».',
  refusals: {
    card_declined: 'Votre banque a refusé la carte.', insufficient_funds: 'Le solde de la carte est insuffisant.',
    expired_card: 'La carte est expirée.', incorrect_cvc: 'Le cryptogramme est incorrect.',
    processing_error: 'Une erreur est survenue lors du traitement de la carte. Réessayez.', authentication_failed: "L'authentification 3-D Secure a échoué.",
  },
  refusalDefault: 'Le paiement a été refusé.',
};

export const TEXT: Record<Lang, typeof en> = { en, fr };

export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_m, k: string) => values[k] ?? '');
}
