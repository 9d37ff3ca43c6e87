// The payment lifecycle through HTTP on every database: capture (full, partial), cancel, expiries and settlement
// driven by a ManualClock, and the payload of every event (refunds: test/refunds.test.ts).
// Payments are authorized through the checkout's own server-side path (token endpoint, then the pay call).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { paymentSchedule } from './support/schedule.js';
import { startWorkers } from '../src/start/workers.js';
import { createStore } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paidPayment, paySession } from './support/payments.js';
import { paymentEvents } from './support/events.js';
import { eventually } from './support/wait.js';
import { onlyOn, shownLast4 } from './support/profile.js';

const DAY = 86_400_000;

eachDatabase('payment lifecycle', (dialect) => {
  const { t, m, clock } = withMerchantApp(dialect, { checkAnswers: true, clock: 'now', env: { MOTU_TEST_SETTLEMENT_DELAY: '60' } });
  let store: { id: string; code: string; name: string };
  const tick = () => {
    return paymentSchedule(t, clock).tick();
  };
  const get = async (id: string) => (await t.api(m.key, 'GET', `/api/v1/payments/${id}`)).body;
  const post = (url: string, body?: unknown) => t.api(m.key, 'POST', url, body);

  before(async () => {
    store = await createStore(t, m.id, { code: 'PPT-1', name: 'Papeete centre' });
  });

  it('MANUAL: authorized, then captured in full; a second capture is refused; payloads carry every field', async () => {
    const id = await paidPayment(t, m.key, { captureMode: 'MANUAL', amount: 10_000, storeId: store.id });
    assert.equal((await get(id)).status, 'transit');
    const res = await post(`/api/v1/payments/${id}/capture`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'captured');
    assert.equal(res.body.capturedAmount, 10_000);
    const again = await post(`/api/v1/payments/${id}/capture`);
    assert.equal(again.status, 422);
    assert.equal(again.body.code, 'PAYMENT_NOT_CAPTURABLE');

    const events = await paymentEvents(t, id);
    assert.deepEqual(events.map((e) => e.type), ['payment.authorized', 'payment.captured']);
    const [authorized, captured] = events;
    const payment = await get(id);
    for (const e of events) {
      assert.equal(e.data.paymentId, id);
      assert.match(e.data.reference, /^SPR-[A-Z2-7]{16}$/);
      assert.equal(e.data.reference, payment.reference);
      assert.deepEqual(e.data.order, { reference: payment.orderReference });
      assert.equal(e.data.externalId, 'ext-1');
      assert.equal(e.data.amount, 10_000);
      assert.equal(e.data.currency, 'EUR');
      assert.deepEqual(e.data.store, { id: store.id, code: 'PPT-1', name: 'Papeete centre' });
    }
    assert.equal(authorized!.data.status, 'transit');
    assert.equal(authorized!.data.customerId, null);
    assert.equal(authorized!.data.customerCreated, false);
    assert.equal(authorized!.data.paymentMethodId, null);
    assert.equal(authorized!.data.cardBrand, 'VISA');
    assert.equal(authorized!.data.cardLast4, shownLast4('4242'));
    assert.equal(authorized!.data.grossAmount, 10_000);
    assert.equal(authorized!.data.originalCurrency, 'EUR');
    assert.equal(captured!.data.status, 'captured');
    assert.equal(captured!.data.grossAmount, 10_000);
    assert.equal(captured!.data.originalCurrency, 'EUR');
    // 10000 c × 2.5 % = 250 + TVA 40 = 290; fixed 25 + 4 = 29; Σ 319; net 9681
    assert.deepEqual(
      { ...captured!.data.settlement, detailedFees: captured!.data.settlement.detailedFees.map((l: any) => [l.id, l.totalAmount, l.totalAmountEur]) },
      { capturedAmount: 10_000, mobupayCommission: 319, netAmount: 9681, currency: 'EUR', settled: false,
        detailedFees: [['spirit_commission', 290, 290], ['spirit_fixed_fee', 29, 29], ['authorization_result', 0, 0]] },
    );
    assert.equal(authorized!.data.settlement.settled, false);

    // The same events through the API.
    const listed = await t.api(m.key, 'GET', `/api/v1/events?paymentId=${id}`);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data.map((e: any) => e.type).sort(), ['payment.authorized', 'payment.captured']);
  });

  it('partial capture: only what is asked, never more than authorized; the fees follow the captured amount', async () => {
    const id = await paidPayment(t, m.key, { captureMode: 'MANUAL', amount: 10_000 });
    const tooMuch = await post(`/api/v1/payments/${id}/capture`, { amount: 10_001 });
    assert.equal(tooMuch.status, 422);
    assert.equal(tooMuch.body.code, 'PAYMENT_NOT_CAPTURABLE');
    const bad = await post(`/api/v1/payments/${id}/capture`, { amount: 0 });
    assert.equal(bad.status, 400);
    const res = await post(`/api/v1/payments/${id}/capture`, { amount: 6000 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.capturedAmount, 6000);
    assert.equal(res.body.authorizedAmount, 10_000);
    const captured = (await paymentEvents(t, id)).find((e) => e.type === 'payment.captured')!;
    assert.equal(captured.data.grossAmount, 6000);
    assert.equal(captured.data.amount, 6000);
    // 6000 × 2.5 % = 150 + 24 = 174; fixed 29; Σ 203; net 5797
    assert.equal(captured.data.settlement.mobupayCommission, 203);
    assert.equal(captured.data.settlement.netAmount, 5797);
    const beyond = await post(`/api/v1/payments/${id}/refund`, { amountCents: 6001 });
    assert.equal(beyond.status, 422);
    assert.equal(beyond.body.code, 'REFUND_EXCEEDS_CAPTURED');
  });

  it('cancel: an authorized payment and a pending one; a captured one is refused', async () => {
    const id = await paidPayment(t, m.key, { captureMode: 'MANUAL', amount: 2500 });
    const res = await post(`/api/v1/payments/${id}/cancel`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'cancelled');
    const cancelled = (await paymentEvents(t, id)).filter((e) => e.type === 'payment.cancelled');
    assert.equal(cancelled.length, 1);
    assert.equal(cancelled[0]!.data.cancelledBy, 'merchant_api');
    assert.equal(cancelled[0]!.data.status, 'cancelled');
    assert.equal(cancelled[0]!.data.settlement.capturedAmount, 0);
    assert.equal((await post(`/api/v1/payments/${id}/cancel`)).body.code, 'PAYMENT_NOT_CANCELLABLE');
    assert.equal((await post(`/api/v1/payments/${id}/capture`)).body.code, 'PAYMENT_NOT_CAPTURABLE');

    const pending = await createSession(t, m.key, { amount: 1200 });
    const p = await post(`/api/v1/payments/${pending.paymentId}/cancel`, {});
    assert.equal(p.status, 200);
    assert.equal(p.body.status, 'cancelled');
    assert.deepEqual((await paymentEvents(t, pending.paymentId)).map((e) => [e.type, e.data.cancelledBy]), [['payment.cancelled', 'merchant_api']]);

    const auto = await paidPayment(t, m.key, { amount: 1200 });
    const refused = await post(`/api/v1/payments/${auto}/cancel`);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'PAYMENT_NOT_CANCELLABLE');
    assert.equal((await post('/api/v1/payments/pay_doesnotexist/cancel')).status, 404);
  });

  it('20 concurrent captures and cancels on one authorization: exactly one wins', async () => {
    const id = await paidPayment(t, m.key, { captureMode: 'MANUAL', amount: 3000 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post(`/api/v1/payments/${id}/${i % 2 ? 'cancel' : 'capture'}`)));
    assert.equal(results.filter((r) => r.status === 200).length, 1, JSON.stringify(results.map((r) => r.status)));
    assert.ok(results.filter((r) => r.status !== 200).every((r) => r.status === 422));
    const types = (await paymentEvents(t, id)).map((e) => e.type).filter((type) => type !== 'payment.authorized');
    assert.equal(types.length, 1);
    assert.ok(['payment.captured', 'payment.cancelled'].includes(types[0]!));
  });

  it('a session past expiresIn expires by the scheduler (payment.expired); the page is inactive', async () => {
    const session = await createSession(t, m.key, { expiresIn: 60 });
    clock.advance(59_000);
    assert.equal((await tick()).sessionsExpired, 0);
    clock.advance(2_000);
    await tick();
    const payment = await get(session.paymentId);
    assert.equal(payment.status, 'expired');
    const events = await paymentEvents(t, session.paymentId);
    assert.deepEqual(events.map((e) => [e.type, e.data.status, e.data.paymentId]), [['payment.expired', 'expired', session.paymentId]]);
    assert.equal((await t.api(undefined, 'GET', `/checkout/${session.sessionId}`)).status, 302);
    await tick();
    assert.equal((await paymentEvents(t, session.paymentId)).length, 1, 'expired once');
  });

  it('payment links live 7 days by default, then expire', async () => {
    const res = await post('/api/v1/payments/links', {
      order: { reference: 'LINK-1', amount: 5000, currency: 'XPF' }, redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(res.body.linkId, /^lnk_/);
    assert.match(res.body.paymentId, /^pay_/);
    assert.equal(res.body.linkUrl, `${t.config.publicUrl}/checkout/${res.body.sessionId}`);
    assert.equal(res.body.expiresAt, new Date(clock.now().getTime() + 7 * DAY).toISOString());
    assert.equal((await t.api(undefined, 'GET', new URL(res.body.linkUrl).pathname)).status, 200);
    clock.advance(6 * DAY);
    await tick();
    assert.equal((await get(res.body.paymentId)).status, 'pending');
    clock.advance(DAY + 1000);
    await tick();
    assert.equal((await get(res.body.paymentId)).status, 'expired');
    assert.deepEqual((await paymentEvents(t, res.body.paymentId)).map((e) => e.type), ['payment.expired']);
  });

  it('an authorization not captured within 7 days expires; the customer is not debited', async () => {
    const id = await paidPayment(t, m.key, { captureMode: 'MANUAL', amount: 4200 });
    clock.advance(7 * DAY - 1000);
    await tick();
    assert.equal((await get(id)).status, 'transit');
    clock.advance(2000);
    await tick();
    const payment = await get(id);
    assert.equal(payment.status, 'expired');
    assert.equal(payment.capturedAmount, 0);
    assert.equal(payment.attempts[0].status, 'cancelled');
    assert.deepEqual((await paymentEvents(t, id)).map((e) => e.type), ['payment.authorized', 'payment.expired']);
    assert.equal((await post(`/api/v1/payments/${id}/capture`)).body.code, 'PAYMENT_NOT_CAPTURABLE');
  });

  it('settlement: MOTU_TEST_SETTLEMENT_DELAY after capture, settled true and payment.settled', async () => {
    await tick(); // settle what earlier tests captured, so this one is the only news
    const id = await paidPayment(t, m.key, { amount: 1000, currency: 'XPF' });
    clock.advance(30_000);
    await tick();
    assert.equal((await get(id)).settled, false);
    clock.advance(31_000);
    await tick();
    const payment = await get(id);
    assert.equal(payment.settled, true);
    assert.equal(payment.status, 'captured');
    const settled = (await paymentEvents(t, id)).filter((e) => e.type === 'payment.settled');
    assert.equal(settled.length, 1);
    assert.equal(settled[0]!.data.settlement.settled, true);
    assert.equal(settled[0]!.data.settlement.mobupayCommission, 63);
    assert.equal(settled[0]!.data.amount, 838);
    await tick();
    assert.equal((await paymentEvents(t, id)).filter((e) => e.type === 'payment.settled').length, 1, 'settled once');
    const refund = await post(`/api/v1/payments/${id}/refund`, { amount: 100 });
    assert.equal(refund.status, 201);
    const after = await get(id);
    assert.equal(after.status, 'partially_refunded');
    assert.equal(after.settled, true);
  });

  it('GET /payments filters: status, storeId, reference, created range', async () => {
    const from = clock.now().toISOString();
    clock.advance(1000);
    const s1 = await createSession(t, m.key, { amount: 700, storeId: 'PPT-1' });
    clock.advance(1000);
    const paid = await paidPayment(t, m.key, { amount: 800 });
    clock.advance(1000);
    const to = clock.now().toISOString();
    const ids = async (query: string) => (await t.api(m.key, 'GET', `/api/v1/payments?${query}`)).body.data.map((p: any) => p.id);
    assert.deepEqual(await ids(`createdFrom=${from}&createdTo=${to}`), [paid, s1.paymentId]);
    assert.deepEqual(await ids(`createdFrom=${from}&status=captured`), [paid]);
    assert.deepEqual(await ids(`createdFrom=${from}&storeId=${store.id}`), [s1.paymentId]);
    const ref = (await get(paid)).reference;
    assert.deepEqual(await ids(`reference=${ref}`), [paid]);
    assert.equal((await t.api(m.key, 'GET', '/api/v1/payments?createdFrom=yesterday')).status, 400);
  });

  it('a refused card: refusal code and message on GET /payments/{id}, payment.failed', async () => {
    const session = await createSession(t, m.key, { amount: 900 });
    await paySession(t, session.sessionId, '4000000000009995');
    const payment = await get(session.paymentId);
    assert.equal(payment.status, 'failed');
    assert.equal(payment.refusalCode, 'insufficient_funds');
    assert.ok(payment.refusalMessage);
    assert.equal(payment.attempts[0].refusalCode, 'insufficient_funds');
    const failed = (await paymentEvents(t, session.paymentId)).find((e) => e.type === 'payment.failed')!;
    assert.equal(failed.data.refusalCode, 'insufficient_funds');
    assert.equal((await post(`/api/v1/payments/${session.paymentId}/refund`)).body.code, 'PAYMENT_NOT_REFUNDABLE');
  });
  it('payment.authorized of an XPF payment attached to a customer: customerId, customerCreated, paymentMethodId, amounts', async () => {
    const created = await createSession(t, m.key, {
      amount: 2000, currency: 'XPF', captureMode: 'MANUAL',
      extra: { email: 'new.buyer@example.com', saveCustomer: true, allowCustomerToSavePaymentMethod: true },
    });
    await paySession(t, created.sessionId, '5555555555554444', { saveCard: true });
    const authorized = (await paymentEvents(t, created.paymentId)).find((e) => e.type === 'payment.authorized')!;
    assert.match(authorized.data.customerId, /^cus_/);
    assert.equal(authorized.data.customerCreated, true);
    assert.match(authorized.data.paymentMethodId, /^pm_/);
    assert.equal(authorized.data.cardBrand, 'MASTERCARD');
    assert.equal(authorized.data.cardLast4, shownLast4('4444'));
    assert.equal(authorized.data.amount, 1676); // 2000 × 0.838
    assert.equal(authorized.data.currency, 'EUR');
    assert.equal(authorized.data.grossAmount, 2000);
    assert.equal(authorized.data.originalCurrency, 'XPF');
    assert.equal(authorized.data.store, null);
    assert.equal(authorized.data.settlement.currency, 'XPF');
    // nothing captured yet: no commission nor fixed fee, and this contract has no authorization fee
    assert.equal(authorized.data.settlement.capturedAmount, 0);
    assert.equal(authorized.data.settlement.mobupayCommission, 0);
    assert.equal(authorized.data.settlement.netAmount, 0);

    const customerId = authorized.data.customerId;
    const again = await createSession(t, m.key, { amount: 500, extra: { email: undefined, customerId } });
    await paySession(t, again.sessionId);
    const second = (await paymentEvents(t, again.paymentId)).find((e) => e.type === 'payment.authorized')!;
    assert.equal(second.data.customerId, customerId);
    assert.equal(second.data.customerCreated, false);
    assert.equal(second.data.paymentMethodId, null);
    const captured = (await paymentEvents(t, again.paymentId)).find((e) => e.type === 'payment.captured')!;
    assert.equal(captured.data.customerId, customerId);
    const list = await t.api(m.key, 'GET', `/api/v1/payments?customerId=${customerId}`);
    assert.deepEqual(list.body.data.map((p: any) => p.id).sort(), [created.paymentId, again.paymentId].sort());
  });
  it('live mode without an acquirer connector: 503 ACQUIRER_NOT_CONFIGURED', { skip: onlyOn('simulator', 'the live profile connects every contract') }, async () => {
    const res = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
      order: { amount: 1000, currency: 'EUR' }, redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const capture = await t.api(m.liveKey, 'POST', `/api/v1/payments/${res.body.paymentId}/capture`);
    assert.equal(capture.status, 503);
    assert.equal(capture.body.code, 'ACQUIRER_NOT_CONFIGURED');
    assert.equal((await t.api(m.liveKey, 'POST', `/api/v1/payments/${res.body.paymentId}/refund`)).body.code, 'ACQUIRER_NOT_CONFIGURED');
    assert.equal((await t.api(m.testKey, 'POST', `/api/v1/payments/${res.body.paymentId}/capture`)).status, 404, 'a test key never sees a live payment');
  });
  it('the worker role runs the payment jobs (startWorkers)', async () => {
    const session = await createSession(t, m.key, { expiresIn: 60 });
    clock.advance(61_000);
    const silent = { info() {}, warn() {}, error() {} };
    const workers = startWorkers(t.config, t.db, clock, silent);
    try {
      await eventually('the worker expires the session', async () => (await get(session.paymentId)).status === 'expired', 9000, 200);
    } finally {
      await workers.stop();
    }
    assert.equal((await get(session.paymentId)).status, 'expired');
  });
});
