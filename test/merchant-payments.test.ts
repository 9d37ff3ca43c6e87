// Merchant-initiated payments (POST /api/v1/payments) and CORS on every route family.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { LIVE_PROFILE, PROFILE_MODE, shownLast4 } from './support/profile.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { connectUnderLiveProfile, createKey, createMerchant, createStore, createCustomer } from './support/factories.js';
import { saveCard } from './support/wallet.js';
import { CARDS } from './support/cards.js';
import { paymentEvents } from './support/events.js';

const NOTIFY = 'https://merchant.example/hooks';

eachDatabase('merchant-initiated payments', (dialect) => {
  let customerId: string;
  let visa: string;
  let saveThenDecline: string;
  const { t, m } = withMerchantApp(dialect, { checkAnswers: true });
  before(async () => {
    customerId = await createCustomer(t, m.key);
    visa = (await saveCard(t, m.key, customerId, CARDS.visa)).result.paymentMethodId;
    saveThenDecline = (await saveCard(t, m.key, customerId, CARDS.saveThenDecline)).result.paymentMethodId;
  });

  test('AUTO: 201, captured, payment.authorized then payment.captured to the notificationUrl', async () => {
    const res = await t.api(m.key, 'POST', '/api/v1/payments', {
      paymentMethodId: visa, order: { reference: 'SUB-1', amount: 1500, currency: 'EUR', unknownKey: 1 }, notificationUrl: NOTIFY, privateData: { plan: 'gold' },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'captured');
    assert.equal(res.body.paymentMethodId, visa);
    assert.equal(res.body.customerId, customerId);
    const events = await paymentEvents(t, res.body.id);
    assert.deepEqual(events.map((e) => e.type).sort(), ['payment.authorized', 'payment.captured']);
    const auth = events.find((e) => e.type === 'payment.authorized').data;
    assert.equal(auth.status, 'transit');
    assert.equal(auth.paymentMethodId, visa);
    assert.equal(auth.customerId, customerId);
    assert.equal(auth.customerCreated, false);
    assert.equal(auth.cardLast4, shownLast4('4242'));
    assert.equal(auth.amount, 1500);
    assert.equal(auth.order.reference, 'SUB-1');
    assert.ok(auth.settlement);
    const deliveries = await t.db.kysely.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', events[0].id).execute();
    assert.ok(deliveries.some((d: any) => d.url === NOTIFY), JSON.stringify(deliveries));
  });

  test('MANUAL: authorized only (transit), XPF amount converted to EUR cents in events', async () => {
    const res = await t.api(m.key, 'POST', '/api/v1/payments', {
      paymentMethodId: visa, order: { amount: 1000, currency: 'XPF' }, captureMode: 'MANUAL', notificationUrl: NOTIFY,
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.status, 'transit');
    const events = await paymentEvents(t, res.body.id);
    assert.deepEqual(events.map((e) => e.type), ['payment.authorized']);
    assert.equal(events[0].data.amount, 838);
    assert.equal(events[0].data.grossAmount, 1000);
    assert.equal(events[0].data.originalCurrency, 'XPF');
  });

  test('a refusal is 201 with status failed, refusalCode, and payment.failed (4000 0000 0000 0341 saves, then refuses)', async () => {
    const res = await t.api(m.key, 'POST', '/api/v1/payments', {
      paymentMethodId: saveThenDecline, order: { amount: 990, currency: 'EUR' }, notificationUrl: NOTIFY,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'failed');
    assert.equal(res.body.refusalCode, 'card_declined');
    const events = await paymentEvents(t, res.body.id);
    assert.deepEqual(events.map((e) => e.type), ['payment.failed']);
    assert.equal(events[0].data.refusalCode, 'card_declined');
    const read = await t.api(m.key, 'GET', `/api/v1/payments/${res.body.id}`);
    assert.equal(read.body.status, 'failed');
    assert.equal(read.body.refusalCode, 'card_declined');
  });

  test('unknown, foreign or removed payment methods; validation', async () => {
    assert.equal((await t.api(m.key, 'POST', '/api/v1/payments', { paymentMethodId: 'pm_nope', order: { amount: 100, currency: 'EUR' }, notificationUrl: NOTIFY })).status, 404);
    const other = await createMerchant(t, 'Other');
    assert.equal((await t.api(other.testKey, 'POST', '/api/v1/payments', { paymentMethodId: visa, order: { amount: 100, currency: 'EUR' }, notificationUrl: NOTIFY })).status, 404);
    // The other mode: a live key without a connector (503), or a test key that never sees a live card (404).
    assert.equal((await t.api(m.otherModeKey, 'POST', '/api/v1/payments', { paymentMethodId: visa, order: { amount: 100, currency: 'EUR' }, notificationUrl: NOTIFY })).status, LIVE_PROFILE ? 404 : 503);
    const doomed = (await saveCard(t, m.key, customerId, CARDS.mastercard)).result.paymentMethodId;
    await t.api(m.key, 'DELETE', `/api/v1/payment-methods/${doomed}`);
    const removed = await t.api(m.key, 'POST', '/api/v1/payments', { paymentMethodId: doomed, order: { amount: 100, currency: 'EUR' }, notificationUrl: NOTIFY });
    assert.equal(removed.status, 400);
    assert.equal(removed.body.details.field, 'paymentMethodId');
    const http = await t.api(m.key, 'POST', '/api/v1/payments', { paymentMethodId: visa, order: { amount: 100, currency: 'EUR' }, notificationUrl: 'http://merchant.example/h' });
    assert.equal(http.status, 400);
    assert.equal(http.body.details.field, 'notificationUrl');
    const noOrder = await t.api(m.key, 'POST', '/api/v1/payments', { paymentMethodId: visa, notificationUrl: NOTIFY });
    assert.equal(noOrder.status, 400);
    const extra = await t.api(m.key, 'POST', '/api/v1/payments', { paymentMethodId: visa, order: { amount: 100, currency: 'EUR' }, notificationUrl: NOTIFY, amount: 5 });
    assert.equal(extra.status, 400);
    const mismatch = await t.api(m.key, 'POST', '/api/v1/payments', {
      paymentMethodId: visa, order: { amount: 100, currency: 'EUR', items: [{ product: 'x', unitPrice: 60, quantity: 1 }] }, notificationUrl: NOTIFY,
    });
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.code, 'ORDER_AMOUNT_MISMATCH');
  });

  test('store rules as for sessions: store echoed, unknown/inactive/physical/key mismatch/contract conflict', async () => {
    const online = await createStore(t, m.id, { code: 'PPT-WEB', name: 'Papeete web' });
    const ok = await t.api(m.key, 'POST', '/api/v1/payments', { paymentMethodId: visa, order: { amount: 100, currency: 'EUR' }, notificationUrl: NOTIFY, storeId: 'PPT-WEB' });
    assert.equal(ok.status, 201);
    assert.deepEqual(ok.body.store, { id: online.id, code: 'PPT-WEB', name: 'Papeete web' });
    const [ev] = await paymentEvents(t, ok.body.id);
    assert.deepEqual(ev.data.store, { id: online.id, code: 'PPT-WEB', name: 'Papeete web' });

    const body = (extra: Record<string, unknown>) => ({ paymentMethodId: visa, order: { amount: 100, currency: 'EUR' }, notificationUrl: NOTIFY, ...extra });
    assert.equal((await t.api(m.key, 'POST', '/api/v1/payments', body({ storeId: 'NOPE' }))).body.code, 'UNKNOWN_STORE');
    await createStore(t, m.id, { code: 'OFF', active: false });
    assert.equal((await t.api(m.key, 'POST', '/api/v1/payments', body({ storeId: 'OFF' }))).body.code, 'STORE_INACTIVE');
    await createStore(t, m.id, { code: 'SHOP', kind: 'physical' });
    assert.equal((await t.api(m.key, 'POST', '/api/v1/payments', body({ storeId: 'SHOP' }))).body.code, 'STORE_KIND_MISMATCH');
    const other = await createStore(t, m.id, { code: 'MOOREA' });
    const storeKey = await createKey(t, m.id, { mode: PROFILE_MODE, storeId: other.id });
    const mismatch = await t.api(storeKey.secretKey, 'POST', '/api/v1/payments', body({ storeId: 'PPT-WEB' }));
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.code, 'STORE_KEY_MISMATCH');
    const keyStore = await t.api(storeKey.secretKey, 'POST', '/api/v1/payments', body({}));
    assert.equal(keyStore.body.store.code, 'MOOREA');
    const contract = await t.admin('POST', `/admin/v1/merchants/${m.id}/contracts`, { statementLabel: 'OTHER', commissionRate: 100, fixedFee: 0 });
    await connectUnderLiveProfile(t, contract.body.id);
    const bound = await createStore(t, m.id, { code: 'BOUND', contractId: m.defaultContractId });
    void bound;
    const conflict = await t.api(m.key, 'POST', '/api/v1/payments', body({ storeId: 'BOUND', merchantConfigId: contract.body.id }));
    assert.equal(conflict.body.code, 'STORE_CONTRACT_CONFLICT');
  });

  test('idempotency: the same key replays the same payment', async () => {
    const body = { paymentMethodId: visa, order: { amount: 777, currency: 'EUR' }, notificationUrl: NOTIFY };
    const a = await t.api(m.key, 'POST', '/api/v1/payments', body, { 'idempotency-key': 'mit-1' });
    const b = await t.api(m.key, 'POST', '/api/v1/payments', body, { 'idempotency-key': 'mit-1' });
    assert.equal(a.status, 201);
    assert.equal(b.body.id, a.body.id);
    const count = await t.db.kysely.selectFrom('payments').select('id').where('amount', '=', 777).execute();
    assert.equal(count.length, 1);
  });
});

eachDatabase('CORS by route family', (dialect) => {
  const { t, m } = withMerchantApp(dialect, { checkAnswers: true });
  const origin = { origin: 'https://shop.example' };
  const preflight = { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' };

  test('open on /sdk/* and /api/v1/sdk/*', async () => {
    const customerId = await createCustomer(t, m.key);
    const { sessionId } = (await t.api(m.key, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl: 'https://shop.example/r' })).body;
    for (const [method, url] of [['GET', '/sdk/v1/motu.js'], ['GET', '/sdk/v1/manifest.json'], ['GET', `/api/v1/sdk/sessions/${sessionId}`], ['GET', '/api/v1/sdk/sessions/ses_unknown']] as const) {
      const res = await t.api(undefined, method, url, undefined, origin);
      assert.equal(res.headers['access-control-allow-origin'], '*', url);
    }
    for (const url of [`/api/v1/sdk/sessions/${sessionId}/submit`, '/sdk/v1/motu.js']) {
      const res = await t.api(undefined, 'OPTIONS', url, undefined, preflight);
      assert.equal(res.status, 204, url);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.match(String(res.headers['access-control-allow-methods']), /POST/);
      assert.match(String(res.headers['access-control-allow-headers']), /content-type/);
      assert.equal(res.headers['access-control-allow-credentials'], undefined);
    }
    const bad = await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${sessionId}/submit`, { token: 'tok_nope' }, origin);
    assert.equal(bad.status, 400);
    assert.equal(bad.headers['access-control-allow-origin'], '*');
  });

  test('closed on secret-key routes, admin, hosted pages and the acquirer', async () => {
    const urls: Array<[string, string]> = [
      ['POST', '/api/v1/payments/sessions'], ['GET', '/api/v1/payments'], ['POST', '/api/v1/payments'], ['GET', '/api/v1/customers'],
      ['POST', '/api/v1/customers/cus_x/sessions'], ['GET', '/api/v1/payment-methods/pm_x'], ['GET', '/admin/v1/merchants'],
      ['GET', '/checkout/ses_x'], ['GET', '/wallet/ses_x'], ['POST', '/acquirer/v1/tokens'],
    ];
    for (const [method, url] of urls) {
      const res = await t.api(m.key, method, url, undefined, origin);
      assert.equal(res.headers['access-control-allow-origin'], undefined, `${method} ${url}`);
      const pre = await t.api(undefined, 'OPTIONS', url, undefined, preflight);
      assert.equal(pre.headers['access-control-allow-origin'], undefined, `OPTIONS ${url}`);
    }
  });

  test('the SDK script: cache headers, ETag, versioned immutable path with integrity', async () => {
    const res = await t.api(undefined, 'GET', '/sdk/v1/motu.js');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /javascript/);
    assert.match(String(res.headers['cache-control']), /max-age=300/);
    const etag = String(res.headers.etag);
    assert.equal((await t.api(undefined, 'GET', '/sdk/v1/motu.js', undefined, { 'if-none-match': etag })).status, 304);
    const manifest = (await t.api(undefined, 'GET', '/sdk/v1/manifest.json')).body;
    assert.match(manifest.integrity, /^sha384-/);
    assert.ok(manifest.gzipBytes < 15_000, `gzipped ${manifest.gzipBytes}`);
    const pinned = await t.api(undefined, 'GET', manifest.file);
    assert.equal(pinned.status, 200);
    assert.match(String(pinned.headers['cache-control']), /immutable/);
    assert.equal((await t.api(undefined, 'GET', '/sdk/v1/motu-0000000000000000.js')).status, 404);
  });
});
