// The scope an agency's mandate must grant for each merchant API route it calls on behalf of its client
// (`Motu-Account: mer_…`). Every route the merchant API registers is in this table (test/agencies.test.ts derives the
// list from the registered routes): `ON_BEHALF_REFUSED` for the routes that make no sense on behalf (the agency's
// own routes, the mandates themselves, the browser SDK's); a route missing here is refused on behalf.
import type { Scope } from '../modules/agencies/scopes.js';

export const ON_BEHALF_REFUSED = 'refused' as const;
export type RouteScope = Scope | typeof ON_BEHALF_REFUSED;

export const ROUTE_SCOPES: Readonly<Record<string, RouteScope>> = {
  // Payments, sessions and links; refunds
  'POST /api/v1/payments/sessions': 'payments.write',
  'GET /api/v1/payments/sessions/{id}': 'payments.read',
  'POST /api/v1/payments/links': 'payments.write',
  'GET /api/v1/payments': 'payments.read',
  'POST /api/v1/payments': 'payments.write',
  'GET /api/v1/payments/{id}': 'payments.read',
  'POST /api/v1/payments/{id}/capture': 'payments.write',
  'POST /api/v1/payments/{id}/cancel': 'payments.write',
  'POST /api/v1/payments/{id}/refund': 'refunds.write',
  'GET /api/v1/payments/{id}/refunds': 'payments.read',
  // Disputes are read with the payments, answered with them
  'GET /api/v1/disputes': 'payments.read',
  'GET /api/v1/disputes/{id}': 'payments.read',
  'POST /api/v1/disputes/{id}/evidence': 'payments.write',
  'POST /api/v1/disputes/{id}/accept': 'payments.write',
  // Customers and their payment methods
  'POST /api/v1/customers': 'customers.write',
  'GET /api/v1/customers': 'customers.read',
  'GET /api/v1/customers/{id}': 'customers.read',
  'PATCH /api/v1/customers/{id}': 'customers.write',
  'GET /api/v1/customers/{id}/payment-methods': 'customers.read',
  'GET /api/v1/payment-methods/{id}': 'customers.read',
  'DELETE /api/v1/payment-methods/{id}': 'customers.write',
  'POST /api/v1/customers/{id}/sessions': 'customers.write',
  'POST /api/v1/customers/{id}/card-links': 'customers.write',
  'GET /api/v1/card-links/{id}': 'customers.read',
  'POST /api/v1/card-links/{id}/cancel': 'customers.write',
  // Subscriptions: changed with subscriptions.write, read with the payments
  'POST /api/v1/subscriptions': 'subscriptions.write',
  'GET /api/v1/subscriptions': 'payments.read',
  'GET /api/v1/subscriptions/{id}': 'payments.read',
  'PATCH /api/v1/subscriptions/{id}': 'subscriptions.write',
  'POST /api/v1/subscriptions/{id}/cancel': 'subscriptions.write',
  'POST /api/v1/subscriptions/{id}/retry': 'subscriptions.write',
  'GET /api/v1/subscriptions/{id}/due-dates': 'payments.read',
  // Invoices and credit notes, read and written
  'GET /api/v1/billing/settings': 'invoices.write',
  'POST /api/v1/billing/invoices': 'invoices.write',
  'GET /api/v1/billing/invoices': 'invoices.write',
  'GET /api/v1/billing/invoices/{id}': 'invoices.write',
  'PATCH /api/v1/billing/invoices/{id}': 'invoices.write',
  'DELETE /api/v1/billing/invoices/{id}': 'invoices.write',
  'GET /api/v1/billing/invoices/{id}/pdf': 'invoices.write',
  'GET /api/v1/billing/credit-notes': 'invoices.write',
  'GET /api/v1/billing/credit-notes/{id}': 'invoices.write',
  'GET /api/v1/billing/credit-notes/{id}/pdf': 'invoices.write',
  'POST /api/v1/billing/invoices/{id}/finalize': 'invoices.write',
  'POST /api/v1/billing/invoices/{id}/payments': 'invoices.write',
  'POST /api/v1/billing/invoices/{id}/send': 'invoices.write',
  'POST /api/v1/billing/invoices/{id}/mark-uncollectible': 'invoices.write',
  'POST /api/v1/billing/invoices/{id}/credit-notes': 'invoices.write',
  // Webhooks: endpoints, the signing secret, events, their deliveries, resend and the stream
  'GET /api/v1/webhooks/signing-secret': 'webhooks.manage',
  'POST /api/v1/webhooks/signing-secret/rotate': 'webhooks.manage',
  'POST /api/v1/webhook-endpoints': 'webhooks.manage',
  'GET /api/v1/webhook-endpoints': 'webhooks.manage',
  'GET /api/v1/webhook-endpoints/{id}': 'webhooks.manage',
  'PATCH /api/v1/webhook-endpoints/{id}': 'webhooks.manage',
  'DELETE /api/v1/webhook-endpoints/{id}': 'webhooks.manage',
  'GET /api/v1/events': 'webhooks.manage',
  'GET /api/v1/events/{id}': 'webhooks.manage',
  'GET /api/v1/events/{id}/deliveries': 'webhooks.manage',
  'POST /api/v1/events/{id}/resend': 'webhooks.manage',
  'GET /api/v1/events/stream': 'webhooks.manage',
  // Balance; bank accounts and payouts
  'GET /api/v1/balance': 'balance.read',
  'GET /api/v1/balance-transactions': 'balance.read',
  'GET /api/v1/balance-transactions/{id}': 'balance.read',
  'POST /api/v1/bank-accounts': 'payouts.write',
  'GET /api/v1/bank-accounts': 'payouts.write',
  'GET /api/v1/bank-accounts/{id}': 'payouts.write',
  'PATCH /api/v1/bank-accounts/{id}': 'payouts.write',
  'DELETE /api/v1/bank-accounts/{id}': 'payouts.write',
  'GET /api/v1/payout-schedule': 'payouts.write',
  'PATCH /api/v1/payout-schedule': 'payouts.write',
  'POST /api/v1/payouts': 'payouts.write',
  'GET /api/v1/payouts': 'payouts.write',
  'GET /api/v1/payouts/{id}': 'payouts.write',
  'GET /api/v1/payouts/{id}/transactions': 'payouts.write',
  'POST /api/v1/payouts/{id}/cancel': 'payouts.write',
  // Test helpers, under the scope of what they simulate
  'POST /api/v1/test-helpers/payment-methods/{id}/invalidate': 'customers.write',
  'POST /api/v1/test-helpers/payments/{id}/dispute': 'payments.write',
  'POST /api/v1/test-helpers/test-clocks': 'subscriptions.write',
  'GET /api/v1/test-helpers/test-clocks': 'subscriptions.write',
  'GET /api/v1/test-helpers/test-clocks/{id}': 'subscriptions.write',
  'POST /api/v1/test-helpers/test-clocks/{id}/advance': 'subscriptions.write',
  // Not on behalf: the agency's own routes, the mandates (the client's and the agency's), the browser SDK's (whose
  // session id is the credential)
  'POST /api/v1/agency/webhooks': ON_BEHALF_REFUSED,
  'POST /api/v1/agency/invitations': ON_BEHALF_REFUSED,
  'GET /api/v1/agency/invitations': ON_BEHALF_REFUSED,
  'GET /api/v1/agency/invitations/{id}': ON_BEHALF_REFUSED,
  'POST /api/v1/agency/invitations/{id}/cancel': ON_BEHALF_REFUSED,
  'GET /api/v1/agency/mandates': ON_BEHALF_REFUSED,
  'POST /api/v1/agency-invitations/{token}/accept': ON_BEHALF_REFUSED,
  'GET /api/v1/agency-mandates': ON_BEHALF_REFUSED,
  'PATCH /api/v1/agency-mandates/{id}': ON_BEHALF_REFUSED,
  'POST /api/v1/agency-mandates/{id}/transfer': ON_BEHALF_REFUSED,
  'POST /api/v1/agency-mandates/{id}/revoke': ON_BEHALF_REFUSED,
  'GET /api/v1/sdk/sessions/{id}': ON_BEHALF_REFUSED,
  'POST /api/v1/sdk/sessions/{id}/submit': ON_BEHALF_REFUSED,
  'POST /api/v1/sdk/sessions/{id}/widget': ON_BEHALF_REFUSED,
  'GET /api/v1/sdk/sessions/{id}/3ds-return': ON_BEHALF_REFUSED,
  'OPTIONS /api/v1/sdk/*': ON_BEHALF_REFUSED,
  // A platform's own routes (its sellers and their onboarding): never on behalf of a client
  'POST /api/v1/platform/onboarding-sessions': ON_BEHALF_REFUSED,
  'GET /api/v1/platform/onboarding-sessions': ON_BEHALF_REFUSED,
  'GET /api/v1/platform/onboarding-sessions/{id}': ON_BEHALF_REFUSED,
  'POST /api/v1/platform/onboarding-sessions/{id}/cancel': ON_BEHALF_REFUSED,
  'GET /api/v1/platform/onboarding-cases': ON_BEHALF_REFUSED,
  'GET /api/v1/platform/onboarding-cases/{id}': ON_BEHALF_REFUSED,
  'GET /api/v1/platform/merchants': ON_BEHALF_REFUSED,
  'GET /api/v1/platform/merchants/{id}': ON_BEHALF_REFUSED,
  'POST /api/v1/platform/merchants/{id}/unlink': ON_BEHALF_REFUSED,
};

/** The table's key of a route as Fastify registers it (`/api/v1/payments/:id` → `/api/v1/payments/{id}`). */
export function routeKey(method: string, url: string): string {
  return `${method} ${url.replace(/:([A-Za-z]+)/g, '{$1}')}`;
}
