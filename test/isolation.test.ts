// Isolation matrix: no key reads or changes another merchant's objects, the other mode's
// objects, or — for a key attached to a store — the payments of another store (docs/reliability.md, "Isolation").
// Every /api/v1 route that names an object by id is driven by every foreign key; lists must not show the objects.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { eachDatabase, type TestApp } from './support/harness.js';
import { withApp } from './support/merchant-app.js';
import { createKey, createMerchant, createStore, createCustomer } from './support/factories.js';
import { createSession, paidPayment } from './support/payments.js';
import { saveCard } from './support/wallet.js';
import { rowCounts, tableNames } from './support/tables.js';

interface Victim {
  key: string;
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
};
/** Routes with {id} that a secret key does not drive: the SDK routes are authenticated by the session id itself. */
const NOT_KEYED = new Set(['GET /api/v1/sdk/sessions/{id}', 'POST /api/v1/sdk/sessions/{id}/submit', 'POST /api/v1/sdk/sessions/{id}/widget']);

/** Creation routes that take another object's id in the body: a foreign id must be refused, nothing charged. */
function crossReferences(ids: Record<string, string>): Array<[string, string, unknown]> {
  const session = { order: { reference: 'X', amount: 500, currency: 'EUR' }, redirectUrl: 'https://evil.example/r', notificationUrl: 'https://evil.example/n' };
  return [
    ['POST', '/api/v1/payments', { paymentMethodId: ids.paymentMethod, order: session.order, notificationUrl: session.notificationUrl }],
    ['POST', '/api/v1/payments/sessions', { ...session, customerId: ids.customer }],
    ['POST', '/api/v1/payments/sessions', { ...session, storeId: ids.store2 }],
    ['POST', '/api/v1/payments/links', { ...session, customerId: ids.customer }],
    ['POST', '/api/v1/payments/sessions', { ...session, merchantConfigId: ids.contract }],
  ];
}

async function victim(t: TestApp): Promise<Victim> {
  const m = await createMerchant(t, 'Victim');
  const s1 = await createStore(t, m.id, { code: 'V-1' });
  const s2 = await createStore(t, m.id, { code: 'V-2' });
  const storeKey = await createKey(t, m.id, { mode: 'test', storeId: s1.id });
  const customer = await createCustomer(t, m.testKey);
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
  return {
    key: m.testKey,
    storeKey: storeKey.secretKey,
    ids: {
      merchant: m.id, contract: m.defaultContractId, store1: s1.id, store2: s2.id, customer,
      paymentMethod: saved.result.paymentMethodId, captured, manual, session: pending.sessionId,
      endpoint: endpoint.body.id, cardLink: link.body.id, event: events.body.data[0].id,
      transaction: transactions.body.data[0].id, bankAccount: bankAccount.body.id, payout: payout.body.id,
      testClock: testClock.body.id,
      dispute: dispute.body.id,
      subscription: subscription.body.id,
      invoice: invoice.body.id,
      creditNote: creditNote.body.id,
    },
  };
}

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
  const { t } = withApp(dialect);
  let v: Victim;
  let attackers: Array<{ name: string; key: string }>;
  let tables: string[];
  let checked = 0;

  before(async () => {
    v = await victim(t);
    const other = await createMerchant(t, 'Intruder');
    await createStore(t, other.id, { code: 'V-2' }); // same store code as the victim's: codes are per merchant
    const otherStoreKey = await createKey(t, other.id, { mode: 'test' });
    const victimLiveRead = await createKey(t, v.ids.merchant!, { mode: 'live', permission: 'read' });
    const victimMerchant = await t.api(undefined, 'GET', '/healthz');
    assert.equal(victimMerchant.status, 200);
    attackers = [
      { name: 'another merchant (test key)', key: other.testKey },
      { name: 'another merchant (live key)', key: other.liveKey },
      { name: 'another merchant (second test key)', key: otherStoreKey.secretKey },
      { name: 'same merchant, live mode', key: (await t.admin('GET', `/admin/v1/merchants/${v.ids.merchant}`)).body.liveSecretKey ?? '' },
      { name: 'same merchant, live mode (read key)', key: victimLiveRead.secretKey },
    ].filter((a) => a.key);
    const live = await createKey(t, v.ids.merchant!, { mode: 'live' });
    attackers.push({ name: 'same merchant, live mode (write key)', key: live.secretKey });
    tables = await tableNames(t.db);
  });

  test('the matrix covers every /api/v1 route that takes an id', async () => {
    const doc = (await t.api(undefined, 'GET', '/api/v1/openapi.json')).body;
    for (const [path, methods] of Object.entries<Record<string, unknown>>(doc.paths)) {
      if (!path.startsWith('/api/v1/') || !path.includes('{id}')) continue;
      for (const method of Object.keys(methods)) {
        const route = `${method.toUpperCase()} ${path}`;
        assert.ok(BY_ID[route] || NOT_KEYED.has(route), `isolation matrix misses ${route}`);
      }
    }
  });

  test('foreign keys (other merchant, other mode) get 404 on every route by id, and change nothing', async () => {
    const before = await snapshot(t, v);
    const counts = await rowCounts(t.db, tables);
    for (const attacker of attackers) {
      for (const [route, spec] of Object.entries(BY_ID)) {
        const [method, path] = route.split(' ') as [string, string];
        const res = await t.api(attacker.key, method, path.replace('{id}', v.ids[spec.target]!), spec.body);
        // Indistinguishable from an id that exists nowhere: same status and code (404, or 403 for a read-only key,
        // or 503 ACQUIRER_NOT_CONFIGURED for a live key on an acquirer operation), never a success.
        const unknownId = `${v.ids[spec.target]!.split('_')[0]}_${'0'.repeat(22)}`;
        const control = await t.api(attacker.key, method, path.replace('{id}', unknownId), spec.body);
        checked++;
        assert.ok(res.status >= 400, `${attacker.name}: ${route} → ${res.status} ${JSON.stringify(res.body)}`);
        assert.deepEqual([res.status, res.body.code], [control.status, control.body.code], `${attacker.name}: ${route} → ${JSON.stringify(res.body)}`);
        if (!attacker.name.includes('read key') && !attacker.name.includes('live')) assert.equal(res.status, 404, `${attacker.name}: ${route}`);
      }
      for (const [method, path, body] of crossReferences(v.ids)) {
        // Stores and contracts are the merchant's, shared by both modes (the operator sets them): foreign only to others.
        const sharedAcrossModes = JSON.stringify(body).includes(v.ids.store2!) || JSON.stringify(body).includes(v.ids.contract!);
        if (sharedAcrossModes && attacker.name.startsWith('same merchant')) continue;
        const res = await t.api(attacker.key, method, path, body);
        checked++;
        assert.ok(res.status >= 400 && (res.status < 500 || res.body.code === 'ACQUIRER_NOT_CONFIGURED'), `${attacker.name}: ${method} ${path} ${JSON.stringify(body)} → ${res.status}`);
      }
    }
    assert.deepEqual(await snapshot(t, v), before);
    const after = await rowCounts(t.db, tables);
    delete after.idempotency_keys;
    delete counts.idempotency_keys;
    assert.deepEqual(after, counts, 'a foreign key wrote rows');
  });

  test('foreign keys see none of the objects in lists', async () => {
    for (const attacker of attackers) {
      const shared = attacker.name.startsWith('same merchant') ? [v.ids.merchant, v.ids.store1, v.ids.store2, v.ids.contract] : [];
      const all = new Set(Object.values(v.ids).filter((id) => !shared.includes(id)));
      for (const url of [
        '/api/v1/customers?limit=100', '/api/v1/payments?limit=100', `/api/v1/payments?storeId=${v.ids.store2}`, '/api/v1/payments?storeId=V-2',
        `/api/v1/payments?customerId=${v.ids.customer}`, '/api/v1/webhook-endpoints', '/api/v1/events?limit=100',
        `/api/v1/events?paymentId=${v.ids.captured}`, `/api/v1/customers?email=${encodeURIComponent('x')}`,
        '/api/v1/balance-transactions?limit=100', `/api/v1/balance-transactions?sourceId=${v.ids.captured}`, '/api/v1/bank-accounts?limit=100', '/api/v1/payouts?limit=100',
        '/api/v1/test-helpers/test-clocks?limit=100', '/api/v1/disputes?limit=100', `/api/v1/disputes?paymentId=${v.ids.captured}`, '/api/v1/subscriptions?limit=100', '/api/v1/billing/invoices?limit=100',
        '/api/v1/billing/credit-notes?limit=100', `/api/v1/billing/credit-notes?invoiceId=${v.ids.invoice}`,
      ]) {
        const res = await t.api(attacker.key, 'GET', url);
        checked++;
        assert.ok(res.status === 200 || res.status === 404 || res.status === 400 || (res.status === 403 && url.includes('test-helpers')), `${url} → ${res.status}`);
        const text = JSON.stringify(res.body);
        for (const id of all) assert.ok(!text.includes(id), `${attacker.name}: ${url} shows ${id}`);
      }
      const secret = await t.api(attacker.key, 'GET', '/api/v1/webhooks/signing-secret');
      const mine = await t.api(v.key, 'GET', '/api/v1/webhooks/signing-secret');
      checked++;
      assert.notEqual(secret.body.webhookSecret, mine.body.webhookSecret, `${attacker.name} reads the victim's signing secret`);
    }
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
