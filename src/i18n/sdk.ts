// The web SDK component's words (the `sdk` namespace of the catalog), in a file of their own so that the SDK's
// bundle carries these and nothing else of the catalog. Interpolations are {{name}}.
export const sdkText = {
  fr: {
    titlePayment: 'Paiement par carte', titleTokenization: 'Enregistrer une carte',
    number: 'Numéro de carte', expiry: "Date d'expiration", cvc: 'Cryptogramme',
    termsPayment: 'En validant, vous autorisez {{merchant}} à débiter votre carte de {{amount}}.',
    termsTokenization: 'Votre carte sera vérifiée sans aucun débit puis enregistrée pour vos prochains paiements chez {{merchant}}.',
    footer: 'Paiement sécurisé par Motu', test: 'Mode test : aucun paiement réel', challenge: 'Authentification 3-D Secure',
    invalidCard: 'Vérifiez les informations de votre carte.', network: 'Le service est injoignable ; réessayez.',
    notStarted: "L'authentification n'a pas démarré. Utilisez la page de paiement hébergée.",
    unfit: "Ce navigateur n'est pas compatible avec l'authentification de votre banque. Utilisez la page de paiement hébergée.",
    expired: 'Cette session est terminée ou expirée.', unknown: 'Session inconnue.',
    tooManyAttempts: 'Trop de tentatives : ce paiement ne peut plus être réessayé. Revenez sur le site du marchand pour recommencer.',
  },
  en: {
    titlePayment: 'Pay by card', titleTokenization: 'Save a card',
    number: 'Card number', expiry: 'Expiry date', cvc: 'Security code',
    termsPayment: 'By confirming, you authorise {{merchant}} to charge {{amount}} to your card.',
    termsTokenization: "Your card will be verified without any charge and saved for your next payments with {{merchant}}.",
    footer: 'Secure payment by Motu', test: 'Test mode: no real payment', challenge: '3-D Secure authentication',
    invalidCard: 'Check your card details.', network: 'The service cannot be reached; try again.',
    notStarted: 'The authentication did not start. Use the hosted payment page.',
    unfit: "This browser cannot run your bank's authentication. Use the hosted payment page.",
    expired: 'This session is completed or expired.', unknown: 'Unknown session.',
    tooManyAttempts: "Too many attempts: this payment can no longer be retried. Return to the merchant's site to start again.",
  },
};
