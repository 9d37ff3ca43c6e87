// Hardening of payments and of what existing integrations rely on: the paid-status predicate, refunds beyond what
// is left, the settlement block of events where nothing was captured, saved cards the acquirer no longer knows,
// customers created from the buyer, the statement label at the acquirer, settled payments keeping `captured`,
// payment links with only an order, and `[]` bodies. Everything through HTTP, on every database.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { paymentSchedule } from './support/schedule.js';
import { settledBackToCaptured as settledIsNotAStatus } from '../src/db/migrations/0018_payments_hardening.js';
import { connectUnderLiveProfile, createMerchant, createCustomer } from './support/factories.js';
import { onlyOn } from './support/profile.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { createSession, paidPayment, paySession, tokenize } from './support/payments.js';
import { saveCard } from './support/wallet.js';
import { CARDS } from './support/cards.js';
import { paymentEvents, eventsOfType } from './support/events.js';

/** Saved by a zero-amount verification; every later charge is refused `card_unknown`. */
const UNKNOWN_LATER = '4000000000005126';

eachDatabase('hardening: payments and existing integrations', (dialect) => {
  const { t, m, clock } = withMerchantApp(dialect, { checkAnswers: true, clock: 'now', env: { MOTU_TEST_SETTLEMENT_DELAY: '60' } });
  const get = async (id: string) => (await t.api(m.key, 'GET', `/api/v1/payments/${id}`)).body;
  const post = (url: string, body?: unknown) => t.api(m.key, 'POST', url, body);
  const tick = () => {
    return paymentSchedule(t, clock).tick();
  };
  /** Settles what was captured so far (the simulator settles MOTU_TEST_SETTLEMENT_DELAY = 60 s after a capture). */
  const settleAll = async () => {
    clock.advance(61_000);
    await tick();
  };

  /** A 3-D Secure challenge left open, the same session paid by another card meanwhile, then refunded in full. */
  async function paidThenRefundedWhileChallenged(start: (sessionId: string, token: string) => Promise<string>) {
    const session = await createSession(t, m.key, { amount: 2_000 });
    const authorizationId = await start(session.sessionId, await tokenize(t, session.sessionId, CARDS.challenge));
    await paySession(t, session.sessionId, CARDS.visa);
    const refund = await post(`/api/v1/payments/${session.paymentId}/refund`, {});
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    assert.equal((await get(session.paymentId)).status, 'refunded');
    const bank = await t.api(undefined, 'POST', `/acquirer/v1/3ds/${authorizationId}`, 'result=authenticated', { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(bank.status, 303);
    return { session, returnUrl: new URL(String(bank.headers.location)) };
  }

  it('paid is one predicate: a customer back from 3-D Secure on a session paid then refunded is sent to the success path (hosted page and component)', { skip: onlyOn('simulator', 'the bank page of the simulator 3-D Secure (Monext has it in its widget: test/monext.test.ts)') }, async () => {
    const hosted = await paidThenRefundedWhileChallenged(async (sessionId, token) => {
      const res = await t.api(undefined, 'POST', `/checkout/${sessionId}/pay`, { token });
      assert.equal(res.body.next, 'challenge', JSON.stringify(res.body));
      return new URL(res.body.url).pathname.split('/').pop()!;
    });
    const page = await t.api(undefined, 'GET', `${hosted.returnUrl.pathname}${hosted.returnUrl.search}`);
    assert.equal(page.status, 200);
    assert.match(String(page.body), /\/checkout\/success\?sessionId=/, 'sent on as paid (through the success page), not to the expired page');
    assert.doesNotMatch(String(page.body), /\/expired/);

    const component = await paidThenRefundedWhileChallenged(async (sessionId, token) => {
      const res = await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${sessionId}/submit`, { token, defi3ds: 'redirection' });
      assert.equal(res.body.status, 'challenge', JSON.stringify(res.body));
      return new URL(res.body.challengeUrl).pathname.split('/').pop()!;
    });
    const back = await t.api(undefined, 'GET', `${component.returnUrl.pathname}${component.returnUrl.search}`);
    assert.equal(back.status, 303);
    assert.match(String(back.headers.location), /\/checkout\/success\?sessionId=/, String(back.headers.location));
  });
  it('a refund of a fully refunded payment is beyond what is left: 422 REFUND_EXCEEDS_CAPTURED, refundable 0', async () => {
    const id = await paidPayment(t, m.key, { amount: 1_500, currency: 'XPF' });
    assert.equal((await post(`/api/v1/payments/${id}/refund`, {})).status, 201);
    for (const body of [undefined, {}, { amount: 1 }, { amountCents: 1_500 }]) {
      const res = await post(`/api/v1/payments/${id}/refund`, body);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.code, 'REFUND_EXCEEDS_CAPTURED', JSON.stringify(body));
      assert.equal(res.body.details.refundable, 0);
      assert.equal(res.body.details.capturedAmount, 1_500);
      assert.equal(res.body.details.refundedAmount, 1_500);
    }
    const refunds = (await t.api(m.key, 'GET', `/api/v1/payments/${id}/refunds`)).body.data;
    assert.equal(refunds.length, 1, 'nothing was reserved by the refused requests');
  });
  it('`[]` (PHP json_encode of an empty array) is `{}` on capture, cancel and refund, one request for the Idempotency-Key', async () => {
    const manual = await paidPayment(t, m.key, { captureMode: 'MANUAL', amount: 3_000 });
    const captured = await post(`/api/v1/payments/${manual}/capture`, []);
    assert.equal(captured.status, 200, JSON.stringify(captured.body));
    assert.equal(captured.body.capturedAmount, 3_000);

    const refund = await t.api(m.key, 'POST', `/api/v1/payments/${manual}/refund`, [], { 'idempotency-key': 'php-refund-1' });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    assert.equal(refund.body.originalAmount, 3_000);
    for (const same of [{}, [], undefined]) {
      const replay = await t.api(m.key, 'POST', `/api/v1/payments/${manual}/refund`, same, { 'idempotency-key': 'php-refund-1' });
      assert.equal(replay.status, 201, `${JSON.stringify(same)}: ${JSON.stringify(replay.body)}`);
      assert.equal(replay.body.id, refund.body.id);
    }
    assert.equal((await t.api(m.key, 'GET', `/api/v1/payments/${manual}/refunds`)).body.data.length, 1);

    const toCancel = await paidPayment(t, m.key, { captureMode: 'MANUAL', amount: 1_000 });
    const cancelled = await post(`/api/v1/payments/${toCancel}/cancel`, []);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.status, 'cancelled');

    const other = await paidPayment(t, m.key, { amount: 1_000 });
    for (const bad of [[1], [{ amount: 1 }], 'x']) {
      const res = await post(`/api/v1/payments/${other}/refund`, bad);
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
    }
    assert.equal((await get(other)).refundedAmount, 0);
  });
  it('a payment link with only an order: 201, no redirectUrl or notificationUrl, the customer stays on the success page, events go to the endpoints', { skip: onlyOn('simulator', 'a live webhook endpoint must resolve to a public address, and no name resolves on the test machine') }, async () => {
    const endpoint = await post('/api/v1/webhook-endpoints', { url: 'https://hooks.example/motu', events: ['payment.*'] });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    const link = await post('/api/v1/payments/links', { order: { reference: 'APP-1', amount: 2_500, currency: 'XPF' } });
    assert.equal(link.status, 201, JSON.stringify(link.body));
    assert.match(link.body.linkId, /^lnk_/);
    const session = (await t.api(m.key, 'GET', `/api/v1/payments/sessions/${link.body.sessionId}`)).body;
    assert.equal(session.redirectUrl, null);
    assert.equal(session.failureRedirectUrl, null);
    assert.equal(session.notificationUrl, null);

    const next = await paySession(t, link.body.sessionId, CARDS.visa, { email: 'app.buyer@example.com' });
    assert.equal(next.next, 'redirect');
    assert.equal(next.url, `/checkout/success?sessionId=${link.body.sessionId}`);
    assert.equal((await get(link.body.paymentId)).status, 'captured');
    const events = await paymentEvents(t, link.body.paymentId);
    assert.deepEqual(events.map((e) => e.type), ['payment.authorized', 'payment.captured']);
    const deliveries = await t.db.kysely.selectFrom('webhook_deliveries').select(['url', 'endpoint_id'])
      .where('event_id', 'in', events.map((e) => e.id)).execute();
    assert.equal(deliveries.length, 2, JSON.stringify(deliveries));
    for (const d of deliveries) {
      assert.equal(d.endpoint_id, endpoint.body.id);
      assert.equal(d.url, 'https://hooks.example/motu');
    }

    // A session keeps both URLs required.
    const bare = await post('/api/v1/payments/sessions', { order: { reference: 'APP-2', amount: 2_500, currency: 'XPF' } });
    assert.equal(bare.status, 400);
    assert.equal(bare.body.code, 'VALIDATION_ERROR');
    const fields = (bare.body.fields as Array<{ field: string }>).map((f) => f.field).join(' ');
    assert.match(fields + JSON.stringify(bare.body.details ?? {}), /redirectUrl|notificationUrl/);
  });
  it('nothing captured, nothing billed but the authorization fee: the settlement block of every payment event (XPF and EUR)', async () => {
    // A merchant whose contract bills 2.50 % + 0.25 € + 0.10 € per authorization attempt, TVA 16 %.
    const feeMerchant = await createMerchant(t, 'Fare Moni');
    const contract = await t.admin('POST', `/admin/v1/merchants/${feeMerchant.id}/contracts`, {
      statementLabel: 'FARE MONI', commissionRate: 250, fixedFee: 25, authorizationFee: 10, taxRate: 1600, isDefault: true,
    });
    assert.equal(contract.status, 201, JSON.stringify(contract.body));
    await connectUnderLiveProfile(t, contract.body.id);
    const key = feeMerchant.key;
    const fees = (e: { data: any }) => ({
      capturedAmount: e.data.settlement.capturedAmount, mobupayCommission: e.data.settlement.mobupayCommission,
      netAmount: e.data.settlement.netAmount, currency: e.data.settlement.currency,
      lines: e.data.settlement.detailedFees.map((l: any) => [l.id, l.totalAmount, l.totalAmountEur]),
    });
    // Authorization fee: 10 c + 16 % = 11.6 → 12 c = 14.32 → 14 XPF.
    const uncaptured = {
      XPF: { capturedAmount: 0, mobupayCommission: 14, netAmount: -14, currency: 'XPF',
        lines: [['spirit_commission', 0, 0], ['spirit_fixed_fee', 0, 0], ['authorization_result', 14, 12]] },
      EUR: { capturedAmount: 0, mobupayCommission: 12, netAmount: -12, currency: 'EUR',
        lines: [['spirit_commission', 0, 0], ['spirit_fixed_fee', 0, 0], ['authorization_result', 12, 12]] },
    };
    // Captured 10,000: XPF 8,380 c → commission 210 + 34 = 244 c (291 XPF), fixed 29 c (35 XPF), authorization 12 c
    // (14 XPF); Σ 285 c → 340 XPF, net 9,660. EUR: 290 + 29 + 12 = 331, net 9,669.
    const captured = {
      XPF: { capturedAmount: 10_000, mobupayCommission: 340, netAmount: 9_660, currency: 'XPF',
        lines: [['spirit_commission', 291, 244], ['spirit_fixed_fee', 35, 29], ['authorization_result', 14, 12]] },
      EUR: { capturedAmount: 10_000, mobupayCommission: 331, netAmount: 9_669, currency: 'EUR',
        lines: [['spirit_commission', 290, 290], ['spirit_fixed_fee', 29, 29], ['authorization_result', 12, 12]] },
    };
    for (const currency of ['XPF', 'EUR'] as const) {
      // Authorized, then cancelled by the merchant: both events bill the authorization alone.
      const cancelled = await paidPayment(t, key, { captureMode: 'MANUAL', amount: 10_000, currency });
      assert.equal((await t.api(key, 'POST', `/api/v1/payments/${cancelled}/cancel`)).status, 200);
      const cancelledEvents = await paymentEvents(t, cancelled);
      assert.deepEqual(cancelledEvents.map((e) => e.type).sort(), ['payment.authorized', 'payment.cancelled']);
      for (const e of cancelledEvents) assert.deepEqual(fees(e), uncaptured[currency], `${currency} ${e.type} (authorized, then cancelled)`);

      // Never authorized (one refused attempt), then cancelled: the attempt's fee only.
      const refused = await createSession(t, key, { amount: 10_000, currency });
      await paySession(t, refused.sessionId, CARDS.declined);
      assert.equal((await t.api(key, 'POST', `/api/v1/payments/${refused.paymentId}/cancel`)).status, 200);
      const refusedCancel = (await paymentEvents(t, refused.paymentId)).find((e) => e.type === 'payment.cancelled')!;
      assert.deepEqual(fees(refusedCancel), uncaptured[currency], `${currency} payment.cancelled of a never-authorized payment`);

      // Never tried at all: nothing billed.
      const untried = await createSession(t, key, { amount: 10_000, currency });
      assert.equal((await t.api(key, 'POST', `/api/v1/payments/${untried.paymentId}/cancel`)).status, 200);
      const untriedCancel = (await paymentEvents(t, untried.paymentId)).find((e) => e.type === 'payment.cancelled')!;
      assert.equal(untriedCancel.data.settlement.mobupayCommission, 0);
      assert.equal(untriedCancel.data.settlement.netAmount, 0);

      // Captured, partially refunded, refunded, settled: the whole fees on what was captured.
      const paid = await paidPayment(t, key, { captureMode: 'MANUAL', amount: 10_000, currency });
      assert.equal((await t.api(key, 'GET', `/api/v1/payments/${paid}`)).body.settlement.netAmount, uncaptured[currency].netAmount);
      assert.equal((await t.api(key, 'POST', `/api/v1/payments/${paid}/capture`)).status, 200);
      assert.equal((await t.api(key, 'POST', `/api/v1/payments/${paid}/refund`, { amount: 4_000 })).status, 201);
      clock.advance(1_000);
      assert.equal((await t.api(key, 'POST', `/api/v1/payments/${paid}/refund`, {})).status, 201);
      await settleAll();
      const events = await paymentEvents(t, paid);
      assert.deepEqual(events.map((e) => e.type).sort(),
        ['payment.authorized', 'payment.captured', 'payment.partially_refunded', 'payment.refunded', 'payment.settled']);
      for (const e of events) {
        const expected = e.type === 'payment.authorized' ? uncaptured[currency] : captured[currency];
        const got = fees(e);
        got.lines = got.lines.filter((l: any[]) => l[0] !== 'refund');
        assert.deepEqual(got, expected, `${currency} ${e.type}`);
      }
    }
  });
  it('settled is not a status: after settlement GET answers captured with settled true and settledAt; refunds still work; payment.settled is sent', async () => {
    await settleAll(); // what earlier tests captured
    const id = await paidPayment(t, m.key, { amount: 5_000 });
    const before = await get(id);
    assert.equal(before.status, 'captured');
    assert.equal(before.settled, false);
    assert.equal(before.settledAt, null);
    await settleAll();
    const payment = await get(id);
    assert.equal(payment.status, 'captured');
    assert.equal(payment.settled, true);
    assert.ok(payment.settledAt && !Number.isNaN(Date.parse(payment.settledAt)), String(payment.settledAt));
    const listed = (await t.api(m.key, 'GET', `/api/v1/payments?reference=${payment.reference}`)).body.data;
    assert.deepEqual(listed.map((p: any) => [p.id, p.status, p.settled, p.settledAt]), [[id, 'captured', true, payment.settledAt]]);
    const settled = (await paymentEvents(t, id)).filter((e) => e.type === 'payment.settled');
    assert.equal(settled.length, 1);
    assert.equal(settled[0]!.data.status, 'captured');
    assert.equal(settled[0]!.data.settlement.settled, true);
    assert.equal((await t.api(m.key, 'GET', '/api/v1/payments?status=settled')).status, 400);

    const refund = await post(`/api/v1/payments/${id}/refund`, { amount: 1_000 });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    const refunded = await get(id);
    assert.equal(refunded.status, 'partially_refunded');
    assert.equal(refunded.settled, true);

    // A payment an earlier version left `settled` reads `captured` after the migration.
    const old = await paidPayment(t, m.key, { amount: 700 });
    await settleAll();
    await t.db.kysely.updateTable('payments').set({ status: 'settled' as never }).where('id', '=', old).execute();
    await settledIsNotAStatus(t.db.kysely);
    const migrated = await get(old);
    assert.equal(migrated.status, 'captured');
    assert.equal(migrated.settled, true);
    assert.equal((await post(`/api/v1/payments/${old}/refund`, {})).status, 201);
  });
  it("the contract's statementLabel goes to the acquirer with every authorization: hosted page, card component, merchant-initiated", { skip: onlyOn('simulator', 'reads the simulator record; the softDescriptor sent to Monext is checked in test/monext.test.ts') }, async () => {
    const labelOf = async (paymentId: string) => (await t.db.kysely.selectFrom('acquirer_authorizations').select('statement_label')
      .where('merchant_reference', '=', paymentId).execute()).map((r) => r.statement_label);
    const other = await t.admin('POST', `/admin/v1/merchants/${m.id}/contracts`, { statementLabel: 'MONI PPT', commissionRate: 250, fixedFee: 25 });
    assert.equal(other.status, 201, JSON.stringify(other.body));

    const hosted = await paidPayment(t, m.key, { amount: 1_000 });
    assert.deepEqual(await labelOf(hosted), ['FARE UTE'], 'the default contract: the merchant name, upper case');
    const chosen = await paidPayment(t, m.key, { amount: 1_000, extra: { merchantConfigId: other.body.id } });
    assert.deepEqual(await labelOf(chosen), ['MONI PPT']);

    const component = await createSession(t, m.key, { amount: 1_000, extra: { merchantConfigId: other.body.id } });
    const submitted = await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${component.sessionId}/submit`, { token: await tokenize(t, component.sessionId, CARDS.declined) });
    assert.equal(submitted.body.status, 'failed', JSON.stringify(submitted.body));
    const retried = await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${component.sessionId}/submit`, { token: await tokenize(t, component.sessionId, CARDS.visa) });
    assert.equal(retried.body.status, 'succeeded', JSON.stringify(retried.body));
    assert.deepEqual(await labelOf(component.paymentId), ['MONI PPT', 'MONI PPT'], 'a refused attempt carries it too');

    const customerId = await createCustomer(t, m.key);
    const pm = (await saveCard(t, m.key, customerId, CARDS.visa)).result.paymentMethodId;
    const mit = await post('/api/v1/payments', {
      paymentMethodId: pm, order: { reference: 'SUB-9', amount: 1_200, currency: 'XPF' }, notificationUrl: 'https://shop.example/hook',
      merchantConfigId: other.body.id,
    });
    assert.equal(mit.status, 201, JSON.stringify(mit.body));
    assert.deepEqual(await labelOf(mit.body.id), ['MONI PPT']);
  });
  it('a charge refused card_unknown removes the saved card (unknown_at_acquirer) with the failure: merchant-initiated and hosted one-click', { skip: onlyOn('simulator', 'a simulator card that becomes unknown to the acquirer after it is saved') }, async () => {
    const removedEvents = async (pm: string) => (await eventsOfType(t, 'payment_method.removed')).filter((e) => e.data.id === pm);
    const customerId = await createCustomer(t, m.key);
    const saved = await saveCard(t, m.key, customerId, UNKNOWN_LATER);
    assert.equal(saved.result.status, 'succeeded', 'the verification of 5126 succeeds');
    const pm = saved.result.paymentMethodId;

    const mit = await post('/api/v1/payments', {
      paymentMethodId: pm, order: { reference: 'SUB-U1', amount: 900, currency: 'EUR' }, notificationUrl: 'https://shop.example/hook',
    });
    assert.equal(mit.status, 201, JSON.stringify(mit.body));
    assert.equal(mit.body.status, 'failed');
    assert.equal(mit.body.refusalCode, 'card_unknown');
    const card = await t.api(m.key, 'GET', `/api/v1/payment-methods/${pm}`);
    assert.equal(card.body.status, 'removed');
    assert.equal(card.body.removedReason, 'unknown_at_acquirer');
    const removed = await removedEvents(pm);
    assert.equal(removed.length, 1);
    assert.equal(removed[0].data.reason, 'unknown_at_acquirer');
    assert.equal(removed[0].data.customerId, customerId);
    const failed = (await paymentEvents(t, mit.body.id)).find((e) => e.type === 'payment.failed')!;
    assert.equal(failed.data.refusalCode, 'card_unknown');
    assert.equal(removed[0].createdAt, failed.createdAt, 'written with the failure');
    const again = await post('/api/v1/payments', {
      paymentMethodId: pm, order: { reference: 'SUB-U2', amount: 900, currency: 'EUR' }, notificationUrl: 'https://shop.example/hook',
    });
    assert.equal(again.status, 400, 'a removed card is not charged again');
    const listed = (await t.api(m.key, 'GET', `/api/v1/customers/${customerId}/payment-methods`)).body.data;
    assert.equal(listed.filter((p: any) => p.id === pm && p.status === 'active').length, 0);

    // Hosted one-click: the customer picks the saved card on the page.
    const other = await createCustomer(t, m.key);
    const oneClick = (await saveCard(t, m.key, other, UNKNOWN_LATER)).result.paymentMethodId;
    const session = await createSession(t, m.key, { amount: 1_100, extra: { customerId: other, email: undefined } });
    const res = await t.api(undefined, 'POST', `/checkout/${session.sessionId}/pay`, { paymentMethodId: oneClick });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await get(session.paymentId)).refusalCode, 'card_unknown');
    // The customer is told why, and to use another card, in the page's language.
    const failedPage = await t.app.inject({ method: 'GET', url: `/checkout/failed?sessionId=${session.sessionId}` });
    assert.equal(failedPage.statusCode, 200);
    assert.match(failedPage.body, /Votre banque ne reconnaît plus cette carte\. Utilisez une autre carte\./);
    const gone = await t.api(m.key, 'GET', `/api/v1/payment-methods/${oneClick}`);
    assert.equal(gone.body.status, 'removed');
    assert.equal(gone.body.removedReason, 'unknown_at_acquirer');
    assert.equal((await removedEvents(oneClick)).length, 1);
    // The page no longer offers it: paying with it again is refused before the acquirer.
    const retry = await t.api(undefined, 'POST', `/checkout/${session.sessionId}/pay`, { paymentMethodId: oneClick });
    assert.equal(retry.status, 400, JSON.stringify(retry.body));
  });
  it("a card typed by a payer who gives an existing customer's email is never saved to that customer's wallet, nor the payment attached", async () => {
    const victim = await t.api(m.key, 'POST', '/api/v1/customers', { email: 'victim@example.pf', name: 'Victim' });
    assert.equal(victim.status, 201, JSON.stringify(victim.body));
    const customersBefore = await t.db.kysely.selectFrom('customers').select('id').where('merchant_id', '=', m.id).execute();
    const session = await createSession(t, m.key, {
      captureMode: 'MANUAL', extra: { email: undefined, saveCustomer: true, allowCustomerToSavePaymentMethod: true },
    });
    await paySession(t, session.sessionId, '5555555555554444', { email: 'Victim@Example.PF', saveCard: true });
    const payment = await get(session.paymentId);
    assert.equal(payment.status, 'transit', 'the payment itself goes through');
    assert.equal(payment.customerId, null);
    const authorized = (await paymentEvents(t, session.paymentId)).find((e) => e.type === 'payment.authorized')!;
    assert.equal(authorized.data.customerId, null);
    assert.equal(authorized.data.customerCreated, false);
    assert.equal(authorized.data.paymentMethodId, null);
    const wallet = (await t.api(m.key, 'GET', `/api/v1/customers/${victim.body.id}/payment-methods`)).body.data;
    assert.deepEqual(wallet, [], "nothing added to the existing customer's wallet");
    assert.equal((await eventsOfType(t, 'payment_method.added')).filter((e) => e.data.customerId === victim.body.id).length, 0);
    const customersAfter = await t.db.kysely.selectFrom('customers').select('id').where('merchant_id', '=', m.id).execute();
    assert.equal(customersAfter.length, customersBefore.length, 'no second customer with the same email');

    // A one-click session of that customer offers nothing the stranger typed.
    const oneClick = await createSession(t, m.key, { extra: { email: undefined, customerId: victim.body.id } });
    const offered = await t.api(undefined, 'POST', `/checkout/${oneClick.sessionId}/pay`, { paymentMethodId: 'pm_anything' });
    assert.equal(offered.status, 400);

    // A new email still creates its customer and saves the card (customerCreated true).
    const fresh = await createSession(t, m.key, {
      captureMode: 'MANUAL', extra: { email: undefined, saveCustomer: true, allowCustomerToSavePaymentMethod: true },
    });
    await paySession(t, fresh.sessionId, '5555555555554444', { email: 'first.time@example.pf', saveCard: true });
    const created = (await paymentEvents(t, fresh.paymentId)).find((e) => e.type === 'payment.authorized')!;
    assert.match(created.data.customerId, /^cus_/);
    assert.equal(created.data.customerCreated, true);
    assert.match(created.data.paymentMethodId, /^pm_/);
  });

  it("saveCustomer with order.buyer creates the customer with the buyer's name, phone and billing address; customer.created carries them", async () => {
    const session = await createSession(t, m.key, {
      extra: {
        email: 'hina.t@example.pf', saveCustomer: true,
        order: {
          reference: 'ODOO-42', amount: 4_200, currency: 'XPF',
          buyer: {
            id: 'res.partner-7', email: 'hina.t@example.pf', phone: '+689 87 12 34 56', firstName: 'Hina', lastName: 'Teriitahi',
            billingAddress: { streetNumber: '12', street: 'Rue des Remparts', city: 'Papeete', postalCode: '98714', country: 'PF', firstName: 'Hina', lastName: 'Teriitahi' },
          },
        },
      },
    });
    await paySession(t, session.sessionId);
    const authorized = (await paymentEvents(t, session.paymentId)).find((e) => e.type === 'payment.authorized')!;
    assert.equal(authorized.data.customerCreated, true);
    const customerId = authorized.data.customerId;
    const expected = {
      id: customerId, email: 'hina.t@example.pf', name: 'Hina Teriitahi', phone: '+689 87 12 34 56',
      address: { streetNumber: '12', street: 'Rue des Remparts', city: 'Papeete', postalCode: '98714', country: 'PF' },
    };
    const created = (await eventsOfType(t, 'customer.created')).find((e) => e.data.id === customerId)!;
    assert.ok(created, 'customer.created sent');
    assert.deepEqual(
      { id: created.data.id, email: created.data.email, name: created.data.name, phone: created.data.phone, address: created.data.address },
      expected,
    );
    const read = (await t.api(m.key, 'GET', `/api/v1/customers/${customerId}`)).body;
    assert.deepEqual({ id: read.id, email: read.email, name: read.name, phone: read.phone, address: read.address }, expected);
  });
});
