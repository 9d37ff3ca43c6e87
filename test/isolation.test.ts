// Isolation matrix: no key reads or changes another merchant's objects, the other mode's
// objects, or — for a key attached to a store — the payments of another store (docs/reliability.md, "Isolation").
// Every /api/v1 route that names an object by id is driven by every foreign key; lists must not show the objects.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { eachDatabase, type TestApp } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { createKey, createMerchant, createStore, createCustomer } from './support/factories.js';
import { SCOPES } from '../src/modules/agencies/scopes.js';
import { createSession, paidPayment } from './support/payments.js';
import { saveCard } from './support/wallet.js';
import { rowCounts, tableNames } from './support/tables.js';
import { createUser, signedInUser } from './support/back-office.js';
import { readStream } from './support/stream.js';
import { createOnboardingSession, makeAgency, onboardSeller } from './support/platforms.js';
import { MailOutbox } from '../src/mail/outbox.js';

interface Victim {
  key: string;
  /** The live key of the agency holding a test-mode mandate on the victim. */
  agencyLiveKey: string;
  storeKey: string;
  ids: Record<string, string>;
}

/** Every /api/v1 route with an {id}, the victim object it is aimed at, and a body that would succeed for the owner. */
const BY_ID: Record<string, { target: string; body?: unknown; storeScoped?: boolean }> = {
  'GET /api/v1/customers/{id}': { target: 'customer' },
  'PATCH /api/v1/customers/{id}': { target: 'customer', body: { name: 'Taken over' } },
  'GET /api/v1/payments/sessions/{id}': { target: 'session', storeScoped: true },
  'GET /api/v1/payments/{id}': { target: 'captured', storeScoped: true },
  'POST /api/v1/payments/{id}/capture': { target: 'manual', body: {}, storeScoped: true },
  'POST /api/v1/payments/{id}/cancel': { target: 'manual', body: {}, storeScoped: true },
  'POST /api/v1/payments/{id}/refund': { target: 'captured', body: { amountCents: 100 }, storeScoped: true },
  'GET /api/v1/payments/{id}/refunds': { target: 'captured', storeScoped: true },
  'GET /api/v1/webhook-endpoints/{id}': { target: 'endpoint' },
  'PATCH /api/v1/webhook-endpoints/{id}': { target: 'endpoint', body: { url: 'https://evil.example/x' } },
  'DELETE /api/v1/webhook-endpoints/{id}': { target: 'endpoint' },
  'GET /api/v1/events/{id}': { target: 'event', storeScoped: true },
  'GET /api/v1/balance-transactions/{id}': { target: 'transaction', storeScoped: true },
  'GET /api/v1/bank-accounts/{id}': { target: 'bankAccount' },
  'PATCH /api/v1/bank-accounts/{id}': { target: 'bankAccount', body: { default: true } },
  'DELETE /api/v1/bank-accounts/{id}': { target: 'bankAccount' },
  'GET /api/v1/payouts/{id}': { target: 'payout' },
  'GET /api/v1/payouts/{id}/transactions': { target: 'payout' },
  'POST /api/v1/payouts/{id}/cancel': { target: 'payout', body: {} },
  'GET /api/v1/test-helpers/test-clocks/{id}': { target: 'testClock' },
  'POST /api/v1/test-helpers/test-clocks/{id}/advance': { target: 'testClock', body: { frozenTime: '2031-01-01T00:00:00.000Z' } },
  'GET /api/v1/disputes/{id}': { target: 'dispute', storeScoped: true },
  'GET /api/v1/subscriptions/{id}': { target: 'subscription' },
  'GET /api/v1/billing/invoices/{id}': { target: 'invoice' },
  'GET /api/v1/billing/invoices/{id}/pdf': { target: 'invoice' },
  'GET /api/v1/billing/credit-notes/{id}': { target: 'creditNote' },
  'GET /api/v1/billing/credit-notes/{id}/pdf': { target: 'creditNote' },
  'PATCH /api/v1/billing/invoices/{id}': { target: 'invoice', body: { memo: 'taken' } },
  'DELETE /api/v1/billing/invoices/{id}': { target: 'invoice' },
  'POST /api/v1/billing/invoices/{id}/finalize': { target: 'invoice', body: {} },
  'POST /api/v1/billing/invoices/{id}/payments': { target: 'invoice', body: { amount: 1, method: 'cash' } },
  'POST /api/v1/billing/invoices/{id}/mark-uncollectible': { target: 'invoice', body: {} },
  'POST /api/v1/billing/invoices/{id}/send': { target: 'invoice', body: {} },
  'POST /api/v1/billing/invoices/{id}/credit-notes': { target: 'invoice', body: { reason: 'other' } },
  'PATCH /api/v1/subscriptions/{id}': { target: 'subscription', body: { amount: 1 } },
  'POST /api/v1/subscriptions/{id}/cancel': { target: 'subscription', body: {} },
  'POST /api/v1/subscriptions/{id}/retry': { target: 'subscription', body: {} },
  'GET /api/v1/subscriptions/{id}/due-dates': { target: 'subscription' },
  'POST /api/v1/disputes/{id}/evidence': { target: 'dispute', body: { uncategorizedText: 'x', submit: true }, storeScoped: true },
  'POST /api/v1/disputes/{id}/accept': { target: 'dispute', body: {}, storeScoped: true },
  'POST /api/v1/test-helpers/payments/{id}/dispute': { target: 'captured', body: { amount: 100 }, storeScoped: true },
  'GET /api/v1/events/{id}/deliveries': { target: 'event', storeScoped: true },
  'POST /api/v1/events/{id}/resend': { target: 'event', body: {}, storeScoped: true },
  'GET /api/v1/customers/{id}/payment-methods': { target: 'customer' },
  'GET /api/v1/payment-methods/{id}': { target: 'paymentMethod' },
  'DELETE /api/v1/payment-methods/{id}': { target: 'paymentMethod' },
  'POST /api/v1/test-helpers/payment-methods/{id}/invalidate': { target: 'paymentMethod', body: { reason: 'disabled' } },
  'POST /api/v1/customers/{id}/sessions': { target: 'customer', body: { returnUrl: 'https://evil.example/w' } },
  'POST /api/v1/customers/{id}/card-links': { target: 'customer', body: {} },
  'GET /api/v1/card-links/{id}': { target: 'cardLink' },
  'POST /api/v1/card-links/{id}/cancel': { target: 'cardLink', body: {} },
  'GET /api/v1/platform/onboarding-sessions/{id}': { target: 'onboardingSession' },
  'POST /api/v1/platform/onboarding-sessions/{id}/cancel': { target: 'onboardingSession', body: {} },
  'GET /api/v1/platform/onboarding-cases/{id}': { target: 'onboardingCase' },
  'GET /api/v1/platform/merchants/{id}': { target: 'seller' },
  'POST /api/v1/platform/merchants/{id}/unlink': { target: 'seller', body: {} },
  'GET /api/v1/agency/invitations/{id}': { target: 'agencyInvitation' },
  'POST /api/v1/agency/invitations/{id}/cancel': { target: 'agencyInvitation', body: {} },
  'PATCH /api/v1/agency-mandates/{id}': { target: 'mandate', body: { scopes: ['payments.read'] } },
  'POST /api/v1/agency-mandates/{id}/transfer': { target: 'mandate', body: { agencyId: 'mer_0000000000000000000000' } },
  'POST /api/v1/agency-mandates/{id}/revoke': { target: 'mandate', body: {} },
};
/** Routes with {id} that a secret key does not drive: the SDK routes are authenticated by the session id itself. */
const NOT_KEYED = new Set([
  'GET /api/v1/sdk/sessions/{id}', 'POST /api/v1/sdk/sessions/{id}/submit', 'POST /api/v1/sdk/sessions/{id}/widget',
  'GET /api/v1/sdk/sessions/{id}/3ds-return',
  // The browser's CORS preflight of the SDK routes: no key, no object.
  'OPTIONS /api/v1/sdk/*',
  // An agency's invitation is accepted by whoever holds its link (the token is the credential), with their own key.
  'POST /api/v1/agency-invitations/{token}/accept',
]);

/**
 * Every /api/v1 list or singleton (GET without an id) and the URLs it is read at: a foreign key's answer must show none
 * of the victim's ids or names. The event stream is read over a real socket (its own test).
 */
const LISTS = (ids: Record<string, string>): Record<string, string[]> => ({
  'GET /api/v1/customers': [
    '/api/v1/customers?limit=100', `/api/v1/customers?email=${encodeURIComponent('x')}`,
    // The search: by the victim's customer's id, and by text its email contains.
    `/api/v1/customers?q=${ids.customer}`, `/api/v1/customers?q=${encodeURIComponent('@victim.example')}`, `/api/v1/customers?q=${encodeURIComponent('victim')}`,
    '/api/v1/customers?externalId=victim-ext-1',
  ],
  'GET /api/v1/payments': [`/api/v1/payments?q=${ids.captured}`, `/api/v1/payments?q=${encodeURIComponent('victim')}`, '/api/v1/payments?limit=100', `/api/v1/payments?storeId=${ids.store2}`, '/api/v1/payments?storeId=V-2', `/api/v1/payments?customerId=${ids.customer}`],
  'GET /api/v1/webhook-endpoints': ['/api/v1/webhook-endpoints'],
  'GET /api/v1/events': ['/api/v1/events?limit=100', `/api/v1/events?paymentId=${ids.captured}`],
  'GET /api/v1/balance': ['/api/v1/balance'],
  'GET /api/v1/balance-transactions': ['/api/v1/balance-transactions?limit=100', `/api/v1/balance-transactions?sourceId=${ids.captured}`, `/api/v1/balance-transactions?payoutId=${ids.payout}`],
  'GET /api/v1/bank-accounts': ['/api/v1/bank-accounts?limit=100'],
  'GET /api/v1/payout-schedule': ['/api/v1/payout-schedule'],
  'GET /api/v1/payouts': ['/api/v1/payouts?limit=100'],
  'GET /api/v1/test-helpers/test-clocks': ['/api/v1/test-helpers/test-clocks?limit=100'],
  'GET /api/v1/disputes': ['/api/v1/disputes?limit=100', `/api/v1/disputes?paymentId=${ids.captured}`],
  'GET /api/v1/subscriptions': ['/api/v1/subscriptions?limit=100', `/api/v1/subscriptions?customerId=${ids.customer}`],
  'GET /api/v1/billing/settings': ['/api/v1/billing/settings'],
  'GET /api/v1/billing/invoices': ['/api/v1/billing/invoices?limit=100', `/api/v1/billing/invoices?customerId=${ids.customer}`, `/api/v1/billing/invoices?subscriptionId=${ids.subscription}`],
  'GET /api/v1/billing/credit-notes': ['/api/v1/billing/credit-notes?limit=100', `/api/v1/billing/credit-notes?invoiceId=${ids.invoice}`],
  // The signing secret is compared with the victim's below; the documents are the same for all.
  'GET /api/v1/webhooks/signing-secret': ['/api/v1/webhooks/signing-secret'],
  'GET /api/v1/openapi.json': [],
  'GET /api/v1/events/stream': [],
  'GET /api/v1/platform/merchants': ['/api/v1/platform/merchants?limit=100'],
  'GET /api/v1/agency/invitations': ['/api/v1/agency/invitations?limit=100'],
  'GET /api/v1/agency/mandates': ['/api/v1/agency/mandates?limit=100'],
  'GET /api/v1/agency-mandates': ['/api/v1/agency-mandates?limit=100'],
  'GET /api/v1/platform/onboarding-sessions': ['/api/v1/platform/onboarding-sessions?limit=100'],
  'GET /api/v1/platform/onboarding-cases': ['/api/v1/platform/onboarding-cases?limit=100'],
});

/**
 * Every /api/v1 write without an id (a creation or a setting), with the bodies that name one of the victim's objects:
 * each must be refused to a foreign key, nothing charged or written. An empty list: the route names no other object.
 */
function crossReferences(ids: Record<string, string>): Record<string, unknown[]> {
  const session = { order: { reference: 'X', amount: 500, currency: 'EUR' }, redirectUrl: 'https://evil.example/r', notificationUrl: 'https://evil.example/n' };
  const invoice = { currency: 'XPF', lines: [{ description: 'L', quantity: 1, unitPrice: 1000 }] };
  return {
    'POST /api/v1/payments': [{ paymentMethodId: ids.paymentMethod, order: session.order, notificationUrl: session.notificationUrl }],
    'POST /api/v1/payments/sessions': [{ ...session, customerId: ids.customer }, { ...session, storeId: ids.store2 }, { ...session, merchantConfigId: ids.contract }],
    'POST /api/v1/payments/links': [{ ...session, customerId: ids.customer }],
    'POST /api/v1/customers': [{ email: 'thief@evil.example', testClockId: ids.testClock }],
    'POST /api/v1/subscriptions': [
      { customerId: ids.customer, amount: 1000, currency: 'EUR', interval: 'month' },
      { customerId: ids.customer, paymentMethodId: ids.paymentMethod, amount: 1000, currency: 'EUR', interval: 'month' },
    ],
    'POST /api/v1/billing/invoices': [{ ...invoice, customerId: ids.customer }],
    'POST /api/v1/payouts': [{ currency: 'EUR', amount: 100, bankAccountId: ids.bankAccount }],
    'PATCH /api/v1/payout-schedule': [],
    'POST /api/v1/webhook-endpoints': [],
    'POST /api/v1/agency/webhooks': [],
    'POST /api/v1/agency/invitations': [],
    'POST /api/v1/bank-accounts': [],
    'POST /api/v1/test-helpers/test-clocks': [],
    'POST /api/v1/webhooks/signing-secret/rotate': [],
    'POST /api/v1/platform/onboarding-sessions': [{ email: 'thief@evil.example', returnUrl: 'https://evil.example/r', caseId: ids.onboardingCase }],
  };
}

/**
 * The back-office's routes that name an object, the victim's object each is aimed at, and the query strings it is
 * sent with (every parameter its schema declares appears in one: a user's removal revoking or handing over its keys).
 */
const BACK_OFFICE_BY_ID: Record<string, { target: string; body?: unknown; queries?: string[] }> = {
  'PATCH /dashboard/api/users/{id}': { target: 'user', body: { role: 'analyst' } },
  'DELETE /dashboard/api/users/{id}': { target: 'user', queries: ['', '?keys=hand-over', '?keys=revoke'] },
  'DELETE /dashboard/api/keys/{id}': { target: 'apiKey' },
  'GET /dashboard/api/payments/{id}/timeline': { target: 'captured' },
};
/**
 * The back-office reads whose query string names an object (a parameter ending in Id), and the URLs aimed at the
 * victim's: another merchant's user must see none of it; where `shows` is given, the victim's own user sees it there
 * (the check can fail).
 */
const BACK_OFFICE_READS = (ids: Record<string, string>): Record<string, Array<{ url: string; shows?: string }>> => ({
  'GET /dashboard/api/mails': [
    { url: `/dashboard/api/mails?kind=card_link&subjectId=${ids.cardLink}`, shows: 'payer@victim.example' },
    { url: `/dashboard/api/mails?kind=receipt&subjectId=${ids.captured}`, shows: 'payer@victim.example' },
    { url: `/dashboard/api/mails?kind=invoice&subjectId=${ids.invoice}`, shows: 'payer@victim.example' },
  ],
  'GET /dashboard/api/audit': [{ url: `/dashboard/api/audit?objectId=${ids.user}` }, { url: `/dashboard/api/audit?userId=${ids.user}` }],
});
/** Back-office routes with a parameter that is no merchant's object: the set-up link's token is its own secret. */
const BACK_OFFICE_UNSCOPED = new Set(['GET /dashboard/api/setup/{token}']);

async function victim(t: TestApp): Promise<Victim> {
  const m = await createMerchant(t, 'Victim');
  const s1 = await createStore(t, m.id, { code: 'V-1' });
  const s2 = await createStore(t, m.id, { code: 'V-2' });
  const storeKey = await createKey(t, m.id, { mode: 'test', storeId: s1.id });
  const customer = await createCustomer(t, m.testKey, { email: 'payer@victim.example', name: 'Victim Payer', externalId: 'victim-ext-1' });
  const saved = await saveCard(t, m.testKey, customer);
  const captured = await paidPayment(t, m.testKey, { storeId: s2.id });
  const manual = await paidPayment(t, m.testKey, { storeId: s2.id, captureMode: 'MANUAL' });
  const pending = await createSession(t, m.testKey, { storeId: s2.id });
  const endpoint = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', { url: 'https://shop.example/hooks', events: ['*'] });
  assert.equal(endpoint.status, 201);
  const link = await t.api(m.testKey, 'POST', `/api/v1/customers/${customer}/card-links`, {});
  assert.equal(link.status, 201, JSON.stringify(link.body));
  const events = await t.api(m.testKey, 'GET', `/api/v1/events?paymentId=${captured}&limit=1`);
  assert.equal(events.status, 200);
  const transactions = await t.api(m.testKey, 'GET', `/api/v1/balance-transactions?sourceId=${captured}&limit=1`);
  assert.equal(transactions.body.data.length, 1);
  const bankAccount = await t.api(m.testKey, 'POST', '/api/v1/bank-accounts', { iban: 'DE89370400440532013000', holderName: 'Victim GmbH', currency: 'EUR' });
  assert.equal(bankAccount.status, 201, JSON.stringify(bankAccount.body));
  assert.equal((await t.admin('POST', `/admin/v1/merchants/${m.id}/adjustments`, { mode: 'test', currency: 'EUR', amount: 5000, reason: 'funds' })).status, 201);
  const payout = await t.api(m.testKey, 'POST', '/api/v1/payouts', { currency: 'EUR', amount: 1000 });
  assert.equal(payout.status, 201, JSON.stringify(payout.body));
  const testClock = await t.api(m.testKey, 'POST', '/api/v1/test-helpers/test-clocks', { frozenTime: '2030-01-01T00:00:00.000Z' });
  assert.equal(testClock.status, 201, JSON.stringify(testClock.body));
  const invoice = await t.api(m.testKey, 'POST', '/api/v1/billing/invoices', { customerId: customer, currency: 'XPF', lines: [{ description: 'L', quantity: 1, unitPrice: 1000 }] });
  assert.equal(invoice.status, 201, JSON.stringify(invoice.body));
  assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { legalName: 'Victim SARL', address: { line1: '1 rue', postalCode: '98713', city: 'Papeete', country: 'PF' }, registrationNumber: 'T1' })).status, 200);
  const issued = await t.api(m.testKey, 'POST', '/api/v1/billing/invoices', { customerId: customer, currency: 'XPF', lines: [{ description: 'L', quantity: 1, unitPrice: 1000 }] });
  assert.equal((await t.api(m.testKey, 'POST', `/api/v1/billing/invoices/${issued.body.id}/finalize`)).status, 200);
  const creditNote = await t.api(m.testKey, 'POST', `/api/v1/billing/invoices/${issued.body.id}/credit-notes`, { amount: 10, reason: 'other' });
  assert.equal(creditNote.status, 201, JSON.stringify(creditNote.body));
  const subscription = await t.api(m.testKey, 'POST', '/api/v1/subscriptions', { customerId: customer, amount: 1000, currency: 'EUR', interval: 'month' });
  assert.equal(subscription.status, 201, JSON.stringify(subscription.body));
  const dispute = await t.api(m.testKey, 'POST', `/api/v1/test-helpers/payments/${captured}/dispute`, { amount: 100 });
  assert.equal(dispute.status, 201, JSON.stringify(dispute.body));
  const user = await createUser(t, m.id, 'victim-admin@victim.example', 'admin');
  // The victim is a platform too: a seller onboarded through it, and an onboarding session still open.
  assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { platform: true })).status, 200);
  const seller = await onboardSeller(t, m.testKey, { legalName: 'Victim Seller SARL' });
  const onboarding = await createOnboardingSession(t, m.testKey, { email: 'seller@victim.example' });
  // The mails of the card link, the receipt and the invoice, as the outbox queues them when a mail server is set.
  const outbox = new MailOutbox(t.clock);
  await t.db.transaction(async (trx) => {
    for (const [kind, subjectId] of [['card_link', link.body.id], ['receipt', captured], ['invoice', invoice.body.id]] as const) {
      await outbox.enqueue(trx, { merchantId: m.id, mode: 'test', kind, subjectId, recipient: 'payer@victim.example', locale: 'fr' });
    }
  });
  // Agencies: the victim is an agency with an invitation out, and the client of another agency's mandate (test mode).
  assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { agency: true })).status, 200);
  const agencyInvitation = await t.api(m.testKey, 'POST', '/api/v1/agency/invitations', { email: 'client@victim.example', scopes: ['payments.read'] });
  assert.equal(agencyInvitation.status, 201, JSON.stringify(agencyInvitation.body));
  const itsAgency = await makeAgency(t, 'Victim agency');
  const toVictim = await t.api(itsAgency.testKey, 'POST', '/api/v1/agency/invitations', { email: 'owner@victim.example', scopes: [...SCOPES] });
  const mandate = await t.api(m.testKey, 'POST', `/api/v1/agency-invitations/${String(toVictim.body.url).split('/').at(-1)}/accept`);
  assert.equal(mandate.status, 201, JSON.stringify(mandate.body));
  return {
    key: m.testKey,
    storeKey: storeKey.secretKey,
    agencyLiveKey: itsAgency.liveKey,
    ids: {
      agencyInvitation: agencyInvitation.body.id,
      mandate: mandate.body.id,
      merchant: m.id, contract: m.defaultContractId, store1: s1.id, store2: s2.id, customer,
      paymentMethod: saved.result.paymentMethodId, captured, manual, session: pending.sessionId,
      endpoint: endpoint.body.id, cardLink: link.body.id, event: events.body.data[0].id,
      transaction: transactions.body.data[0].id, bankAccount: bankAccount.body.id, payout: payout.body.id,
      testClock: testClock.body.id,
      dispute: dispute.body.id,
      subscription: subscription.body.id,
      invoice: invoice.body.id,
      creditNote: creditNote.body.id,
      user: user.id,
      apiKey: storeKey.id,
      onboardingSession: onboarding.id,
      onboardingCase: seller.caseId,
      seller: seller.merchantId,
    },
  };
}

/** Names of the victim that only its own keys may read (its bank account holder; its legal name, per merchant). */
const VICTIM_NAMES = { perMode: ['Victim GmbH', 'payer@victim.example'], perMerchant: ['Victim SARL', 'victim-admin@victim.example'] };

/** What the victim's objects look like to their owner: compared before and after the attacks. */
async function snapshot(t: TestApp, v: Victim) {
  const get = async (url: string) => {
    const res = await t.api(v.key, 'GET', url);
    assert.equal(res.status, 200, `${url}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const payment = async (id: string) => {
    const p = await get(`/api/v1/payments/${id}`);
    return { status: p.status, refunds: p.refunds?.length, captured: p.capturedAmount ?? p.amountCaptured };
  };
  return {
    captured: await payment(v.ids.captured!),
    manual: await payment(v.ids.manual!),
    customer: await get(`/api/v1/customers/${v.ids.customer}`),
    paymentMethod: (await get(`/api/v1/payment-methods/${v.ids.paymentMethod}`)).status,
    endpoint: await get(`/api/v1/webhook-endpoints/${v.ids.endpoint}`),
    cardLink: (await get(`/api/v1/card-links/${v.ids.cardLink}`)).status,
    dispute: await get(`/api/v1/disputes/${v.ids.dispute}`),
    subscription: await get(`/api/v1/subscriptions/${v.ids.subscription}`),
    invoice: await get(`/api/v1/billing/invoices/${v.ids.invoice}`),
    disputed: (await get(`/api/v1/payments/${v.ids.captured}`)).disputedAmount,
  };
}

eachDatabase('isolation matrix', (dialect) => {
  const suite = withApp(dialect, { serve: true });
  const { t } = suite;
  let v: Victim;
  /** Who attacks: keys, and another merchant's back-office user (its session cookie and CSRF token). */
  let attackers: Array<{ name: string; key?: string; userId?: string; headers: Record<string, string>; call: (method: string, url: string, body?: unknown) => ReturnType<TestApp['api']> }>;
  let tables: string[];
  let checked = 0;

  before(async () => {
    v = await victim(t);
    const other = await createMerchant(t, 'Intruder');
    // A platform as well, so that its keys reach the platform routes and meet 404 there (not the 403 of a non-platform).
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${other.id}`, { platform: true })).status, 200);
    // An agency too, so that the agency routes (refused to other merchants) answer it as they answer the victim.
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${other.id}`, { agency: true })).status, 200);
    await createStore(t, other.id, { code: 'V-2' }); // same store code as the victim's: codes are per merchant
    const otherStoreKey = await createKey(t, other.id, { mode: 'test' });
    const victimLiveRead = await createKey(t, v.ids.merchant!, { mode: 'live', permission: 'read' });
    const victimMerchant = await t.api(undefined, 'GET', '/healthz');
    assert.equal(victimMerchant.status, 200);
    const live = await createKey(t, v.ids.merchant!, { mode: 'live' });
    const keyed = (name: string, key: string) => ({
      name, key, headers: { authorization: `Bearer ${key}` }, call: (method: string, url: string, body?: unknown) => t.api(key, method, url, body),
    });
    attackers = [
      keyed('another merchant (test key)', other.testKey),
      keyed('another merchant (live key)', other.liveKey),
      keyed('another merchant (second test key)', otherStoreKey.secretKey),
      keyed('same merchant, live mode', (await t.admin('GET', `/admin/v1/merchants/${v.ids.merchant}`)).body.liveSecretKey ?? ''),
      keyed('same merchant, live mode (read key)', victimLiveRead.secretKey),
      keyed('same merchant, live mode (write key)', live.secretKey),
    ].filter((a) => a.key);
    // Agencies with `Motu-Account: <victim>`: one without a mandate, and the victim's own agency with its live key
    // (its mandate is of test mode).
    const agency = await makeAgency(t, 'Intruding agency');
    const asVictim = (name: string, key: string) => ({
      name, key, headers: { authorization: `Bearer ${key}`, 'motu-account': v.ids.merchant! },
      call: (method: string, url: string, body?: unknown) => t.api(key, method, url, body, { 'motu-account': v.ids.merchant! }),
    });
    attackers.push(asVictim('an agency without a mandate, acting for the victim', agency.testKey));
    attackers.push(asVictim("the victim's agency with its live key (a test mandate)", v.agencyLiveKey));
    const intruder = await signedInUser(t, other.id, 'owner');
    attackers.push({
      name: "another merchant's back-office owner", userId: intruder.id, headers: { cookie: intruder.cookie, 'x-csrf-token': intruder.csrfToken },
      call: (method, url, body) => intruder.call(method, url, body),
    });
    // Back-office calls leave their audit row, by design (what was tried is logged); nothing else may be written.
    tables = (await tableNames(t.db)).filter((name) => name !== 'audit_log');
  });

  test('the matrix covers every route the app registers under /api/v1 and /dashboard/api', () => {
    const lists = LISTS(v.ids);
    const writes = crossReferences(v.ids);
    const reads = BACK_OFFICE_READS(v.ids);
    let routes = 0;
    const unread: string[] = [];
    for (const { method, path, queryKeys } of t.routes) {
      const route = `${method} ${path}`;
      if (path.startsWith('/dashboard/api/')) {
        if (path.includes('{')) assert.ok(BACK_OFFICE_BY_ID[route] || BACK_OFFICE_UNSCOPED.has(route), `isolation matrix misses ${route}`);
        const queries = [...(BACK_OFFICE_BY_ID[route]?.queries ?? []), ...(reads[route] ?? []).map((r) => r.url)].join(' ');
        for (const key of queryKeys) {
          if ((path.includes('{') || key.endsWith('Id')) && !queries.includes(`${key}=`)) unread.push(`${route}?${key}`);
        }
        routes++;
        continue;
      }
      if (!path.startsWith('/api/v1/')) continue;
      routes++;
      if (path.includes('{') || NOT_KEYED.has(route)) assert.ok(BY_ID[route] || NOT_KEYED.has(route), `isolation matrix misses ${route}`);
      else if (method === 'GET') {
        assert.ok(lists[route], `isolation matrix misses the list ${route}`);
        // A parameter that names an object or searches (an id, an email, q) is read with the victim's.
        for (const key of queryKeys.filter((k) => /Id$|^email$|^q$/.test(k))) {
          if (!lists[route]!.some((url) => url.includes(`${key}=`))) unread.push(`${route}?${key}`);
        }
      }
      else assert.ok(writes[route], `isolation matrix misses ${route} (add its cross-references, or none)`);
    }
    assert.deepEqual(unread, [], 'isolation matrix misses query parameters that name an object or search: read them with the victim\'s in LISTS');
    assert.ok(routes >= 100, `only ${routes} routes`);
    // Nothing listed here that the app no longer has.
    const registered = new Set(t.routes.map((r) => `${r.method} ${r.path}`));
    for (const route of [...Object.keys(BY_ID), ...NOT_KEYED, ...Object.keys(lists), ...Object.keys(writes), ...Object.keys(BACK_OFFICE_BY_ID), ...Object.keys(reads), ...BACK_OFFICE_UNSCOPED]) {
      assert.ok(registered.has(route), `the matrix lists ${route}, which the app does not register`);
    }
  });

  test('foreign keys (other merchant, other mode) get 404 on every route by id, and change nothing', async () => {
    const before = await snapshot(t, v);
    const counts = await rowCounts(t.db, tables);
    for (const attacker of attackers) {
      for (const [route, spec] of Object.entries(BY_ID)) {
        const [method, path] = route.split(' ') as [string, string];
        const res = await attacker.call(method, path.replace('{id}', v.ids[spec.target]!), spec.body);
        // Indistinguishable from an id that exists nowhere: same status and code (404, or 403 for a read-only key,
        // or 503 ACQUIRER_NOT_CONFIGURED for a live key on an acquirer operation), never a success.
        const unknownId = `${v.ids[spec.target]!.split('_')[0]}_${'0'.repeat(22)}`;
        const control = await attacker.call(method, path.replace('{id}', unknownId), spec.body);
        checked++;
        assert.ok(res.status >= 400, `${attacker.name}: ${route} → ${res.status} ${JSON.stringify(res.body)}`);
        assert.deepEqual([res.status, res.body.code], [control.status, control.body.code], `${attacker.name}: ${route} → ${JSON.stringify(res.body)}`);
        // An agency acting on behalf is refused the routes that make no sense on behalf (400), whatever the id.
        const refusedOnBehalf = attacker.headers['motu-account'] !== undefined && res.body.code === 'ON_BEHALF_NOT_ALLOWED';
        if (!attacker.name.includes('read key') && !attacker.name.includes('live') && !refusedOnBehalf) assert.equal(res.status, 404, `${attacker.name}: ${route}`);
      }
      for (const [route, bodies] of Object.entries(crossReferences(v.ids))) {
        const [method, path] = route.split(' ') as [string, string];
        for (const body of bodies) {
          // Stores and contracts are the merchant's, shared by both modes (the operator sets them): foreign only to others.
          const sharedAcrossModes = JSON.stringify(body).includes(v.ids.store2!) || JSON.stringify(body).includes(v.ids.contract!);
          if (sharedAcrossModes && attacker.name.startsWith('same merchant')) continue;
          const res = await attacker.call(method, path, body);
          checked++;
          assert.ok(res.status >= 400 && (res.status < 500 || res.body.code === 'ACQUIRER_NOT_CONFIGURED'), `${attacker.name}: ${method} ${path} ${JSON.stringify(body)} → ${res.status}`);
        }
      }
    }
    assert.deepEqual(await snapshot(t, v), before);
    const after = await rowCounts(t.db, tables);
    delete after.idempotency_keys;
    delete counts.idempotency_keys;
    assert.deepEqual(after, counts, 'a foreign key wrote rows');
  });

  test("another merchant's back-office user gets 404 on the back-office routes aimed at the victim's users, keys and payments", async () => {
    const intruder = attackers.find((a) => a.name.includes('back-office'))!;
    const counts = await rowCounts(t.db, tables);
    for (const [route, spec] of Object.entries(BACK_OFFICE_BY_ID)) {
      const [method, path] = route.split(' ') as [string, string];
      for (const query of spec.queries ?? ['']) {
        const res = await intruder.call(method, path.replace('{id}', v.ids[spec.target]!) + query, spec.body);
        const control = await intruder.call(method, path.replace('{id}', `${v.ids[spec.target]!.split('_')[0]}_${'0'.repeat(22)}`) + query, spec.body);
        checked++;
        assert.equal(res.status, 404, `${route}${query} → ${res.status} ${JSON.stringify(res.body)}`);
        assert.deepEqual([res.status, res.body.code], [control.status, control.body.code], route + query);
      }
    }
    assert.deepEqual(await rowCounts(t.db, tables), counts, 'a foreign back-office user wrote rows');
    // The victim's user and key are still there, unchanged.
    const user = await t.db.kysely.selectFrom('users').select(['role']).where('id', '=', v.ids.user!).executeTakeFirst();
    assert.equal(user?.role, 'admin', "the victim's user is there with its role");
    assert.equal((await t.api(v.storeKey, 'GET', `/api/v1/customers/${v.ids.customer}`)).status, 200, "the victim's key still works");
  });

  test("the event stream shows a foreign key none of the victim's events; the victim's own stream shows them", async () => {
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const url = `${suite.baseUrl}/api/v1/events/stream?since=${encodeURIComponent(since)}`;
    const own = await readStream(url, { authorization: `Bearer ${v.key}` }, 600);
    assert.equal(own.status, 200);
    assert.ok(own.text.includes(v.ids.captured!), "the victim's stream carries its payment's events (the check below can fail)");
    const secret = new Set(Object.values(v.ids));
    for (const attacker of attackers) {
      if (attacker.name.startsWith('same merchant')) for (const id of [v.ids.merchant, v.ids.store1, v.ids.store2, v.ids.contract]) secret.delete(id!);
      const res = await readStream(url, attacker.headers, 400);
      checked++;
      // An agency acting for the victim without a mandate: 404, as for an unknown account.
      const allowed = attacker.headers['motu-account'] ? [404] : [200, 403];
      assert.ok(allowed.includes(res.status), `${attacker.name}: stream → ${res.status} ${res.text.slice(0, 200)}`);
      for (const id of secret) assert.ok(!res.text.includes(id), `${attacker.name}: the stream shows ${id}`);
    }
  });

  test('foreign keys see none of the objects in lists, singletons and back-office pages', async () => {
    const lists = LISTS(v.ids);
    const backOffice = t.routes.filter((r) => r.method === 'GET' && r.path.startsWith('/dashboard/api/') && !r.path.includes('{')).map((r) => r.path);
    assert.ok(backOffice.length >= 6, backOffice.join(', '));
    for (const attacker of attackers) {
      const sameMerchant = attacker.name.startsWith('same merchant');
      // An agency acting for the victim named its id itself (the 404 says which account it does not know).
      const shared = sameMerchant ? [v.ids.merchant, v.ids.store1, v.ids.store2, v.ids.contract] : attacker.headers['motu-account'] ? [v.ids.merchant] : [];
      const all = new Set([...Object.values(v.ids).filter((id) => !shared.includes(id)), ...VICTIM_NAMES.perMode, ...(sameMerchant ? [] : VICTIM_NAMES.perMerchant)]);
      const urls = [...Object.values(lists).flat(), ...(attacker.key ? [] : [...backOffice, ...Object.values(BACK_OFFICE_READS(v.ids)).flat().map((r) => r.url)])];
      for (const url of urls) {
        const res = await attacker.call('GET', url);
        checked++;
        assert.ok(res.status === 200 || res.status === 404 || res.status === 400 || (res.status === 403 && (url.includes('test-helpers') || url.includes('signing-secret'))), `${attacker.name}: ${url} → ${res.status}`);
        // The attacker's own audit log shows what it tried (the victim's ids in its own paths): only its own rows.
        const rows = url.startsWith('/dashboard/api/audit') ? (res.body.data as Array<{ user: { id: string } }>) : undefined;
        if (rows) assert.deepEqual([...new Set(rows.map((r) => r.user.id))], rows.length ? [attacker.userId] : [], `${attacker.name}: another user's audit rows`);
        const text = JSON.stringify(rows ? [] : res.body);
        for (const id of all) assert.ok(!text.includes(id), `${attacker.name}: ${url} shows ${id}`);
      }
      const secret = await attacker.call('GET', '/api/v1/webhooks/signing-secret');
      const mine = await t.api(v.key, 'GET', '/api/v1/webhooks/signing-secret');
      checked++;
      assert.notEqual(secret.body.webhookSecret, mine.body.webhookSecret, `${attacker.name} reads the victim's signing secret`);
    }
  });

  test("the victim's own back-office user reads what the others were refused (the checks above can fail)", async () => {
    const owner = await signedInUser(t, v.ids.merchant!, 'owner');
    for (const { url, shows } of Object.values(BACK_OFFICE_READS(v.ids)).flat()) {
      const res = await owner.call('GET', url);
      checked++;
      assert.equal(res.status, 200, `${url} → ${res.status} ${JSON.stringify(res.body)}`);
      if (shows) assert.ok(JSON.stringify(res.body).includes(shows), `${url} shows the victim's own ${shows}: ${JSON.stringify(res.body)}`);
    }
    const search = await t.api(v.key, 'GET', `/api/v1/customers?q=${v.ids.customer}`);
    assert.deepEqual(search.body.data.map((c: { id: string }) => c.id), [v.ids.customer], "the victim's search finds its customer");
    checked++;
  });

  test("a store-bound key does not read or change another store's payments, refunds or events", async () => {
    const before = await snapshot(t, v);
    for (const [route, spec] of Object.entries(BY_ID)) {
      if (!spec.storeScoped) continue;
      const [method, path] = route.split(' ') as [string, string];
      const res = await t.api(v.storeKey, method, path.replace('{id}', v.ids[spec.target]!), spec.body);
      checked++;
      assert.equal(res.status, 404, `store key: ${route} → ${res.status} ${JSON.stringify(res.body)}`);
    }
    for (const url of ['/api/v1/payments?limit=100', `/api/v1/payments?storeId=${v.ids.store2}`, '/api/v1/events?limit=100', `/api/v1/events?paymentId=${v.ids.captured}`]) {
      const res = await t.api(v.storeKey, 'GET', url);
      checked++;
      const text = JSON.stringify(res.body);
      for (const id of [v.ids.captured!, v.ids.manual!, v.ids.event!]) assert.ok(!text.includes(id), `store key: ${url} shows ${id}`);
    }
    assert.deepEqual(await snapshot(t, v), before);
  });

  test("a store-bound key works on its own store's payments and on the merchant's shared objects", async () => {
    const own = await paidPayment(t, v.storeKey, { captureMode: 'MANUAL' });
    for (const url of [`/api/v1/payments/${own}`, `/api/v1/payments/${own}/refunds`, `/api/v1/customers/${v.ids.customer}`]) {
      const res = await t.api(v.storeKey, 'GET', url);
      checked++;
      assert.equal(res.status, 200, `${url} → ${res.status} ${JSON.stringify(res.body)}`);
    }
    const list = await t.api(v.storeKey, 'GET', '/api/v1/payments?limit=100');
    assert.deepEqual(list.body.data.map((p: { id: string }) => p.id), [own]);
    const captured = await t.api(v.storeKey, 'POST', `/api/v1/payments/${own}/capture`, {});
    assert.equal(captured.status, 200, JSON.stringify(captured.body));
    const refunded = await t.api(v.storeKey, 'POST', `/api/v1/payments/${own}/refund`, { amountCents: 100 });
    assert.equal(refunded.status, 201, JSON.stringify(refunded.body));
    const events = await t.api(v.storeKey, 'GET', `/api/v1/events?paymentId=${own}`);
    assert.ok(events.body.data.length >= 2, JSON.stringify(events.body));
    const event = await t.api(v.storeKey, 'GET', `/api/v1/events/${events.body.data[0].id}`);
    assert.equal(event.status, 200);
    checked += 5;
  });

  test("a store-bound key's endpoints get only its store's events; it rotates no secret and touches no endpoint of another scope", async () => {
    const merchantKey = v.key;
    const store2Key = (await createKey(t, v.ids.merchant!, { mode: 'test', storeId: v.ids.store2 })).secretKey;
    const register = async (key: string, path: string) => {
      const res = await t.api(key, 'POST', '/api/v1/webhook-endpoints', { url: `https://shop.example${path}`, events: ['*'] });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.id as string;
    };
    const e1 = await register(v.storeKey, '/store-1');
    const e2 = await register(store2Key, '/store-2');
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${v.ids.merchant}`, { agency: true })).status, 200);
    const agency = await t.api(v.storeKey, 'POST', '/api/v1/agency/webhooks', { url: 'https://shop.example/agency-1' });
    assert.equal(agency.status, 201);
    const e0 = v.ids.endpoint!;
    /** The endpoints an event was sent to, as the merchant-wide key sees them. */
    const sentTo = async (eventId: string) => {
      const res = await t.api(merchantKey, 'GET', `/api/v1/events/${eventId}/deliveries`);
      assert.equal(res.status, 200);
      return new Set(res.body.data.map((d: any) => d.target.endpointId).filter(Boolean));
    };
    const firstEvent = async (key: string, paymentId: string) => {
      const res = await t.api(key, 'GET', `/api/v1/events?paymentId=${paymentId}&limit=100`);
      return res.body.data.at(-1).id as string;
    };

    // Payment events: a store's endpoint only for that store's payments; merchant-wide endpoints for all.
    const inStore1 = await paidPayment(t, v.storeKey);
    const inStore2 = await paidPayment(t, merchantKey, { storeId: v.ids.store2 });
    const noStore = await paidPayment(t, merchantKey);
    const s1 = await sentTo(await firstEvent(merchantKey, inStore1));
    assert.ok(s1.has(e0) && s1.has(e1) && !s1.has(e2), `store 1 payment → ${[...s1]}`);
    const s2 = await sentTo(await firstEvent(merchantKey, inStore2));
    assert.ok(s2.has(e0) && s2.has(e2) && !s2.has(e1), `store 2 payment → ${[...s2]}`);
    const none = await sentTo(await firstEvent(merchantKey, noStore));
    assert.ok(none.has(e0) && !none.has(e1) && !none.has(e2), `payment without store → ${[...none]}`);
    // An event of no payment (a customer) is the merchant's: every endpoint that asked for it.
    const customer = await t.api(merchantKey, 'POST', '/api/v1/customers', { name: 'Shared' });
    const customerEvent = (await t.api(merchantKey, 'GET', '/api/v1/events?type=customer.created&limit=1')).body.data[0];
    assert.equal(customerEvent.data.id, customer.body.id);
    const c = await sentTo(customerEvent.id);
    assert.ok(c.has(e0) && c.has(e1) && c.has(e2), `customer event → ${[...c]}`);

    // Endpoints of another scope are absent to a store's key; its own are listed and work.
    const list = await t.api(v.storeKey, 'GET', '/api/v1/webhook-endpoints?limit=100');
    assert.deepEqual(list.body.data.map((e: any) => e.id).sort(), [e1, agency.body.id].sort());
    for (const [id, owner] of [[e0, 'merchant-wide'], [e2, 'store 2']]) {
      for (const [method, body] of [['GET', undefined], ['PATCH', { enabled: false }], ['DELETE', undefined]] as const) {
        const res = await t.api(v.storeKey, method, `/api/v1/webhook-endpoints/${id}`, body);
        checked++;
        assert.equal(res.status, 404, `store key ${method} ${owner} endpoint → ${res.status}`);
        assert.equal(res.body.code, 'NOT_FOUND');
      }
      const resend = await t.api(v.storeKey, 'POST', `/api/v1/events/${await firstEvent(v.storeKey, inStore1)}/resend`, { endpointId: id });
      assert.equal(resend.status, 404, `store key resend to ${owner} endpoint`);
    }
    assert.equal((await t.api(store2Key, 'GET', `/api/v1/webhook-endpoints/${e1}`)).status, 404);
    assert.equal((await t.api(v.storeKey, 'GET', `/api/v1/webhook-endpoints/${e1}`)).status, 200);
    for (const id of [e0, e2]) assert.equal((await t.api(merchantKey, 'GET', `/api/v1/webhook-endpoints/${id}`)).body.enabled, true);
    const all = await t.api(merchantKey, 'GET', '/api/v1/webhook-endpoints?limit=100');
    for (const id of [e0, e1, e2]) assert.ok(all.body.data.some((e: any) => e.id === id), 'a key attached to no store sees every endpoint');
    // Each endpoint says which store's events it gets.
    const storeOf = (id: string) => all.body.data.find((e: any) => e.id === id).storeId;
    assert.deepEqual([storeOf(e0), storeOf(e1), storeOf(e2)], [null, v.ids.store1, v.ids.store2]);

    // Deliveries and resends of its own events: the notificationUrl and its own endpoints only.
    const own = await firstEvent(v.storeKey, inStore1);
    const deliveries = await t.api(v.storeKey, 'GET', `/api/v1/events/${own}/deliveries`);
    assert.deepEqual(new Set(deliveries.body.data.map((d: any) => d.target.endpointId ?? 'url')), new Set(['url', e1]));
    const resent = await t.api(v.storeKey, 'POST', `/api/v1/events/${own}/resend`, {});
    assert.equal(resent.status, 202, JSON.stringify(resent.body));
    assert.deepEqual(new Set(resent.body.deliveries.map((d: any) => d.target.endpointId ?? 'url')), new Set(['url', e1]));

    // The merchant's signing secret is not a store's to rotate.
    const secret = (await t.api(merchantKey, 'GET', '/api/v1/webhooks/signing-secret')).body.webhookSecret;
    const rotate = await t.api(v.storeKey, 'POST', '/api/v1/webhooks/signing-secret/rotate', {});
    assert.equal(rotate.status, 403, JSON.stringify(rotate.body));
    assert.equal(rotate.body.code, 'PERMISSION_DENIED');
    assert.equal((await t.api(merchantKey, 'GET', '/api/v1/webhooks/signing-secret')).body.webhookSecret, secret);
    checked += 12;
    console.log(`isolation [${dialect}]: ${checked} checks`);
  });
});
