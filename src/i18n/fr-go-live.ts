// Textes français de la page « Passer en production », de sa liste à l'accueil, des pages vides en production et de
// l'avis des factures : la même forme que en-go-live.ts (le compilateur le vérifie).
import type { enGoLive } from './en-go-live.js';

export const frGoLive: typeof enGoLive = {
  goLive: {
    title: 'Passer en production',
    intro: "Le mode production prend de vraies cartes et vire de l'argent réel. Voici ce qu'il lui faut, et où chaque chose se fait.",
    ready: 'Tout est prêt : votre mode production prend de vrais paiements.',
    progress: '{{done}} sur {{total}} fait',
    checklist: 'Ce que le mode production demande',
    homeTitle: 'Avant de passer en production',
    homeMore: 'Toutes les étapes',
    states: { done: 'Fait', partial: 'Commencé', missing: 'À faire' },
    items: {
      legalIdentity: 'Votre identité légale',
      bankAccount: 'Un compte bancaire pour les virements',
      liveContract: 'Le contrat de production et son acquéreur',
      liveKey: 'Une clé API de production',
      webhookEndpoint: 'Un endpoint webhook de production',
    },
    legalIdentity: {
      done: 'Vos factures vous nomment, et la facturation est ouverte.',
      missing: "Il manque : {{missing}}. Vos factures doivent nommer qui les émet : la facturation s'ouvre une fois l'identité complète.",
      act: 'La compléter dans les Paramètres',
    },
    bankAccount: {
      text: "Les virements d'une devise vont à son compte bancaire de production par défaut.",
      currency: '{{currency}} : ',
      account: 'compte se terminant par {{last4}} ({{holder}})',
      none: 'aucun compte par défaut',
      act: 'Ajouter un compte bancaire dans Virements',
      liveOnly: "Passez d'abord en mode production : les comptes bancaires sont propres à chaque mode.",
    },
    liveContract: {
      byOperator: "Votre contrat et l'acquéreur qui prend vos cartes sont réglés par l'opérateur de ce service Motu, pas depuis le back-office.",
      contract: 'Contrat {{id}} ({{label}}), marchand {{merchantId}}',
      simulator: "Son acquéreur : aucun pour l'instant. Les paiements de production sont refusés tant que l'opérateur n'a pas relié le contrat à Monext.",
      homologation: "Son acquéreur : Monext, environnement d'homologation. Les paiements vont à l'environnement de test de Monext : pas encore d'argent réel.",
      production: 'Son acquéreur : Monext, environnement de production.',
      none: "Aucun contrat par défaut actif : demandez à l'opérateur.",
      askOperator: "Demandez à l'opérateur de lancer :",
      orRoute: "ou d'appeler l'API d'administration :",
      copy: 'Copier la commande',
      copied: 'Commande copiée.',
    },
    liveKey: {
      done: 'Clés de production faites par votre équipe : {{count}}.',
      missing: "Votre intégration prend de vrais paiements avec une clé secrète de production (sk_live_…), montrée une seule fois à sa création.",
      operatorKeys: "L'opérateur détient aussi {{count}} clé de production faite avec votre compte ; demandez-la, ou faites la vôtre.",
      act: 'Faire une clé de production dans Développeurs',
    },
    webhookEndpoint: {
      done: 'Endpoints de production recevant les événements : {{count}}.',
      missing: "Votre serveur apprend les paiements, remboursements et litiges par les webhooks : ajoutez l'adresse qui les reçoit.",
      disabled: 'Endpoints désactivés : {{count}}.',
      act: 'Ajouter un endpoint dans Développeurs',
    },
    liveSwitch: 'Clés, endpoints et comptes bancaires se font dans le mode où vous êtes : passez en mode production (en haut de la page) pour faire ceux de production.',
    switchButton: 'Passer en mode production',
    askOwner: "Demandez à un propriétaire ou un administrateur de votre équipe ce qu'il manque au mode production (page « Passer en production »).",
  },
  liveEmpty: {
    payments: 'Aucun paiement de production pour le moment.',
    customers: 'Aucun client de production pour le moment.',
    subscriptions: 'Aucun abonnement de production pour le moment.',
    invoices: 'Aucune facture de production pour le moment.',
    payouts: 'Aucun virement de production pour le moment.',
    disputes: 'Aucun litige de production pour le moment.',
    firstGoLive: 'Les paiements de production commencent une fois le mode production prêt :',
    goLiveLink: "voir ce qu'il lui manque",
  },
  invoicingNotice: {
    closed: "La facturation n'est pas encore ouverte : les factures peuvent être préparées en brouillon, mais ni finalisées ni envoyées, tant que votre identité légale n'est pas complète. Il manque : {{missing}}.",
    act: 'La compléter dans les Paramètres',
  },
};
