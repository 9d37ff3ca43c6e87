// What a client may let an agency do on its account: the mandate's scopes, each a family of the merchant API.
import { invalidField } from '../../shared/errors.js';

export const SCOPES = [
  'payments.read', 'payments.write', 'refunds.write', 'customers.read', 'customers.write',
  'subscriptions.write', 'invoices.write', 'webhooks.manage', 'balance.read', 'payouts.write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** The scopes of a body, checked and deduplicated, in the list's order; 400 naming the field otherwise. */
export function parseScopes(input: readonly string[], field = 'scopes'): Scope[] {
  if (input.length === 0) throw invalidField(field, 'must name at least one scope');
  input.forEach((s, i) => {
    if (!isScope(s)) throw invalidField(`${field}[${i}]`, `is not a scope; one of ${SCOPES.join(', ')}`);
  });
  return SCOPES.filter((s) => input.includes(s));
}

/** Each scope in words, for the hosted invitation page. */
export const SCOPE_WORDS: Record<'en' | 'fr', Record<Scope, string>> = {
  en: {
    'payments.read': 'See your payments, payment sessions, refunds, disputes and subscriptions',
    'payments.write': 'Create payment sessions and links, charge saved cards, capture and cancel payments, answer disputes',
    'refunds.write': 'Refund payments',
    'customers.read': 'See your customers and their saved cards',
    'customers.write': 'Create and change customers, and their saved cards',
    'subscriptions.write': 'Create, change and cancel subscriptions',
    'invoices.write': 'See, create, send and credit invoices',
    'webhooks.manage': 'Manage your webhook endpoints and read your events',
    'balance.read': 'See your balance and its transactions',
    'payouts.write': 'Manage your bank accounts and payouts',
  },
  fr: {
    'payments.read': 'Voir vos paiements, sessions de paiement, remboursements, litiges et abonnements',
    'payments.write': 'Créer des sessions et liens de paiement, débiter des cartes enregistrées, capturer et annuler des paiements, répondre aux litiges',
    'refunds.write': 'Rembourser des paiements',
    'customers.read': 'Voir vos clients et leurs cartes enregistrées',
    'customers.write': 'Créer et modifier des clients et leurs cartes enregistrées',
    'subscriptions.write': 'Créer, modifier et résilier des abonnements',
    'invoices.write': 'Voir, créer, envoyer et avoir des factures',
    'webhooks.manage': 'Gérer vos adresses de webhooks et lire vos événements',
    'balance.read': 'Voir votre solde et ses transactions',
    'payouts.write': 'Gérer vos comptes bancaires et virements',
  },
};
