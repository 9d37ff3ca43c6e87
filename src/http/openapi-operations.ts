// One row per documented operation, keyed by method and path as the OpenAPI document writes them: the operationId a
// generated client names its method after (camelCase, stable: renaming one breaks every client), the tag that groups
// it, and the error statuses the route answers beyond those every route of its kind answers (openapi.ts,
// errorStatuses). Summaries stay with the routes. test/openapi.test.ts fails on a route missing here and on a row
// left behind by a removed route.

export type Tag =
  | 'Payments' | 'Refunds' | 'Customers' | 'Wallet' | 'Webhooks' | 'Events' | 'Balance' | 'Bank accounts' | 'Payouts'
  | 'Disputes' | 'Subscriptions' | 'Billing' | 'Test helpers' | 'Browser SDK'
  | 'Merchants' | 'Users' | 'Money operations'
  | 'Platforms'
  | 'Agencies';

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 422 | 429 | 503;

export interface OperationDoc {
  readonly id: string;
  readonly tag: Tag;
  /** Statuses this route answers beyond its kind's (a 404 for an id in the body, a 422 for a business rule…). */
  readonly errors?: readonly ErrorStatus[];
}

export const OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  // Payments
  'POST /api/v1/payments/sessions': { id: 'createPaymentSession', tag: 'Payments', errors: [404, 422, 503] },
  'GET /api/v1/payments/sessions/{id}': { id: 'getPaymentSession', tag: 'Payments' },
  'POST /api/v1/payments/links': { id: 'createPaymentLink', tag: 'Payments', errors: [404, 422, 503] },
  'GET /api/v1/payments': { id: 'listPayments', tag: 'Payments' },
  'POST /api/v1/payments': { id: 'chargeSavedCard', tag: 'Payments', errors: [404, 422, 503] },
  'GET /api/v1/payments/{id}': { id: 'getPayment', tag: 'Payments' },
  'POST /api/v1/payments/{id}/capture': { id: 'capturePayment', tag: 'Payments', errors: [422, 503] },
  'POST /api/v1/payments/{id}/cancel': { id: 'cancelPayment', tag: 'Payments', errors: [422, 503] },
  // Refunds
  'POST /api/v1/payments/{id}/refund': { id: 'refundPayment', tag: 'Refunds', errors: [422, 503] },
  'GET /api/v1/payments/{id}/refunds': { id: 'listPaymentRefunds', tag: 'Refunds' },
  // Customers
  'POST /api/v1/customers': { id: 'createCustomer', tag: 'Customers', errors: [404, 422] },
  'GET /api/v1/customers': { id: 'listCustomers', tag: 'Customers' },
  'GET /api/v1/customers/{id}': { id: 'getCustomer', tag: 'Customers' },
  'PATCH /api/v1/customers/{id}': { id: 'updateCustomer', tag: 'Customers', errors: [409] },
  // Wallet
  'GET /api/v1/customers/{id}/payment-methods': { id: 'listCustomerPaymentMethods', tag: 'Wallet' },
  'GET /api/v1/payment-methods/{id}': { id: 'getPaymentMethod', tag: 'Wallet' },
  'DELETE /api/v1/payment-methods/{id}': { id: 'deletePaymentMethod', tag: 'Wallet', errors: [422] },
  'POST /api/v1/customers/{id}/sessions': { id: 'createWalletSession', tag: 'Wallet', errors: [422, 503] },
  'POST /api/v1/customers/{id}/card-links': { id: 'createCardLink', tag: 'Wallet', errors: [422, 503] },
  'GET /api/v1/card-links/{id}': { id: 'getCardLink', tag: 'Wallet' },
  'POST /api/v1/card-links/{id}/cancel': { id: 'cancelCardLink', tag: 'Wallet', errors: [422] },
  // Webhooks
  'GET /api/v1/webhooks/signing-secret': { id: 'getWebhookSigningSecret', tag: 'Webhooks' },
  'POST /api/v1/webhooks/signing-secret/rotate': { id: 'rotateWebhookSigningSecret', tag: 'Webhooks' },
  'POST /api/v1/webhook-endpoints': { id: 'createWebhookEndpoint', tag: 'Webhooks', errors: [422] },
  'GET /api/v1/webhook-endpoints': { id: 'listWebhookEndpoints', tag: 'Webhooks' },
  'GET /api/v1/webhook-endpoints/{id}': { id: 'getWebhookEndpoint', tag: 'Webhooks' },
  'PATCH /api/v1/webhook-endpoints/{id}': { id: 'updateWebhookEndpoint', tag: 'Webhooks', errors: [422] },
  'DELETE /api/v1/webhook-endpoints/{id}': { id: 'deleteWebhookEndpoint', tag: 'Webhooks' },
  'POST /api/v1/agency/webhooks': { id: 'createAgencyWebhook', tag: 'Webhooks', errors: [422] },
  // Agencies: invitations, the portfolio, and mandates as the client sees them
  'POST /api/v1/agency/invitations': { id: 'createAgencyInvitation', tag: 'Agencies' },
  'GET /api/v1/agency/invitations': { id: 'listAgencyInvitations', tag: 'Agencies' },
  'GET /api/v1/agency/invitations/{id}': { id: 'getAgencyInvitation', tag: 'Agencies' },
  'POST /api/v1/agency/invitations/{id}/cancel': { id: 'cancelAgencyInvitation', tag: 'Agencies', errors: [422] },
  'GET /api/v1/agency/mandates': { id: 'listAgencyPortfolio', tag: 'Agencies' },
  'POST /api/v1/agency-invitations/{token}/accept': { id: 'acceptAgencyInvitation', tag: 'Agencies', errors: [410, 422] },
  'GET /api/v1/agency-mandates': { id: 'listAgencyMandates', tag: 'Agencies' },
  'PATCH /api/v1/agency-mandates/{id}': { id: 'updateAgencyMandate', tag: 'Agencies' },
  'POST /api/v1/agency-mandates/{id}/transfer': { id: 'transferAgencyMandate', tag: 'Agencies' },
  'POST /api/v1/agency-mandates/{id}/revoke': { id: 'revokeAgencyMandate', tag: 'Agencies' },
  // Events
  'GET /api/v1/events': { id: 'listEvents', tag: 'Events' },
  'GET /api/v1/events/{id}': { id: 'getEvent', tag: 'Events' },
  'GET /api/v1/events/{id}/deliveries': { id: 'listEventDeliveries', tag: 'Events' },
  'POST /api/v1/events/{id}/resend': { id: 'resendEvent', tag: 'Events', errors: [422] },
  'GET /api/v1/events/stream': { id: 'streamEvents', tag: 'Events' },
  // Balance, bank accounts, payouts
  'GET /api/v1/balance': { id: 'getBalance', tag: 'Balance' },
  'GET /api/v1/balance-transactions': { id: 'listBalanceTransactions', tag: 'Balance' },
  'GET /api/v1/balance-transactions/{id}': { id: 'getBalanceTransaction', tag: 'Balance' },
  'POST /api/v1/bank-accounts': { id: 'createBankAccount', tag: 'Bank accounts', errors: [422] },
  'GET /api/v1/bank-accounts': { id: 'listBankAccounts', tag: 'Bank accounts' },
  'GET /api/v1/bank-accounts/{id}': { id: 'getBankAccount', tag: 'Bank accounts' },
  'PATCH /api/v1/bank-accounts/{id}': { id: 'updateBankAccount', tag: 'Bank accounts', errors: [422] },
  'DELETE /api/v1/bank-accounts/{id}': { id: 'deleteBankAccount', tag: 'Bank accounts', errors: [422] },
  'GET /api/v1/payout-schedule': { id: 'getPayoutSchedule', tag: 'Payouts' },
  'PATCH /api/v1/payout-schedule': { id: 'updatePayoutSchedule', tag: 'Payouts', errors: [422] },
  'POST /api/v1/payouts': { id: 'createPayout', tag: 'Payouts', errors: [404, 422] },
  'GET /api/v1/payouts': { id: 'listPayouts', tag: 'Payouts' },
  'GET /api/v1/payouts/{id}': { id: 'getPayout', tag: 'Payouts' },
  'GET /api/v1/payouts/{id}/transactions': { id: 'listPayoutTransactions', tag: 'Payouts' },
  'POST /api/v1/payouts/{id}/cancel': { id: 'cancelPayout', tag: 'Payouts', errors: [422] },
  // Disputes
  'GET /api/v1/disputes': { id: 'listDisputes', tag: 'Disputes' },
  'GET /api/v1/disputes/{id}': { id: 'getDispute', tag: 'Disputes' },
  'POST /api/v1/disputes/{id}/evidence': { id: 'submitDisputeEvidence', tag: 'Disputes', errors: [422] },
  'POST /api/v1/disputes/{id}/accept': { id: 'acceptDispute', tag: 'Disputes', errors: [422] },
  // Subscriptions
  'POST /api/v1/subscriptions': { id: 'createSubscription', tag: 'Subscriptions', errors: [404, 422] },
  'GET /api/v1/subscriptions': { id: 'listSubscriptions', tag: 'Subscriptions' },
  'GET /api/v1/subscriptions/{id}': { id: 'getSubscription', tag: 'Subscriptions' },
  'PATCH /api/v1/subscriptions/{id}': { id: 'updateSubscription', tag: 'Subscriptions', errors: [422] },
  'POST /api/v1/subscriptions/{id}/cancel': { id: 'cancelSubscription', tag: 'Subscriptions', errors: [422] },
  'POST /api/v1/subscriptions/{id}/retry': { id: 'retrySubscription', tag: 'Subscriptions', errors: [422] },
  'GET /api/v1/subscriptions/{id}/due-dates': { id: 'listSubscriptionDueDates', tag: 'Subscriptions' },
  // Billing
  'GET /api/v1/billing/settings': { id: 'getBillingSettings', tag: 'Billing' },
  'POST /api/v1/billing/invoices': { id: 'createInvoice', tag: 'Billing', errors: [404, 422] },
  'GET /api/v1/billing/invoices': { id: 'listInvoices', tag: 'Billing' },
  'GET /api/v1/billing/invoices/{id}': { id: 'getInvoice', tag: 'Billing' },
  'PATCH /api/v1/billing/invoices/{id}': { id: 'updateInvoice', tag: 'Billing', errors: [422] },
  'DELETE /api/v1/billing/invoices/{id}': { id: 'deleteInvoice', tag: 'Billing', errors: [422] },
  'GET /api/v1/billing/invoices/{id}/pdf': { id: 'getInvoicePdf', tag: 'Billing' },
  'GET /api/v1/billing/credit-notes': { id: 'listCreditNotes', tag: 'Billing' },
  'GET /api/v1/billing/credit-notes/{id}': { id: 'getCreditNote', tag: 'Billing' },
  'GET /api/v1/billing/credit-notes/{id}/pdf': { id: 'getCreditNotePdf', tag: 'Billing' },
  'POST /api/v1/billing/invoices/{id}/finalize': { id: 'finalizeInvoice', tag: 'Billing', errors: [422] },
  'POST /api/v1/billing/invoices/{id}/payments': { id: 'recordInvoicePayment', tag: 'Billing', errors: [422] },
  'POST /api/v1/billing/invoices/{id}/send': { id: 'sendInvoice', tag: 'Billing', errors: [422] },
  'POST /api/v1/billing/invoices/{id}/mark-uncollectible': { id: 'markInvoiceUncollectible', tag: 'Billing', errors: [422] },
  'POST /api/v1/billing/invoices/{id}/credit-notes': { id: 'createCreditNote', tag: 'Billing', errors: [422, 503] },
  // Test helpers (test keys only)
  'POST /api/v1/test-helpers/payment-methods/{id}/invalidate': { id: 'invalidatePaymentMethod', tag: 'Test helpers', errors: [422] },
  'POST /api/v1/test-helpers/test-clocks': { id: 'createTestClock', tag: 'Test helpers' },
  'GET /api/v1/test-helpers/test-clocks': { id: 'listTestClocks', tag: 'Test helpers' },
  'GET /api/v1/test-helpers/test-clocks/{id}': { id: 'getTestClock', tag: 'Test helpers' },
  'POST /api/v1/test-helpers/test-clocks/{id}/advance': { id: 'advanceTestClock', tag: 'Test helpers', errors: [422] },
  'POST /api/v1/test-helpers/payments/{id}/dispute': { id: 'disputeTestPayment', tag: 'Test helpers', errors: [422] },
  // The browser SDK's own calls (the session id is the credential)
  'GET /api/v1/sdk/sessions/{id}': { id: 'getSdkSession', tag: 'Browser SDK' },
  'POST /api/v1/sdk/sessions/{id}/submit': { id: 'submitSdkCard', tag: 'Browser SDK', errors: [422, 503] },
  'POST /api/v1/sdk/sessions/{id}/widget': { id: 'startSdkWidget', tag: 'Browser SDK', errors: [422, 503] },
  // Platforms (marketplaces): a merchant's key without the platform flag is 403
  'POST /api/v1/platform/onboarding-sessions': { id: 'createOnboardingSession', tag: 'Platforms', errors: [404, 409] },
  'GET /api/v1/platform/onboarding-sessions/{id}': { id: 'getOnboardingSession', tag: 'Platforms' },
  'POST /api/v1/platform/onboarding-sessions/{id}/cancel': { id: 'cancelOnboardingSession', tag: 'Platforms', errors: [409] },
  'GET /api/v1/platform/onboarding-cases/{id}': { id: 'getOnboardingCase', tag: 'Platforms' },
  'GET /api/v1/platform/merchants': { id: 'listPlatformMerchants', tag: 'Platforms' },
  'GET /api/v1/platform/merchants/{id}': { id: 'getPlatformMerchant', tag: 'Platforms' },
  'POST /api/v1/platform/merchants/{id}/unlink': { id: 'unlinkPlatformMerchant', tag: 'Platforms' },
  'GET /api/v1/platform/onboarding-sessions': { id: 'listOnboardingSessions', tag: 'Platforms' },
  'GET /api/v1/platform/onboarding-cases': { id: 'listOnboardingCases', tag: 'Platforms' },

  // ---------- the admin document (/admin/v1, the operator's token) ----------
  'POST /admin/v1/merchants': { id: 'createMerchant', tag: 'Merchants' },
  'GET /admin/v1/merchants': { id: 'listMerchants', tag: 'Merchants' },
  'GET /admin/v1/merchants/{id}': { id: 'getMerchant', tag: 'Merchants' },
  'PATCH /admin/v1/merchants/{id}': { id: 'updateMerchant', tag: 'Merchants' },
  'PUT /admin/v1/merchants/{id}/logo': { id: 'setMerchantLogo', tag: 'Merchants' },
  'DELETE /admin/v1/merchants/{id}/logo': { id: 'removeMerchantLogo', tag: 'Merchants' },
  'POST /admin/v1/merchants/{id}/contracts': { id: 'createContract', tag: 'Merchants', errors: [422] },
  'PATCH /admin/v1/contracts/{id}': { id: 'updateContract', tag: 'Merchants', errors: [422] },
  'POST /admin/v1/merchants/{id}/stores': { id: 'createStore', tag: 'Merchants', errors: [409] },
  'PATCH /admin/v1/stores/{id}': { id: 'updateStore', tag: 'Merchants' },
  'POST /admin/v1/merchants/{id}/keys': { id: 'createApiKey', tag: 'Merchants' },
  'DELETE /admin/v1/keys/{id}': { id: 'revokeApiKey', tag: 'Merchants' },
  'POST /admin/v1/merchants/{id}/users': { id: 'createUser', tag: 'Users', errors: [409] },
  'GET /admin/v1/merchants/{id}/users': { id: 'listUsers', tag: 'Users' },
  'GET /admin/v1/merchants/{id}/mandates': { id: 'listMerchantMandates', tag: 'Merchants' },
  'POST /admin/v1/merchants/{id}/adjustments': { id: 'createBalanceAdjustment', tag: 'Money operations' },
  'GET /admin/v1/payouts/transfers.xml': { id: 'getSepaTransferFile', tag: 'Money operations', errors: [503] },
  'GET /admin/v1/payouts/transfers.csv': { id: 'getXpfTransferFile', tag: 'Money operations' },
  'POST /admin/v1/payouts/camt054': { id: 'recordBankStatement', tag: 'Money operations' },
  'POST /admin/v1/payouts/{id}/paid': { id: 'markPayoutPaid', tag: 'Money operations', errors: [422] },
  'POST /admin/v1/payouts/{id}/failed': { id: 'markPayoutFailed', tag: 'Money operations', errors: [422] },
  'POST /admin/v1/payments/{id}/disputes': { id: 'openDispute', tag: 'Money operations', errors: [422] },
  'POST /admin/v1/disputes/{id}/close': { id: 'closeDispute', tag: 'Money operations', errors: [422] },
  'GET /admin/v1/onboarding-cases': { id: 'listOnboardingCasesInReview', tag: 'Platforms' },
  'POST /admin/v1/onboarding-cases/{id}/decision': { id: 'decideOnboardingCase', tag: 'Platforms', errors: [409] },
};

/** The tags of each document, in the order a reader meets them, with what a section is about. */
export const MERCHANT_TAGS: ReadonlyArray<{ name: Tag; description: string }> = [
  { name: 'Payments', description: 'Payment sessions (hosted checkout and the card component), payment links, charges of a saved card, capture and cancel.' },
  { name: 'Refunds', description: 'Full or partial refunds of a captured payment, in its original currency.' },
  { name: 'Customers', description: 'The people who pay: their contact details, external ids and metadata.' },
  { name: 'Wallet', description: "A customer's saved cards, and the sessions and links that register one at zero amount." },
  { name: 'Webhooks', description: 'Where events are delivered, and the secret that signs them (see the webhooks section for every payload).' },
  { name: 'Events', description: 'Every state change as an event: read them, follow their deliveries, send them again.' },
  { name: 'Balance', description: 'What the merchant holds per currency, and every movement of it.' },
  { name: 'Bank accounts', description: 'Where payouts go; the IBAN is never returned.' },
  { name: 'Payouts', description: 'Transfers of the available balance to a bank account, by hand or on a schedule.' },
  { name: 'Disputes', description: 'Chargebacks and inquiries on a payment, and the evidence answering them.' },
  { name: 'Subscriptions', description: "Charges of a customer's saved card on due dates, with retries." },
  { name: 'Billing', description: 'Invoices and credit notes with legal numbering, their PDF and hosted page.' },
  { name: 'Test helpers', description: 'Test mode only: clocks that move time forward, and what a cardholder or an acquirer would do.' },
  { name: 'Browser SDK', description: "Calls the browser SDK makes from the customer's page; the session id is the credential, no key is sent." },
  { name: 'Platforms', description: 'Marketplaces: onboarding sellers through a hosted form, their cases and the sellers linked to you (a platform key only).' },
  { name: 'Agencies', description: 'An agency invites clients, acts for them under mandates (its key and `Motu-Account: mer_…`); the client changes, transfers or revokes them.' },
];

export const ADMIN_TAGS: ReadonlyArray<{ name: Tag; description: string }> = [
  { name: 'Merchants', description: 'Merchants, their contracts, stores and API keys.' },
  { name: 'Users', description: 'Back-office users of a merchant.' },
  { name: 'Money operations', description: 'Balance adjustments, bank transfer files and statements, disputes reported by the bank.' },
  { name: 'Platforms', description: "Review of marketplaces' onboarding cases." },
];

/**
 * What a merchant operation an agency may call for its client (`Motu-Account: mer_…`, src/http/agency-scopes.ts)
 * answers beyond its own: 400 for a malformed header, 403 PERMISSION_DENIED (a scope the mandate lacks,
 * `details.scope`) or MANDATE_REVOKED, 404 when the agency has no mandate on that account.
 */
export const ON_BEHALF_ERRORS: readonly ErrorStatus[] = [400, 403, 404];
