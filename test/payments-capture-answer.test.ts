// The answer of POST /payments/{id}/capture is the payment's detail, GET /payments/{id}, as the capture committed it.
// The capture builds it from the rows its own writes returned (the payment's row, its session's expiry from the claim)
// instead of reading the payment again; where its transaction wrote more than the row (an invoice paid by the card),
// and on a retry, it reads. Both paths are compared here with GET right after, on every database, field by field.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createCustomer, createStore } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paidPayment, paySession } from './support/payments.js';
import { saveCard } from './support/wallet.js';
import { CARDS } from './support/cards.js';
import { onlyOn } from './support/profile.js';
import { makePlatform, onboardSeller } from './support/platforms.js';
import { paidSplit } from './support/splits.js';

const IDENTITY = {
  legalName: 'Fare Ute SARL', address: { line1: 'Rue du Commandant Destremau', postalCode: '98713', city: 'Papeete', country: 'PF' },
  registrationNumber: 'TAHITI A12345', taxId: '123456',
};

eachDatabase('the capture answers the payment as GET /payments/{id} reads it', (dialect) => {
  const { t, m, clock } = withMerchantApp(dialect, { checkAnswers: true, clock: 'now' });
  const get = async (id: string) => {
    const res = await t.api(m.key, 'GET', `/api/v1/payments/${id}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  const capture = async (id: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await t.api(m.key, 'POST', `/api/v1/payments/${id}/capture`, body, headers);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  /** Captures `id` and checks the answer is the detail read right after, byte for byte (the JSON text). */
  const capturedAsRead = async (id: string, body?: unknown) => {
    const answer = await capture(id, body);
    const read = await get(id);
    assert.deepEqual(answer, read);
    assert.equal(JSON.stringify(answer), JSON.stringify(read), 'the same fields in the same order');
    return answer;
  };
  let store: { id: string };

  before(async () => {
    store = await createStore(t, m.id, { code: 'CAP-1', name: 'Faaa aéroport' });
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, IDENTITY)).status, 200);
  });

  it('a payment of a session, captured in full: its session expiry, attempts and fees as GET shows them', async () => {
    const id = await paidPayment(t, m.key, { captureMode: 'MANUAL', amount: 10_000, expiresIn: 3600 });
    const answer = await capturedAsRead(id);
    assert.equal(answer.status, 'captured');
    assert.equal(answer.capturedAmount, 10_000);
    assert.ok(answer.sessionId && answer.expiresAt, JSON.stringify(answer));
    assert.equal(answer.attempts.length, 1);
    assert.deepEqual(answer.refunds, []);
    assert.equal(answer.settlement.capturedAmount, 10_000);
  });

  it('a payment paid at the second attempt: both attempts as GET lists them, the one captured as the capture left it', async () => {
    const session = await createSession(t, m.key, { captureMode: 'MANUAL', amount: 7_000 });
    await paySession(t, session.sessionId, CARDS.declined);
    await paySession(t, session.sessionId, CARDS.visa);
    const answer = await capturedAsRead(session.paymentId);
    assert.deepEqual(answer.attempts.map((a: { status: string; refusalCode: string | null }) => [a.status, a.refusalCode]), [['refused', 'card_declined'], ['captured', null]]);
  });

  it("a partial capture, and a store's payment", async () => {
    const id = await paidPayment(t, m.key, { captureMode: 'MANUAL', amount: 5_000, storeId: store.id });
    const answer = await capturedAsRead(id, { amount: 3_000 });
    assert.deepEqual([answer.status, answer.authorizedAmount, answer.capturedAmount], ['captured', 5_000, 3_000]);
    assert.deepEqual(answer.store, { id: store.id, code: 'CAP-1', name: 'Faaa aéroport' });
    assert.equal(answer.settlement.capturedAmount, 3_000);
  });

  it('a payment without a session (merchant-initiated, saved card), on a customer of a test clock too', { skip: onlyOn('simulator', 'saved cards of the simulator') }, async () => {
    const charge = async (customerId: string, reference: string) => {
      const pm = (await saveCard(t, m.key, customerId)).result.paymentMethodId;
      const res = await t.api(m.key, 'POST', '/api/v1/payments', {
        paymentMethodId: pm, order: { reference, amount: 2_400, currency: 'XPF' }, captureMode: 'MANUAL', notificationUrl: 'https://shop.example/hook',
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.status, 'transit');
      return res.body.id as string;
    };
    const plain = await capturedAsRead(await charge(await createCustomer(t, m.key), 'MIT-1'));
    assert.deepEqual([plain.sessionId, plain.expiresAt, plain.capturedAmount], [null, null, 2_400]);

    // The capture's dates are rewritten in the clock's time on its transaction (the row read again there).
    const testClock = (await t.api(m.key, 'POST', '/api/v1/test-helpers/test-clocks', { frozenTime: '2027-03-01T08:00:00.000Z' })).body;
    const onClock = await capturedAsRead(await charge(await createCustomer(t, m.key, { testClockId: testClock.id }), 'MIT-2'));
    assert.equal(onClock.capturedAt, '2027-03-01T08:00:00.000Z');
  });

  it("a split payment, captured in part: its platformDistribution as GET shares it", async () => {
    const platform = await makePlatform(t, 'Fenua Market');
    const a = await onboardSeller(t, platform.testKey, { legalName: 'Vanille Tahaa' });
    const b = await onboardSeller(t, platform.testKey, { legalName: 'Perles Rikitea' });
    const id = await paidSplit(t, platform.testKey, {
      amount: 10_000, captureMode: 'MANUAL', financing: 2000,
      distribution: [
        { merchantId: a.merchantId, amount: 6000, commission: { rate: 1000, fixed: 50 } },
        { merchantId: b.merchantId, amount: 5000, commission: { rate: 500 }, discount: 1000 },
      ],
    });
    const res = await t.api(platform.testKey, 'POST', `/api/v1/payments/${id}/capture`, { amount: 4_000 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const read = (await t.api(platform.testKey, 'GET', `/api/v1/payments/${id}`)).body;
    assert.equal(JSON.stringify(res.body), JSON.stringify(read));
    assert.equal(res.body.platformDistribution.length, 3, 'two sellers and the platform');
  });

  it("a sale to invoice (order.invoicing.enabled): the invoice is paid on the capture's transaction, the answer still the detail", async () => {
    const customerId = await createCustomer(t, m.key);
    const session = await createSession(t, m.key, {
      amount: 4_500, captureMode: 'MANUAL', extra: {
        customerId, email: undefined, externalId: undefined,
        order: { reference: 'SALE-1', amount: 4_500, currency: 'EUR', items: [{ product: 'Monoï', unitPrice: 1_500, quantity: 3 }], invoicing: { enabled: true } },
      },
    });
    await paySession(t, session.sessionId);
    const answer = await capturedAsRead(session.paymentId);
    assert.equal(answer.status, 'captured');
    const invoices = (await t.api(m.key, 'GET', `/api/v1/billing/invoices?customerId=${customerId}`)).body.data;
    assert.deepEqual(invoices.map((i: { status: string; amountPaid: number }) => [i.status, i.amountPaid]), [['paid', 4_500]]);
  });

  it('a replayed capture (same Idempotency-Key) answers the first answer; a second capture is refused; a refund shows after', async () => {
    const id = await paidPayment(t, m.key, { captureMode: 'MANUAL', amount: 8_000 });
    const first = await capture(id, { amount: 6_000 }, { 'idempotency-key': `cap-${id}` });
    assert.deepEqual(first, await get(id));
    const replay = await capture(id, { amount: 6_000 }, { 'idempotency-key': `cap-${id}` });
    assert.equal(JSON.stringify(replay), JSON.stringify(first));
    const again = await t.api(m.key, 'POST', `/api/v1/payments/${id}/capture`, { amount: 6_000 });
    assert.equal(again.status, 422);
    assert.equal(again.body.code, 'PAYMENT_NOT_CAPTURABLE');
    // The detail goes on from there: a refund is listed by GET (the capture's answer had none to list).
    assert.equal((await t.api(m.key, 'POST', `/api/v1/payments/${id}/refund`, { amount: 1_000 })).status, 201);
    const after = await get(id);
    assert.deepEqual([after.refunds.length, after.refundedAmount, first.refunds.length], [1, 1_000, 0]);
  });

  it('a capture retried after its first run died once committed (its key taken over): the payment read, as GET gives it', async () => {
    const id = await paidPayment(t, m.key, { captureMode: 'MANUAL', amount: 5_000 });
    const key = `dead-${id}`;
    const first = await capture(id, { amount: 3_000 }, { 'idempotency-key': key });
    // What a run killed after its commit, before its answer was stored, leaves: the key in flight, 61 s old.
    const res = await t.db.kysely.updateTable('idempotency_keys')
      .set({ state: 'in_flight', status_code: null, response_body: null, created_at: new Date(clock.now().getTime() - 61_000).toISOString() })
      .where('merchant_id', '=', m.id).where('key', '=', key).executeTakeFirst();
    assert.equal(Number(res.numUpdatedRows), 1);
    const retry = await capture(id, { amount: 3_000 }, { 'idempotency-key': key });
    assert.equal(JSON.stringify(retry), JSON.stringify(first));
    assert.deepEqual(retry, await get(id));
  });
});
