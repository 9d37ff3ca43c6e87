// Textes français : la même forme que en.ts (le compilateur le vérifie).
import type { en } from './en.js';

export const fr: typeof en = {
  dashboard: {
    common: {
      loading: 'Chargement…', error: 'Erreur :', back: 'Retour', all: 'Tous', applyFilters: 'Filtrer', resetFilters: 'Réinitialiser',
      pagination: 'Pagination', previous: 'Précédent', next: 'Suivant', pageN: 'Page {{n}}', save: 'Enregistrer', saved: 'Enregistré', copied: 'Copié',
      create: 'Créer', delete: 'Supprimer', cancel: 'Annuler', copy: 'Copier', yes: 'Oui', no: 'Non', none: 'Aucun', actions: 'Actions',
    },
    shell: {
      skip: 'Aller au contenu', menu: 'Menu', navigation: 'Principale', language: 'Langue', signOut: 'Se déconnecter',
      testBadge: 'TEST', liveBadge: 'PRODUCTION', liveMode: 'Mode production', nowLive: 'Vous êtes en mode production : paiements réels.',
      nowTest: 'Vous êtes en mode test.', testBanner: 'Mode test : ces données sont des données de test ; aucun argent réel ne circule.',
    },
    nav: {
      home: 'Accueil', payments: 'Paiements', customers: 'Clients', subscriptions: 'Abonnements', invoices: 'Factures',
      balance: 'Solde', payouts: 'Virements', disputes: 'Litiges', developers: 'Développeurs', settings: 'Paramètres',
    },
    signIn: {
      title: 'Connexion à Motu', email: 'E-mail', password: 'Mot de passe', code: "Code d'authentification",
      codeHint: "Le code à 6 chiffres de votre application d'authentification, ou l'un de vos codes de secours.", submit: 'Se connecter',
      locked: 'Trop de tentatives échouées : ce compte est bloqué. Réessayez dans {{minutes}} minutes.',
    },
    setup: {
      title: 'Choisissez votre mot de passe', intro: 'Bienvenue dans le back-office de {{merchant}}. Votre compte : {{email}}.',
      password: 'Mot de passe', confirm: 'Confirmer le mot de passe', passwordHint: '{{n}} caractères ou plus.',
      tooShort: 'Le mot de passe doit compter {{n}} caractères ou plus.', mismatch: 'Les deux mots de passe diffèrent.',
      submit: 'Enregistrer et se connecter',
    },
    notFound: { title: 'Page introuvable', text: "Il n'y a pas de page à cette adresse.", back: 'Aller aux paiements' },
    status: {
      pending: 'En attente', transit: 'Autorisé', captured: 'Encaissé', failed: 'Échoué', cancelled: 'Annulé', expired: 'Expiré',
      partially_refunded: 'Partiellement remboursé', refunded: 'Remboursé', succeeded: 'Réussi', delivered: 'Livré',
      ready: 'Prête', advancing: 'En avance', active: 'Actif', invited: 'Invité', disabled: 'Désactivé', enabled: 'Activé', revoked: 'Révoquée',
      available: 'Disponible', in_transit: 'En cours', paid: 'Payé', new: 'Nouveau', errored: 'En erreur', removed: 'Retirée',
      needs_response: 'Réponse attendue', under_review: "En cours d'examen", won: 'Gagné', lost: 'Perdu', warning_needs_response: 'Demande : réponse attendue',
      warning_under_review: "Demande : en cours d'examen", warning_closed: 'Demande close', waiting_mandate: 'En attente de carte', past_due: 'Impayé',
      ended: 'Terminé', scheduled: 'Prévue', retrying: 'Nouvelle tentative', unpaid: 'Impayée', skipped: 'Sautée', draft: 'Brouillon', open: 'Ouverte',
      partially_paid: 'Partiellement payée', disputed: 'Contestée', credited: 'Créditée', uncollectible: 'Irrécouvrable',
    },
    roles: { owner: 'Propriétaire', admin: 'Administrateur', developer: 'Développeur', support: 'Support', analyst: 'Analyste' },
    payments: {
      title: 'Paiements', caption: 'Paiements, du plus récent au plus ancien', filters: 'Filtrer les paiements', search: 'Rechercher',
      searchHint: 'Référence, e-mail, identifiant…', status: 'Statut', from: 'Du', to: 'Au', amountMin: 'Montant minimum',
      amountMax: 'Montant maximum', amountHint: "Dans la plus petite unité : francs pour XPF, centimes pour EUR.", store: 'Boutique',
      reference: 'Référence', customerEmail: 'E-mail du client', cardLast4: '4 derniers chiffres de la carte', created: 'Créé le',
      customer: 'Client', card: 'Carte', amount: 'Montant', exportCsv: 'Exporter en CSV', empty: 'Aucun paiement ne correspond à ces filtres.',
    },
    payment: {
      title: 'Paiement {{reference}}', backToList: '← Tous les paiements', summary: 'Résumé', id: 'Identifiant', reference: 'Référence du paiement',
      orderReference: 'Référence de commande', customer: 'Client', card: 'Carte', store: 'Boutique', captureMode: "Mode d'encaissement",
      created: 'Créé le', authorizedAt: 'Autorisé le', capturedAt: 'Encaissé le', settledAt: 'Réglé le', capturedAmount: 'Montant encaissé',
      refundedAmount: 'Montant remboursé', disputedAmount: 'Montant contesté', refusal: 'Refus', fees: 'Frais',
      feesCaption: 'Frais Motu sur ce paiement', feeLine: 'Ligne', amount: 'Montant', feesTotal: 'Total des frais', net: 'Montant net',
      timeline: 'Historique', capture: 'Encaisser', cancel: 'Annuler le paiement', refund: 'Rembourser',
      captureTitle: 'Encaisser ce paiement ?', captureText: 'Montant autorisé :', captureAmount: 'Montant à encaisser (vide : tout)',
      cancelTitle: 'Annuler ce paiement ?', cancelText: "L'autorisation est libérée ; le client n'est pas débité. C'est définitif.",
      refundTitle: 'Rembourser ce paiement ?', refundText: 'Remboursable :', refundAmount: 'Montant à rembourser (vide : tout)', refundReason: 'Motif (facultatif)',
      amountMinorHint: 'Dans la plus petite unité : francs pour XPF, centimes pour EUR.',
      captured: 'Paiement encaissé.', cancelled: 'Paiement annulé.', refunded: 'Remboursement demandé.',
    },
    timeline: {
      attempt: "Tentative d'autorisation", refusalCode: 'code de refus', threeDSecure: '3-D Secure', refund: 'Remboursement', dispute: 'Litige',
      teamAction: "Action de l'équipe", event: 'Événement',
    },
    events: {
      title: 'Journal des événements', caption: 'Événements, du plus récent au plus ancien', type: 'Type', created: 'Créé le', deliveries: 'Livraisons', resend: 'Renvoyer',
      resent: "L'événement est renvoyé.", noDelivery: "Aucune livraison : ni point de terminaison ni URL de notification pour cet événement.",
      attempt: 'Tentative {{n}}', noAnswer: 'pas de réponse', nextAttempt: 'Prochaine tentative :', empty: "Aucun événement pour l'instant.", payment: 'Paiement',
      filterType: "Type d'événement", show: 'Voir les livraisons', hide: 'Masquer les livraisons',
    },
    developers: { title: 'Développeurs', keys: 'Clés API', webhooks: 'Webhooks', events: 'Journal des événements', testClocks: 'Horloges de test' },
    apiKeys: {
      create: 'Créer une clé API', permission: 'Permission', write: 'Lecture et écriture', read: 'Lecture seule', store: 'Boutique', allStores: 'Toutes les boutiques',
      createButton: 'Créer une clé {{mode}}', newKey: 'Votre nouvelle clé secrète :', shownOnce: "Elle n'est montrée qu'une fois : copiez-la maintenant.",
      key: 'Clé', created: 'Créée le', status: 'Statut', revoke: 'Révoquer', revokeKey: 'Révoquer la clé finissant par {{last4}}',
      caption: 'Clés API de ce mode', empty: 'Aucune clé API dans ce mode.', revokeTitle: 'Révoquer cette clé ?',
      revokeText: 'Les requêtes faites avec la clé finissant par {{last4}} seront refusées. C’est définitif.', revoked: 'Clé révoquée.',
    },
    webhooks: {
      endpoints: 'Points de terminaison', url: 'URL', events: 'Événements', eventsHint: "Types d'événements séparés par des virgules ; * pour tous, payment.* pour une famille.",
      description: 'Description', add: 'Ajouter', status: 'Statut', created: 'Créé le', caption: 'Points de terminaison des webhooks',
      empty: "Aucun point de terminaison : les événements ne vont qu'à l'URL de notification de chaque paiement.", added: 'Point de terminaison ajouté.',
      disable: 'Désactiver', enable: 'Activer', reenable: 'Réactiver', disableUrl: 'Désactiver {{url}}', enableUrl: 'Activer {{url}}', deleteUrl: 'Supprimer {{url}}',
      enabledNow: 'Point de terminaison activé.', disabledNow: 'Point de terminaison désactivé.', deleteTitle: 'Supprimer ce point de terminaison ?',
      deleteText: "Les événements ne seront plus envoyés à {{url}}.", deleted: 'Point de terminaison supprimé.',
      signingSecret: 'Secret de signature', signingText: 'Chaque webhook est signé avec ce secret ; votre serveur vérifie la signature avec lui.',
      reveal: 'Afficher', rotate: 'Renouveler', secret: 'Secret de signature :', previousValid: "L'ancien secret signe aussi jusqu'au {{until}}.",
      rotateTitle: 'Renouveler le secret de signature ?', rotateText: "Un nouveau secret signe dès maintenant ; pendant 24 heures l'ancien signe aussi, le temps de changer vos serveurs.",
    },
    testClocks: {
      create: 'Créer une horloge de test', intro: "Une horloge de test fige le temps des objets qui lui sont rattachés ; avancez-la pour voir ce que le temps leur fait.",
      name: 'Nom', frozenTime: 'Heure figée', status: 'Statut', advance: 'Avancer', advanceTo: 'Avancer {{name}} jusqu’au',
      createButton: "Créer l'horloge", caption: 'Horloges de test', empty: 'Aucune horloge de test.', badTime: 'Saisissez une date et une heure.',
      advanced: "L'horloge avance.",
    },
  },
};
