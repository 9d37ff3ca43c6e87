// Example values of the OpenAPI documents, by property name: what a real answer of Motu holds (ids in Motu's format,
// amounts in minor units, ISO 8601 times), never a placeholder. test/openapi.test.ts fails on a field without one.

/** 22 base62 characters after each prefix, as newId() draws them (src/shared/ids.ts). */
const ID_TAILS = ['4kQ7mZ2xR9tLbV3nC8wYhJ', '7Hq2LmVx9TzR4bNc8KpW3d', '2bN8sKe5TqLm9XvR3cWz7P', '9wPc3RtY6mKq2LxV8bNh4Z'];

export function exampleId(prefix: string, variant = 0): string {
  let hash = variant;
  for (const char of prefix) hash += char.charCodeAt(0);
  return `${prefix}_${ID_TAILS[hash % ID_TAILS.length]}`;
}

const AT = '2026-03-14T09:26:53.000Z';
const LATER = '2026-03-14T09:41:12.000Z';
const DAY = '2026-03-16';

export const EXAMPLES: Readonly<Record<string, unknown>> = {
  // ids
  paymentId: exampleId('pay'), sessionId: exampleId('ses'), customerId: exampleId('cus'), paymentMethodId: exampleId('pm'),
  storeId: exampleId('sto'), merchantConfigId: exampleId('mcf'), contractId: exampleId('mcf'), linkId: exampleId('lnk'),
  eventId: exampleId('whe'), endpointId: exampleId('we'), subscriptionId: exampleId('sub'), invoiceId: exampleId('inv'),
  payoutId: exampleId('po'), bankAccountId: exampleId('ba'), recipientId: exampleId('ba'), testClockId: exampleId('clk'),
  startingAfter: exampleId('pay'), refundId: exampleId('re'), disputeId: exampleId('dp'), merchantId: exampleId('mer'),
  defaultContractId: exampleId('mcf'),
  // money
  amount: 4500, amountCents: 4500, amountEur: 4500, originalAmount: 4500, authorizedAmount: 4500, capturedAmount: 4500,
  refundedAmount: 0, disputedAmount: 0, amountPaid: 0, amountRemaining: 12000, amountCredited: 0, subtotal: 10000, total: 12000,
  base: 10000, taxAmount: 750, unitPrice: 1500, discount: 0, fee: 0, fixedFee: 25, authorizationFee: 5, disputeFee: 1500,
  amountMin: 1000, amountMax: 50000, currency: 'EUR', originalCurrency: 'EUR',
  // rates (basis points) and counts
  commissionRate: 250, taxRate: 1600, rate: 1600, value: 1600, quantity: 3, limit: 20, attempt: 1, attemptCount: 1,
  cardAttempts: 1, cardAttemptsLeft: 2, intervalCount: 1, endAfter: 12, daysUntilDue: 30, delayDays: 2, monthlyAnchor: 1,
  dueDatesOpened: 3, expiresIn: 86400, latencyMs: 182, statusCode: 200, lastStatusCode: 200, expMonth: 9, expYear: 2028,
  retrySchedule: [3, 5, 7],
  // times
  createdAt: AT, updatedAt: LATER, expiresAt: '2026-03-15T09:26:53.000Z', authorizedAt: AT, capturedAt: LATER, settledAt: '2026-03-16T06:00:00.000Z',
  cancelledAt: LATER, revokedAt: LATER, lastSignInAt: LATER, closedAt: LATER, disabledAt: LATER, finalizedAt: AT, paidAt: LATER, sentAt: LATER, at: LATER,
  nextAttemptAt: '2026-03-14T09:27:23.000Z', previousSecretValidUntil: '2026-03-15T09:26:53.000Z', evidenceDueBy: '2026-04-13T09:26:53.000Z',
  evidenceSubmittedAt: '2026-03-20T15:02:11.000Z', frozenTime: '2027-01-31T12:00:00.000Z', advancingTo: '2027-02-28T12:00:00.000Z',
  startDate: '2026-04-01T00:00:00.000Z', dueDate: '2026-04-01T00:00:00.000Z', nextDueDate: '2026-05-01T00:00:00.000Z',
  cancelAt: '2026-12-31T23:59:59.000Z', createdFrom: '2026-03-01T00:00:00.000Z', createdTo: '2026-03-31T23:59:59.000Z',
  availableOn: '2026-03-16T00:00:00.000Z', arrivalDate: DAY, nextRunOn: DAY,
  // platforms (marketplaces)
  openedAt: AT, caseId: exampleId('obc'), platformId: exampleId('mer', 1), businessName: 'Vanille Tahaa', refreshUrl: 'https://marketplace.example/sellers/refresh',
  linkedAt: LATER, unlinkedAt: LATER, completedAt: LATER, decidedAt: LATER, submissions: 1, reasons: ['The registration number is unreadable'],
  // people and places
  email: 'hina.teriitahi@example.pf', customerEmail: 'hina.teriitahi@example.pf', name: 'Hina Teriitahi', firstName: 'Hina',
  lastName: 'Teriitahi', holderName: 'Fare Ute Boutique SARL', phone: '+689 87 12 34 56', streetNumber: '12', street: 'Rue du Général de Gaulle',
  line1: '12 rue du Général de Gaulle', line2: 'Immeuble Taina, 2e étage', complement: 'Immeuble Taina', city: 'Papeete', postalCode: '98714',
  country: 'PF', label: 'Home', legalName: 'Fare Ute Boutique SARL', displayName: 'Fare Ute Boutique', registrationNumber: 'C12345',
  taxId: 'TAHITI C12345', timezone: 'Pacific/Tahiti', locale: 'fr', languageCode: 'fr',
  invoiceFooter: 'Virement : IBAN FR76 3000 6000 0112 3456 7890 189 · Māuruuru roa !', latePaymentTerms: "trois fois le taux d'intérêt légal",
  earlyPaymentDiscount: '2 % pour un paiement sous 8 jours',
  // references and text
  externalId: 'crm-000451', reference: 'SPR-7Q3KX2M9TBZ4WD6A', orderReference: 'ORDER-2026-0042', number: 'F-2026-000042',
  code: 'papeete-shop', product: 'Monoï de Tahiti 100 ml', description: 'Monthly box of Tahitian vanilla',
  productDescription: 'Monoï de Tahiti 100 ml, shipped 2026-03-02', memo: 'Thank you for your order', note: 'Bank transfer received on 2026-03-20',
  reason: 'Customer returned the item', failureReason: 'account_closed', failureMessage: 'The beneficiary account is closed',
  refusalCode: 'do_not_honor', refusalMessage: 'The card issuer declined the payment', disabledReason: 'Five deliveries failed in a row',
  statementLabel: 'FARE UTE PAPEETE', contractNumber: '1234567', pointOfSaleReference: 'POS-PAPEETE-01', accessKey: 'monext-access-key',
  customerCommunication: 'Email of 2026-03-03 confirming delivery', refundPolicy: 'Returns accepted within 14 days',
  shippingTracking: 'LP123456789PF', uncategorizedText: 'Signed delivery receipt attached', error: 'connect ECONNREFUSED', lastError: 'HTTP 500',
  response: '{"received":true}', contentHash: '9f2c4e1b7a0d3c5e8f6a2b4d1c7e9a0b3d5f7e2c4a6b8d0e1f3a5c7e9b2d4f6a',
  fingerprint: 'c2b8a1f4e9d07365', field: 'legalName', shippingMethod: 'standard', token: 'tok_4kQ7mZ2xR9tLbV3nC8wYhJ',
  // cards and banking
  brand: 'VISA', cardBrand: 'VISA', network: 'CB', networks: ['CB', 'VISA'], last4: '4242', cardLast4: '4242', iban: 'FR76 3000 6000 0112 3456 7890 189',
  bic: 'BNPAFRPPXXX', endToEndId: 'MOTU-PO-7Hq2LmVx9TzR',
  // URLs and secrets shown once
  url: 'https://shop.example.pf/webhooks/motu', notificationUrl: 'https://shop.example.pf/webhooks/motu',
  redirectUrl: 'https://shop.example.pf/orders/ORDER-2026-0042/thanks', failureRedirectUrl: 'https://shop.example.pf/cart',
  returnUrl: 'https://shop.example.pf/account/cards', checkoutUrl: `https://pay.example.pf/checkout/${exampleId('ses')}`,
  linkUrl: `https://pay.example.pf/checkout/${exampleId('ses')}`, activationUrl: 'https://pay.example.pf/dashboard/settings',
  webhookSecret: 'whsec_3kX9bQ2mT7vL4nR8cW5yZ1pA6dF0hJ2s', testWebhookSecret: 'whsec_3kX9bQ2mT7vL4nR8cW5yZ1pA6dF0hJ2s',
  liveWebhookSecret: 'whsec_8cW5yZ1pA6dF0hJ2s3kX9bQ2mT7vL4nR',
  // API keys: shown once when made; cut here so that no example looks like a key someone could paste
  testSecretKey: 'sk_test_3kX9…hJ2s', liveSecretKey: 'sk_live_8cW5…4nR8', secretKey: 'sk_live_8cW5…4nR8',
  setupUrl: `https://pay.example.pf/dashboard/setup/${exampleId('usr')}.Qm9uam91ciBsZSBtb25kZQ`,
  challengeUrl: `https://pay.example.pf/acquirer/v1/3ds/${exampleId('att')}`,
  scriptUrl: 'https://payment.cdn.payline.com/cdn/scripts/widget-min.js', styleUrl: 'https://payment.cdn.payline.com/cdn/styles/widget-min.css',
  environment: 'production', merchantName: 'Fare Ute Boutique', cardNetwork: 'CB',
  primaryColor: '#0b6e4f', accentColor: '#f4a259', onPrimaryColor: '#ffffff',
  logoUrl: `/branding/logos/${exampleId('mer')}/9f2c4e0b7a1d3c5e8f60b2a4d6c8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3`, image: 'iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAIAAAAlC+aJAAAA…', colorPrimary: '#0b6e4f', colorOnPrimary: '#ffffff',
  // lists and filters
  message: 'No payment with id pay_4kQ7mZ2xR9tLbV3nC8wYhJ', mode: 'Colissimo', date: DAY, since: AT, createdAfter: '2026-03-01T00:00:00.000Z',
  createdBefore: '2026-03-31T23:59:59.000Z', sourceId: exampleId('pay'), type: 'payment.captured',
  events: ['payment.*', 'refund.*'], updatedFields: ['email', 'phone'], paid: [exampleId('po')], q: 'ORDER-2026-0042',
};

/** The same names where a route holds them as text (a decimal amount in a bank statement, a date-time cursor). */
export const TEXT_EXAMPLES: Readonly<Record<string, unknown>> = {
  amount: '45.00', startingAfter: '2026-04-01T00:00:00.000Z',
};

/** Free JSON objects, by property name: what they hold in a real answer. */
export const OBJECT_EXAMPLES: Readonly<Record<string, unknown>> = {
  details: { field: 'order.amount' },
  order: { reference: 'ORDER-2026-0042', amount: 4500, currency: 'EUR', items: [{ product: 'Monoï de Tahiti 100 ml', unitPrice: 1500, quantity: 3 }] },
  privateData: { cartId: 'cart-77', channel: 'web' },
  metadata: { crmSegment: 'gold', newsletter: true },
  platformConfig: { channel: 'odoo', shopId: '42' },
  address: { line1: '12 rue du Général de Gaulle', city: 'Papeete', postalCode: '98714', country: 'PF' },
  settlement: {
    capturedAmount: 4500, mobupayCommission: 131, netAmount: 4369, currency: 'EUR', settled: false,
    detailedFees: [{ id: 'spirit_commission', label: 'Commission Motu', totalAmount: 131, totalAmountEur: 131 }],
  },
  refunds: [{ id: exampleId('re'), object: 'refund', status: 'succeeded', amount: 1500, currency: 'EUR', createdAt: LATER }],
  data: { paymentId: exampleId('pay'), status: 'captured', reference: 'SPR-7Q3KX2M9TBZ4WD6A', amount: 4500, currency: 'EUR' },
  invoicing: { enabled: true, send: true },
};

/** Examples of a field inside a given object (`object.field`). */
export const IN_CONTEXT_EXAMPLES: Readonly<Record<string, unknown>> = {
  'order.reference': 'ORDER-2026-0042', 'store.name': 'Fare Ute Papeete', 'store.code': 'papeete-shop',
  'monext.merchantId': 'MONEXT-0042311',
};
