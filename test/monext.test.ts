// Live payments through Monext (docs/live.md), against the contract-faithful fake of Monext's Retail API
// (test/support/fake-monext.ts, on 127.0.0.1): a contract connected with sealed credentials, a payment in the widget
// (authorize, full and partial capture, cancel, refunds), 3-D Secure and refusals, a card registration (zero amount)
// then a merchant-initiated charge, and Monext's hostile answers (timeouts after Monext acted, 5xx, bodies that are not
// JSON, unknown statuses): no payment loses its state, nothing is charged or refunded twice. Both databases. The last
// suite runs against Monext's homologation environment when MONEXT_* credentials are in the environment.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eachDatabase, ManualClock, startApp, type TestApp } from './support/harness.js';
import { createCustomer, createMerchant, type MerchantFixture } from './support/factories.js';
import { FAKE_MONEXT_CREDENTIALS, FakeMonext, MONEXT_CARDS } from './support/fake-monext.js';
import { paymentSchedule, type Schedule } from './support/schedule.js';
import { paymentEvents } from './support/events.js';
import { MonextClient } from '../src/acquirer/monext/monext.client.js';
import type { MonextCredentials } from '../src/acquirer/monext/monext.config.js';
import type { MonextContext } from '../src/acquirer/monext/monext.context.js';
import { readSession } from '../src/acquirer/monext/monext.outcomes.js';
import { sessionBody } from '../src/acquirer/monext/monext.widget.js';

const MONEXT_ENV = ['MONEXT_MERCHANT_ID', 'MONEXT_ACCESS_KEY', 'MONEXT_POINT_OF_SALE', 'MONEXT_CONTRACT_NUMBER'] as const;

eachDatabase('live payments through Monext', (dialect) => {
  let t: TestApp;
  let m: MerchantFixture;
  let fake: FakeMonext;
  let clock: ManualClock;
  let schedule: Schedule;

  before(async () => {
    fake = await new FakeMonext().start();
    clock = new ManualClock(new Date());
    t = await startApp(dialect, { clock, env: { MOTU_MONEXT_API_URL: fake.url, MOTU_MONEXT_TIMEOUT_MS: '1500' } });
    fake.holdMs = 2500;
    m = await createMerchant(t, 'Monext Shop');
    schedule = paymentSchedule(t, clock);
  });
  after(async () => {
    await t.close();
    await fake.stop();
  });

  const connect = () => t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, {
    acquirer: 'monext', monext: { ...FAKE_MONEXT_CREDENTIALS, environment: 'homologation' },
  });

  /** A live session paid in Monext's widget: the page asks for a widget session, the cardholder pays in it, the page sends the token. */
  async function widgetPayment(options: { amount?: number; captureMode?: 'AUTO' | 'MANUAL'; card?: string } = {}) {
    const created = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
      order: { reference: `ORD-${Math.random().toString(36).slice(2, 8)}`, amount: options.amount ?? 10_000, currency: 'EUR' },
      captureMode: options.captureMode ?? 'MANUAL', email: 'buyer@example.com',
      redirectUrl: 'https://shop.example/return', notificationUrl: 'https://shop.example/hook',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const entry = await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: created.body.sessionId });
    assert.equal(entry.status, 201, JSON.stringify(entry.body));
    fake.payInWidget(entry.body.token, options.card ?? MONEXT_CARDS.visa);
    const paid = await t.api(undefined, 'POST', `/checkout/${created.body.sessionId}/pay`, { token: entry.body.token });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    return { paymentId: created.body.paymentId as string, sessionId: created.body.sessionId as string, token: entry.body.token as string, next: paid.body };
  }
  const payment = async (id: string) => (await t.api(m.liveKey, 'GET', `/api/v1/payments/${id}`)).body;
  const transactionOf = async (id: string) => {
    const p = await t.db.kysely.selectFrom('payments').select('acquirer_authorization_id').where('id', '=', id).executeTakeFirstOrThrow();
    return p.acquirer_authorization_id!.split('.')[1]!;
  };

  it('a live contract without a connector keeps its 503', async () => {
    const created = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
      order: { amount: 1000, currency: 'EUR' }, redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h',
    });
    const capture = await t.api(m.liveKey, 'POST', `/api/v1/payments/${created.body.paymentId}/capture`);
    assert.equal(capture.status, 503);
    assert.equal(capture.body.code, 'ACQUIRER_NOT_CONFIGURED');
    const entry = await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: created.body.sessionId });
    assert.equal(entry.body.code, 'ACQUIRER_NOT_CONFIGURED');
  });

  it('connects a contract to Monext: credentials checked, sealed at rest, the access key never shown', async () => {
    const missing = await t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, { acquirer: 'monext' });
    assert.equal(missing.status, 400, JSON.stringify(missing.body));
    const res = await connect();
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.acquirer, 'monext');
    assert.deepEqual(res.body.monext, {
      merchantId: FAKE_MONEXT_CREDENTIALS.merchantId, pointOfSaleReference: 'POS_MOTU', contractNumber: 'CB_1234567',
      environment: 'homologation', accessKeySet: true,
    });
    assert.equal(JSON.stringify(res.body).includes(FAKE_MONEXT_CREDENTIALS.accessKey), false);
    const merchant = await t.admin('GET', `/admin/v1/merchants/${m.id}`);
    assert.equal(JSON.stringify(merchant.body).includes(FAKE_MONEXT_CREDENTIALS.accessKey), false);
    const row = await t.db.kysely.selectFrom('contracts').select('acquirer_config_sealed').where('id', '=', m.defaultContractId).executeTakeFirstOrThrow();
    assert.match(row.acquirer_config_sealed!, /^v1:/);
    assert.equal(row.acquirer_config_sealed!.includes(FAKE_MONEXT_CREDENTIALS.accessKey), false);
    // A later patch keeps the access key it does not repeat.
    const env = await t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, { monext: { environment: 'homologation' } });
    assert.equal(env.body.monext.accessKeySet, true);
    // Test mode never goes to Monext.
    assert.equal((await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'live', number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123', session: 'ses_x' })).status, 503);
  });

  it('authorizes in the widget, captures in part, refunds in part then the rest (Basic auth, amounts, references)', async () => {
    const before = fake.requests.length;
    const { paymentId, next } = await widgetPayment({ amount: 10_000 });
    assert.equal(next.next, 'redirect');
    let p = await payment(paymentId);
    assert.equal(p.status, 'transit');
    assert.equal(p.authorizedAmount, 10_000);
    const tx = await transactionOf(paymentId);
    const created = fake.requests.slice(before).find((r) => r.path === '/v1/checkout/payments/sessions')!;
    assert.equal(created.body.order.reference, paymentId);
    assert.equal(created.body.payment.capture, 'MANUAL');
    assert.equal(created.body.payment.softDescriptor, 'MONEXT SHOP');
    assert.ok(fake.requests.slice(before).every((r) => r.auth === 'ok'));

    const capture = await t.api(m.liveKey, 'POST', `/api/v1/payments/${paymentId}/capture`, { amount: 6_000 });
    assert.equal(capture.status, 200, JSON.stringify(capture.body));
    assert.equal(capture.body.status, 'captured');
    assert.deepEqual(fake.operations(tx, 'CAPTURE').map((o) => o.amount), [6_000]);

    const partial = await t.api(m.liveKey, 'POST', `/api/v1/payments/${paymentId}/refund`, { amount: 1_000 });
    assert.equal(partial.status, 201, JSON.stringify(partial.body));
    assert.equal(partial.body.status, 'succeeded');
    const rest = await t.api(m.liveKey, 'POST', `/api/v1/payments/${paymentId}/refund`, {});
    assert.equal(rest.body.status, 'succeeded');
    assert.deepEqual(fake.operations(tx, 'REFUND').map((o) => o.amount), [1_000, 5_000]);
    p = await payment(paymentId);
    assert.equal(p.status, 'refunded');
    const over = await t.api(m.liveKey, 'POST', `/api/v1/payments/${paymentId}/refund`, { amount: 1 });
    assert.equal(over.status, 422);
    const types = (await paymentEvents(t, paymentId)).map((e) => e.type);
    assert.deepEqual(types.filter((x) => x.startsWith('payment.')), ['payment.authorized', 'payment.captured', 'payment.partially_refunded', 'payment.refunded']);
  });

  it('AUTO capture, full capture and cancel', async () => {
    const auto = await widgetPayment({ captureMode: 'AUTO', amount: 2_500 });
    assert.equal((await payment(auto.paymentId)).status, 'captured');
    assert.deepEqual(fake.operations(await transactionOf(auto.paymentId), 'CAPTURE').map((o) => o.amount), [2_500]);

    const cancelled = await widgetPayment({ amount: 3_000 });
    const res = await t.api(m.liveKey, 'POST', `/api/v1/payments/${cancelled.paymentId}/cancel`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'cancelled');
    assert.equal(fake.operations(await transactionOf(cancelled.paymentId), 'CANCEL_AUTHORIZATION').length, 1);
  });

  it('refusals, the co-badged CB card, 3-D Secure in the widget and a cardholder who leaves', async () => {
    const declined = await widgetPayment({ card: MONEXT_CARDS.declined });
    assert.equal(declined.next.next, 'redirect');
    let p = await payment(declined.paymentId);
    assert.equal(p.status, 'failed');
    assert.equal(p.refusalCode, 'card_declined');
    const poor = await widgetPayment({ card: MONEXT_CARDS.insufficient });
    assert.equal((await payment(poor.paymentId)).refusalCode, 'insufficient_funds');

    const cb = await widgetPayment({ card: MONEXT_CARDS.cb });
    p = await payment(cb.paymentId);
    assert.equal(p.status, 'transit');
    assert.equal(p.attempts[0].network, 'CB');

    // 3-D Secure: still in the widget when the page asks → the challenge (Monext's page); once passed → authorized.
    // Monext's page comes from the session's creation (reading the session does not give it).
    const challenged = await widgetPayment({ card: MONEXT_CARDS.challenge });
    assert.equal(challenged.next.next, 'challenge');
    assert.equal(challenged.next.url, `${fake.url}/webpayment/${challenged.token}`);
    fake.finishChallenge(challenged.token, true);
    // Monext sends the browser back with the session's token as `paylinetoken`.
    const back = await t.app.inject({ method: 'GET', url: `/acquirer/v1/monext/return?session=${challenged.sessionId}&paylinetoken=${challenged.token}` });
    assert.equal(back.statusCode, 302);
    assert.equal((await payment(challenged.paymentId)).status, 'transit');

    // A failed 3-D Secure: Monext ends the session CANCELLED 03022 with the transaction it attempted. A refusal, not a
    // buyer who left: the payment fails, its attempt shows the refusal, the merchant hears of it.
    const failed3ds = await widgetPayment({ card: MONEXT_CARDS.challenge });
    fake.finishChallenge(failed3ds.token, false);
    assert.equal(fake.sessions.get(failed3ds.token)!.result.title, 'CANCELLED');
    const notify = await t.app.inject({ method: 'GET', url: `/acquirer/v1/monext/notify?session=${failed3ds.sessionId}&token=${failed3ds.token}&notificationType=WEBTRS` });
    assert.equal(notify.statusCode, 200);
    p = await payment(failed3ds.paymentId);
    assert.equal(p.status, 'failed');
    assert.equal(p.refusalCode, 'authentication_failed');
    assert.deepEqual(p.attempts.map((a: any) => [a.status, a.refusalCode]), [['refused', 'authentication_failed']]);
    assert.equal((await paymentEvents(t, failed3ds.paymentId)).filter((e) => e.type === 'payment.failed').length, 1);

    // The buyer who leaves the widget (CANCELLED 02319, no transaction): nothing recorded, the payment still pending.
    const left = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
      order: { amount: 800, currency: 'EUR' }, email: 'b@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h',
    });
    const leftToken = (await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: left.body.sessionId })).body.token;
    fake.cancelInWidget(leftToken);
    assert.equal((await t.api(undefined, 'POST', `/checkout/${left.body.sessionId}/pay`, { token: leftToken })).body.next, 'error');
    p = await payment(left.body.paymentId);
    assert.equal(p.status, 'pending');
    assert.deepEqual(p.attempts, []);

    // A token made for another payment is refused; an unknown one too.
    const other = await widgetPayment({ amount: 700 });
    const created = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
      order: { amount: 700, currency: 'EUR' }, email: 'b@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h',
    });
    const stolen = await t.api(undefined, 'POST', `/checkout/${created.body.sessionId}/pay`, { token: other.token });
    assert.equal(stolen.body.next, 'error');
    assert.equal((await payment(created.body.paymentId)).status, 'pending');
  });

  it('a card registered at zero amount in the widget, then charged by the merchant (subscription-style)', async () => {
    const customerId = await createCustomer(t, m.liveKey);
    const ws = await t.api(m.liveKey, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl: 'https://shop.example/wallet' });
    assert.equal(ws.status, 201, JSON.stringify(ws.body));
    const entry = await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: ws.body.sessionId });
    assert.equal(entry.status, 201, JSON.stringify(entry.body));
    const started = fake.requests.filter((r) => r.path === '/v1/checkout/payments/sessions').at(-1)!;
    // Verifying a card without charging it: an ACCOUNT_VERIFICATION (the fake, as Monext, refuses a zero-amount ONE_OFF).
    assert.equal(started.body.order.amount, 0);
    assert.equal(started.body.payment.paymentType, 'ACCOUNT_VERIFICATION');
    assert.match(started.body.walletId, /^motu_/);
    fake.payInWidget(entry.body.token, MONEXT_CARDS.visa);
    const saved = await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${ws.body.sessionId}/submit`, { token: entry.body.token });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    const pm = (await t.api(m.liveKey, 'GET', `/api/v1/customers/${customerId}/payment-methods`)).body.data[0];
    assert.ok(pm?.id, 'a saved card');

    const charge = await t.api(m.liveKey, 'POST', '/api/v1/payments', {
      paymentMethodId: pm.id, order: { reference: 'SUB-1', amount: 1_500, currency: 'EUR' }, captureMode: 'AUTO',
      notificationUrl: 'https://shop.example/hook',
    }, { 'Idempotency-Key': 'renewal-1' });
    assert.equal(charge.status, 201, JSON.stringify(charge.body));
    assert.equal(charge.body.status, 'captured');
    const direct = fake.requests.filter((r) => r.path === '/v1/checkout/payments').at(-1)!;
    // A one-off charge the merchant starts: UNSCHEDULED, linked to the registration's transaction (sent as ONE_OFF, the
    // issuer would ask for a 3-D Secure nobody is there to pass: the fake refuses it 01131).
    assert.equal(direct.body.payment.paymentType, 'UNSCHEDULED');
    assert.equal(direct.body.payment.capture, 'AUTOMATIC');
    assert.equal(direct.body.order.reference, charge.body.id);
    assert.match(direct.body.issuerTransactionId, /^ISS/);
    // The same Idempotency-Key: the same payment, Monext not asked again.
    const count = fake.requests.filter((r) => r.path === '/v1/checkout/payments').length;
    const again = await t.api(m.liveKey, 'POST', '/api/v1/payments', {
      paymentMethodId: pm.id, order: { reference: 'SUB-1', amount: 1_500, currency: 'EUR' }, captureMode: 'AUTO',
      notificationUrl: 'https://shop.example/hook',
    }, { 'Idempotency-Key': 'renewal-1' });
    assert.equal(again.body.id, charge.body.id);
    assert.equal(fake.requests.filter((r) => r.path === '/v1/checkout/payments').length, count);
  });

  it("a second widget finished after the payment was paid: Monext's extra authorization is given back", async () => {
    const first = await widgetPayment({ amount: 1_200 });
    const second = await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: first.sessionId });
    assert.equal(second.status, 410, 'a paid session starts no widget');
    // The cardholder had a second tab open on a widget made before the payment: it authorizes on its own.
    const created = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
      order: { amount: 1_300, currency: 'EUR' }, captureMode: 'MANUAL', email: 'b@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h',
    });
    const tabA = (await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: created.body.sessionId })).body.token;
    const tabB = (await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: created.body.sessionId })).body.token;
    fake.payInWidget(tabA, MONEXT_CARDS.visa);
    assert.equal((await t.api(undefined, 'POST', `/checkout/${created.body.sessionId}/pay`, { token: tabA })).body.next, 'redirect');
    fake.payInWidget(tabB, MONEXT_CARDS.cb);
    const notify = await t.app.inject({ method: 'POST', url: `/acquirer/v1/monext/notify?session=${created.body.sessionId}&token=${tabB}` });
    assert.equal(notify.statusCode, 200);
    const kept = await transactionOf(created.body.paymentId);
    const txB = fake.sessions.get(tabB)!.transactions[0]!;
    assert.notEqual(txB, kept);
    assert.equal(fake.operations(txB, 'CANCEL_AUTHORIZATION').length, 1, "tab B's authorization cancelled at Monext");
    assert.equal(fake.operations(kept, 'CANCEL_AUTHORIZATION').length, 0, "the payment's own authorization kept");
    assert.equal((await payment(created.body.paymentId)).status, 'transit');
    // Another paid session named with this payment's widget token (its notification, its pay call): nothing is given back.
    await t.app.inject({ method: 'POST', url: `/acquirer/v1/monext/notify?session=${first.sessionId}&token=${tabA}` });
    await t.api(undefined, 'POST', `/checkout/${first.sessionId}/pay`, { token: tabA });
    assert.equal(fake.operations(kept, 'CANCEL_AUTHORIZATION').length, 0, "another session cannot give back this payment's authorization");
    assert.equal((await payment(created.body.paymentId)).status, 'transit');
  });

  it("Monext's notification and its return after the page paid: answered from Motu's rows, Monext not asked again", async () => {
    const paid = await widgetPayment({ amount: 1_250 });
    const before = fake.requests.length;
    const notify = await t.app.inject({ method: 'POST', url: `/acquirer/v1/monext/notify?session=${paid.sessionId}&token=${paid.token}` });
    assert.equal(notify.statusCode, 200);
    const back = await t.app.inject({ method: 'GET', url: `/acquirer/v1/monext/return?session=${paid.sessionId}&paylinetoken=${paid.token}` });
    assert.deepEqual([back.statusCode, back.headers.location], [302, `/checkout/success?sessionId=${paid.sessionId}`]);
    assert.deepEqual(fake.requests.slice(before).map((r) => `${r.method} ${r.path}`), [], 'no call to Monext');
    const tx = await transactionOf(paid.paymentId);
    assert.equal(fake.operations(tx, 'CANCEL_AUTHORIZATION').length, 0);
    assert.equal((await payment(paid.paymentId)).status, 'transit');
    assert.deepEqual((await paymentEvents(t, paid.paymentId)).map((e) => e.type).filter((x) => x === 'payment.authorized'), ['payment.authorized']);
  });

  it('Pay sent twice at once with the same widget token: one authorization, kept at Monext, one card attempt', async () => {
    const created = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
      order: { amount: 1_400, currency: 'EUR' }, captureMode: 'MANUAL', email: 'b@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h',
    });
    const token = (await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: created.body.sessionId })).body.token;
    fake.payInWidget(token, MONEXT_CARDS.visa);
    // A double click, or a browser retrying the request: both reach Motu before either has answered.
    const [a, b] = await Promise.all([1, 2].map(() => t.api(undefined, 'POST', `/checkout/${created.body.sessionId}/pay`, { token })));
    assert.deepEqual([a!.status, b!.status].sort(), [200, 200], JSON.stringify([a!.body, b!.body]));
    // A third, after both answered (the browser retrying late): the same way to the success page, not "expired".
    const late = await t.api(undefined, 'POST', `/checkout/${created.body.sessionId}/pay`, { token });
    assert.deepEqual([late.status, late.body.url], [200, `/checkout/success?sessionId=${created.body.sessionId}`]);
    const tx = await transactionOf(created.body.paymentId);
    assert.equal(fake.operations(tx, 'CANCEL_AUTHORIZATION').length, 0, 'the authorization the payment holds is not given back');
    const p = await payment(created.body.paymentId);
    assert.equal(p.status, 'transit');
    const capture = await t.api(m.liveKey, 'POST', `/api/v1/payments/${created.body.paymentId}/capture`);
    assert.equal(capture.body.status, 'captured', JSON.stringify(capture.body));
    assert.deepEqual(fake.operations(tx, 'CAPTURE').map((o) => o.amount), [1_400]);
    const session = await t.api(m.liveKey, 'GET', `/api/v1/payments/sessions/${created.body.sessionId}`);
    assert.equal(session.body.cardAttempts, 1, 'one card was typed, one attempt');
    assert.deepEqual((await paymentEvents(t, created.body.paymentId)).map((e) => e.type).filter((x) => x === 'payment.authorized'), ['payment.authorized']);
  });

  it("a refused widget read by the page, Monext's notification and its return: one refusal, one event, one attempt", async () => {
    const created = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
      order: { amount: 1_500, currency: 'EUR' }, captureMode: 'MANUAL', email: 'b@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h',
    });
    const sessionId = created.body.sessionId as string;
    const token = (await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: sessionId })).body.token;
    fake.payInWidget(token, MONEXT_CARDS.declined);
    const paid = await t.api(undefined, 'POST', `/checkout/${sessionId}/pay`, { token });
    assert.match(paid.body.url, /\/checkout\/failed/);
    const notified = await t.app.inject({ method: 'POST', url: `/acquirer/v1/monext/notify?session=${sessionId}&token=${token}` });
    assert.equal(notified.statusCode, 200);
    const back = await t.app.inject({ method: 'GET', url: `/acquirer/v1/monext/return?session=${sessionId}&monext_session_id=${token}` });
    assert.equal(back.statusCode, 302);
    const failed = (await paymentEvents(t, created.body.paymentId)).filter((e) => e.type === 'payment.failed');
    assert.equal(failed.length, 1, 'one payment.failed for one refused card');
    const session = await t.api(m.liveKey, 'GET', `/api/v1/payments/sessions/${sessionId}`);
    assert.equal(session.body.cardAttempts, 1);
    assert.equal((await payment(created.body.paymentId)).status, 'failed');
  });

  it('a payment out of card attempts gets no widget: 429 before Monext is asked', async () => {
    const t2 = await startApp(dialect, { clock, env: { MOTU_MONEXT_API_URL: fake.url, MOTU_MAX_CARD_ATTEMPTS: '2' } });
    try {
      const m2 = await createMerchant(t2, 'Two Tries');
      await t2.admin('PATCH', `/admin/v1/contracts/${m2.defaultContractId}`, { acquirer: 'monext', monext: { ...FAKE_MONEXT_CREDENTIALS, environment: 'homologation' } });
      const created = await t2.api(m2.liveKey, 'POST', '/api/v1/payments/sessions', {
        order: { amount: 1_600, currency: 'EUR' }, captureMode: 'MANUAL', email: 'b@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h',
      });
      const sessionId = created.body.sessionId as string;
      for (let i = 0; i < 2; i++) {
        const token = (await t2.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: sessionId })).body.token;
        fake.payInWidget(token, MONEXT_CARDS.declined);
        assert.equal((await t2.api(undefined, 'POST', `/checkout/${sessionId}/pay`, { token })).status, 200);
      }
      const asked = fake.requests.length;
      const third = await t2.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: sessionId });
      assert.equal(third.status, 429, JSON.stringify(third.body));
      assert.equal(third.body.code, 'TOO_MANY_ATTEMPTS');
      assert.equal(fake.requests.length, asked, 'Monext was not asked for a widget');
    } finally {
      await t2.close();
    }
  });

  it("a payment's detail shows its attempts as Monext answered them, without calling Monext, and answers while Monext is down", async () => {
    const declined = await widgetPayment({ card: MONEXT_CARDS.declined, amount: 7_000 });
    const { paymentId } = await widgetPayment({ amount: 7_000 });
    assert.equal((await t.api(m.liveKey, 'POST', `/api/v1/payments/${paymentId}/capture`, { amount: 5_000 })).status, 200);
    assert.equal((await t.api(m.liveKey, 'POST', `/api/v1/payments/${paymentId}/refund`, { amount: 1_000 })).body.status, 'succeeded');
    const before = fake.requests.length;
    fake.unavailable = true;
    try {
      const res = await t.api(m.liveKey, 'GET', `/api/v1/payments/${paymentId}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.capturedAmount, 5_000);
      assert.equal(res.body.refundedAmount, 1_000);
      assert.equal(res.body.attempts.length, 1);
      assert.equal(res.body.attempts[0].id, `${m.defaultContractId}.${await transactionOf(paymentId)}`);
      assert.deepEqual({ ...res.body.attempts[0], id: undefined, createdAt: undefined }, {
        // Monext masks all but the BIN and the last two digits (497010XXXXXXXX14): the rest is not made up.
        id: undefined, createdAt: undefined, status: 'captured', amount: 7_000, currency: 'EUR', refusalCode: null, cardBrand: 'VISA', cardLast4: '••14', network: 'VISA',
      });
      const refused = await t.api(m.liveKey, 'GET', `/api/v1/payments/${declined.paymentId}`);
      assert.equal(refused.status, 200, JSON.stringify(refused.body));
      assert.deepEqual(refused.body.attempts.map((a: any) => [a.status, a.refusalCode, a.cardLast4]), [['refused', 'card_declined', '••02']]);
      assert.equal(fake.requests.length, before, 'no call to Monext for a read');
    } finally {
      fake.unavailable = false;
    }
    // What recovery decides on is still Monext's own record: the same attempt, read from Monext.
    const cancelled = await widgetPayment({ amount: 1_500 });
    assert.equal((await t.api(m.liveKey, 'POST', `/api/v1/payments/${cancelled.paymentId}/cancel`)).body.status, 'cancelled');
    assert.deepEqual((await payment(cancelled.paymentId)).attempts.map((a: any) => a.status), ['cancelled']);
  });

  it("a widget that authorized before Motu heard of it: the payment's detail asks Monext and shows the attempt", async () => {
    const created = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
      order: { amount: 2_300, currency: 'EUR' }, email: 'b@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h',
    });
    const token = (await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: created.body.sessionId })).body.token;
    fake.payInWidget(token, MONEXT_CARDS.visa); // neither the page nor Monext's return or notification has come back yet
    const before = fake.requests.length;
    const p = await payment(created.body.paymentId);
    assert.equal(p.status, 'pending');
    assert.deepEqual(p.attempts.map((a: any) => [a.id, a.status, a.amount, a.cardLast4]), [
      [`${m.defaultContractId}.${fake.sessions.get(token)!.transactions[0]}`, 'authorized', 2_300, '••14'],
    ]);
    assert.ok(fake.requests.length > before, 'Monext was asked');
  });

  it("a session's widget sessions spend its card-token budget: once spent, Monext is not asked again", async () => {
    const created = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
      order: { amount: 900, currency: 'EUR' }, email: 'b@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h',
    });
    const budget = t.config.tokensPerSession;
    const before = fake.requests.filter((r) => r.path === '/v1/checkout/payments/sessions').length;
    for (let i = 0; i < budget; i++) {
      const entry = await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: created.body.sessionId });
      assert.equal(entry.status, 201, JSON.stringify(entry.body));
    }
    const refused = await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: created.body.sessionId });
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'TOO_MANY_ATTEMPTS');
    assert.equal(fake.requests.filter((r) => r.path === '/v1/checkout/payments/sessions').length - before, budget, 'no widget session asked once the budget is spent');
    const rows = await t.db.kysely.selectFrom('monext_authorizations').select('id').where('merchant_reference', '=', created.body.paymentId).execute();
    assert.equal(rows.length, budget);
    const session = await t.db.kysely.selectFrom('payment_sessions').select('tokens_issued').where('id', '=', created.body.sessionId).executeTakeFirstOrThrow();
    assert.equal(session.tokens_issued, budget);
  });

  it('a capture whose answer is lost after Monext captured: 503, then recovered once from Monext', async () => {
    const { paymentId } = await widgetPayment({ amount: 4_000 });
    const tx = await transactionOf(paymentId);
    fake.fault(/captures$/, 'timeout-after-accept');
    const lost = await t.api(m.liveKey, 'POST', `/api/v1/payments/${paymentId}/capture`);
    assert.equal(lost.status, 503, JSON.stringify(lost.body));
    assert.equal((await payment(paymentId)).status, 'transit', 'nothing final recorded');
    clock.advance(200_000);
    await schedule.tick();
    assert.equal((await payment(paymentId)).status, 'captured');
    assert.equal(fake.operations(tx, 'CAPTURE').length, 1, 'captured once at Monext');
    const captured = (await paymentEvents(t, paymentId)).filter((e) => e.type === 'payment.captured');
    assert.equal(captured.length, 1);
  });

  it('a 5xx, a body that is not JSON, an unknown status: the payment keeps its state, a retry finishes it', async () => {
    const { paymentId } = await widgetPayment({ amount: 5_000 });
    const tx = await transactionOf(paymentId);
    for (const fault of ['500', 'malformed', 'unknown-status'] as const) {
      fake.fault(/captures$/, fault);
      const res = await t.api(m.liveKey, 'POST', `/api/v1/payments/${paymentId}/capture`);
      assert.equal(res.status, 503, `${fault}: ${JSON.stringify(res.body)}`);
      assert.equal((await payment(paymentId)).status, 'transit');
      clock.advance(200_000);
      await schedule.tick(); // the claim resolved from Monext: still authorized (500) → released
    }
    // 'unknown-status' came after Monext captured: the recovery found the capture.
    assert.equal((await payment(paymentId)).status, 'captured');
    assert.equal(fake.operations(tx, 'CAPTURE').length, 1);
  });

  it('a refund interrupted mid-way (answer lost after Monext refunded): recovered, refunded once', async () => {
    const { paymentId } = await widgetPayment({ amount: 8_000, captureMode: 'AUTO' });
    const tx = await transactionOf(paymentId);
    fake.fault(/refunds$/, 'timeout-after-accept');
    const res = await t.api(m.liveKey, 'POST', `/api/v1/payments/${paymentId}/refund`, { amount: 3_000 });
    assert.ok(res.status === 201 || res.status === 503, JSON.stringify(res.body));
    if (res.status === 201) assert.equal(res.body.status, 'pending');
    await new Promise((r) => setTimeout(r, fake.holdMs)); // Monext's late answer arrives nowhere
    clock.advance(200_000);
    await schedule.tick();
    const refunds = (await t.api(m.liveKey, 'GET', `/api/v1/payments/${paymentId}/refunds`)).body.data;
    assert.deepEqual(refunds.map((r: any) => [r.amount, r.status]), [[3_000, 'succeeded']]);
    assert.deepEqual(fake.operations(tx, 'REFUND').map((o) => o.amount), [3_000], 'refunded once');

    // Never received (a timeout before Monext acted): refunded by the recovery under the same reference.
    fake.fault(/refunds$/, 'timeout-before');
    await t.api(m.liveKey, 'POST', `/api/v1/payments/${paymentId}/refund`, { amount: 2_000 });
    await new Promise((r) => setTimeout(r, fake.holdMs));
    clock.advance(200_000);
    await schedule.tick();
    assert.deepEqual(fake.operations(tx, 'REFUND').map((o) => o.amount), [3_000, 2_000]);
    assert.equal((await payment(paymentId)).refundedAmount, 5_000);
  });

  it('a merchant-initiated charge whose answer is lost: never sent twice, never charged twice', async () => {
    const customerId = await createCustomer(t, m.liveKey);
    const ws = await t.api(m.liveKey, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl: 'https://shop.example/wallet' });
    const entry = await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: ws.body.sessionId });
    fake.payInWidget(entry.body.token, MONEXT_CARDS.visa);
    await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${ws.body.sessionId}/submit`, { token: entry.body.token });
    const pm = (await t.api(m.liveKey, 'GET', `/api/v1/customers/${customerId}/payment-methods`)).body.data[0];
    const body = { paymentMethodId: pm.id, order: { reference: 'SUB-2', amount: 900, currency: 'EUR' }, captureMode: 'MANUAL', notificationUrl: 'https://shop.example/hook' };
    const sends = () => fake.requests.filter((r) => r.path === '/v1/checkout/payments' && r.body?.order?.amount === 900).length;
    fake.fault(/^POST \/v1\/checkout\/payments$/, 'malformed');
    const first = await t.api(m.liveKey, 'POST', '/api/v1/payments', body, { 'Idempotency-Key': 'renewal-2' });
    assert.equal(first.status, 503, JSON.stringify(first.body));
    assert.equal(sends(), 1);
    const paymentId = (await t.db.kysely.selectFrom('payments').select('id').where('order_reference', '=', 'SUB-2').executeTakeFirstOrThrow()).id;
    assert.equal((await payment(paymentId)).status, 'pending', 'nothing final');
    // A retry at once: the first call could still be on its way; nothing is sent.
    const retry = await t.api(m.liveKey, 'POST', '/api/v1/payments', body, { 'Idempotency-Key': 'renewal-2' });
    assert.equal(retry.status, 503, JSON.stringify(retry.body));
    // Later (the recovery job): never sent again; the payment fails, as the merchant is told.
    clock.advance(200_000);
    await schedule.tick();
    await schedule.services.merchantPayments.recoverLeftPending(clock.now());
    const later = await t.api(m.liveKey, 'POST', '/api/v1/payments', body, { 'Idempotency-Key': 'renewal-2' });
    assert.equal((await payment(paymentId)).status, 'failed', JSON.stringify(later.body));
    assert.equal(sends(), 1, 'Monext asked once');
  });

  it('a live subscription: each due date charged once through Monext with the saved card, then settled by the remittance delay', async () => {
    const customerId = await createCustomer(t, m.liveKey);
    const ws = await t.api(m.liveKey, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl: 'https://shop.example/wallet' });
    const entry = await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: ws.body.sessionId });
    fake.payInWidget(entry.body.token, MONEXT_CARDS.cb);
    await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${ws.body.sessionId}/submit`, { token: entry.body.token });
    const pm = (await t.api(m.liveKey, 'GET', `/api/v1/customers/${customerId}/payment-methods`)).body.data[0];
    const charges = () => fake.requests.filter((r) => r.path === '/v1/checkout/payments' && r.body?.order?.amount === 2_345);

    const sub = await t.api(m.liveKey, 'POST', '/api/v1/subscriptions', { customerId, paymentMethodId: pm.id, amount: 2_345, currency: 'EUR', interval: 'month' });
    assert.equal(sub.status, 201, JSON.stringify(sub.body));
    assert.equal(sub.body.status, 'active');
    assert.equal(charges().length, 1, 'the first due date is charged at creation');
    clock.advance(32 * 86_400_000);
    await schedule.tick();
    await schedule.tick();
    assert.equal(charges().length, 2, 'the second due date, once');
    assert.ok(charges().every((r) => r.body.paymentInstrument?.walletId === charges()[0]!.body.paymentInstrument.walletId), 'the wallet saved by the registration');
    assert.deepEqual(charges().map((r) => r.body.payment.paymentType), ['RECURRING', 'RECURRING'], "a subscription's due dates are recurring charges");
    const dueDates = (await t.api(m.liveKey, 'GET', `/api/v1/subscriptions/${sub.body.id}/due-dates`)).body.data;
    assert.deepEqual(dueDates.map((d: any) => d.status), ['paid', 'paid']);
    const payments = dueDates.flatMap((d: any) => d.attempts.map((a: any) => a.paymentId));
    for (const id of payments) assert.equal((await payment(id)).status, 'captured');

    // Monext remits the day after a capture (MOTU_MONEXT_SETTLEMENT_DELAY, one day): both payments settle, once.
    clock.advance(86_400_000 + 1_000);
    await schedule.tick();
    await schedule.tick();
    for (const id of payments) {
      assert.equal((await payment(id)).settled, true, id);
      assert.equal((await paymentEvents(t, id)).filter((e) => e.type === 'payment.settled').length, 1);
    }
  });

  /** A card registered in the widget (zero amount) for a new customer: the customer and the saved card's id. */
  async function registerCard(card: string) {
    const customerId = await createCustomer(t, m.liveKey);
    const ws = await t.api(m.liveKey, 'POST', `/api/v1/customers/${customerId}/sessions`, { returnUrl: 'https://shop.example/wallet' });
    const entry = await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: ws.body.sessionId });
    fake.payInWidget(entry.body.token, card);
    await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${ws.body.sessionId}/submit`, { token: entry.body.token });
    const pm = (await t.api(m.liveKey, 'GET', `/api/v1/customers/${customerId}/payment-methods`)).body.data[0];
    assert.ok(pm?.id, 'a saved card');
    return { customerId, paymentMethodId: pm.id as string };
  }

  it("a session's transactions in either order: the authorization is the latest one, never a capture listed after it", async () => {
    for (const newestFirst of [false, true]) {
      fake.newestFirst = newestFirst;
      try {
        // The cardholder's first card is refused in the widget, the second accepted: one session, two transactions.
        const created = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
          order: { amount: 1_700, currency: 'EUR' }, captureMode: 'MANUAL', email: 'b@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h',
        });
        const token = (await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: created.body.sessionId })).body.token;
        fake.payInWidget(token, MONEXT_CARDS.declined);
        fake.payInWidget(token, MONEXT_CARDS.visa);
        const accepted = fake.sessions.get(token)!.transactions[1]!;
        const paid = await t.api(undefined, 'POST', `/checkout/${created.body.sessionId}/pay`, { token });
        assert.equal(paid.body.next, 'redirect', JSON.stringify(paid.body));
        assert.equal(await transactionOf(created.body.paymentId), accepted, `newest first: ${newestFirst}`);
        const captured = await t.api(m.liveKey, 'POST', `/api/v1/payments/${created.body.paymentId}/capture`);
        assert.equal(captured.body.status, 'captured', JSON.stringify(captured.body));
        // Monext's notification after the capture (the session now lists the CAPTURE too): nothing changes.
        const notify = await t.app.inject({ method: 'GET', url: `/acquirer/v1/monext/notify?session=${created.body.sessionId}&token=${token}` });
        assert.equal(notify.statusCode, 200);
        const p = await payment(created.body.paymentId);
        assert.equal(p.status, 'captured');
        assert.deepEqual(p.attempts.map((a: any) => [a.id, a.status]), [[`${m.defaultContractId}.${accepted}`, 'captured']]);
      } finally {
        fake.newestFirst = false;
      }
    }
  });

  it("a card whose recurring payments the cardholder revoked (01132): final, no retry, the card detached, the subscription's mandate revoked", async () => {
    const { customerId, paymentMethodId } = await registerCard(MONEXT_CARDS.revoked);
    const sub = await t.api(m.liveKey, 'POST', '/api/v1/subscriptions', { customerId, paymentMethodId, amount: 3_100, currency: 'EUR', interval: 'month' });
    assert.equal(sub.status, 201, JSON.stringify(sub.body));
    const charges = () => fake.requests.filter((r) => r.path === '/v1/checkout/payments' && r.body?.order?.amount === 3_100);
    assert.equal(charges().length, 1);
    const [due] = (await t.api(m.liveKey, 'GET', `/api/v1/subscriptions/${sub.body.id}/due-dates`)).body.data;
    const paymentId = due.attempts[0].paymentId;
    assert.equal((await payment(paymentId)).refusalCode, 'card_unknown');
    assert.deepEqual((await t.api(m.liveKey, 'GET', `/api/v1/customers/${customerId}/payment-methods`)).body.data, [], 'the card is detached');
    assert.equal((await t.api(m.liveKey, 'GET', `/api/v1/subscriptions/${sub.body.id}`)).body.status, 'waiting_mandate');
    clock.advance(3 * 86_400_000);
    await schedule.tick();
    await schedule.tick();
    assert.equal(charges().length, 1, 'never charged again');
  });

  it("Monext's 01185 inside a 200, abandoned sessions (4xx or 200) and any other 4xx on reading a session are answers, not outages", async () => {
    // 01185 "used order" answered 200: the charge is not retried and the payment fails, not a 503 left pending.
    const { paymentMethodId } = await registerCard(MONEXT_CARDS.visa);
    fake.fault(/^POST \/v1\/checkout\/payments$/, 'used-order-200');
    const charge = await t.api(m.liveKey, 'POST', '/api/v1/payments', {
      paymentMethodId, order: { reference: 'USED-1', amount: 1_100, currency: 'EUR' }, captureMode: 'MANUAL', notificationUrl: 'https://shop.example/hook',
    }, { 'Idempotency-Key': 'used-order-1' });
    assert.equal(charge.status, 201, JSON.stringify(charge.body));
    assert.equal(charge.body.status, 'failed');

    const session = async () => {
      const created = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
        order: { amount: 1_800, currency: 'EUR' }, email: 'b@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h',
      });
      const token = (await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: created.body.sessionId })).body.token as string;
      return { sessionId: created.body.sessionId as string, paymentId: created.body.paymentId as string, token };
    };
    // Abandoned (02534) as a 4xx, expired (02324) inside a 200: no attempt, the payment unchanged.
    const abandoned = await session();
    fake.fault(/^GET \/v1\/checkout\/payments\/sessions\//, 'abandoned-4xx');
    assert.equal((await t.api(undefined, 'POST', `/checkout/${abandoned.sessionId}/pay`, { token: abandoned.token })).body.next, 'error');
    const expired = await session();
    fake.abandonInWidget(expired.token);
    assert.equal((await t.api(undefined, 'POST', `/checkout/${expired.sessionId}/pay`, { token: expired.token })).body.next, 'error');
    for (const s of [abandoned, expired]) assert.equal((await payment(s.paymentId)).status, 'pending');

    // Any other 4xx on reading the session: Monext's notification is answered 200 (not notified again and again) and
    // the return page sends the customer back to the checkout, not to an error.
    const refused = await session();
    fake.fault(/^GET \/v1\/checkout\/payments\/sessions\//, '400');
    const notify = await t.app.inject({ method: 'GET', url: `/acquirer/v1/monext/notify?session=${refused.sessionId}&token=${refused.token}` });
    assert.equal(notify.statusCode, 200, notify.body);
    fake.fault(/^GET \/v1\/checkout\/payments\/sessions\//, '400');
    const back = await t.app.inject({ method: 'GET', url: `/acquirer/v1/monext/return?session=${refused.sessionId}&paylinetoken=${refused.token}` });
    assert.equal(back.statusCode, 302, back.body);
    assert.match(back.headers.location as string, new RegExp(`/checkout/${refused.sessionId}`));
    assert.equal((await payment(refused.paymentId)).status, 'pending');
  });

  it('a session created with 201 instead of 200 is as good', async () => {
    fake.createdStatus = 201;
    try {
      const paid = await widgetPayment({ amount: 1_900 });
      assert.equal(paid.next.next, 'redirect');
      assert.equal((await payment(paid.paymentId)).status, 'transit');
    } finally {
      fake.createdStatus = 200;
    }
  });

  it('Monext refusing the credentials is a clear 503, never a card refusal', async () => {
    await t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, { monext: { accessKey: 'wrong-key-000' } });
    const created = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
      order: { amount: 1000, currency: 'EUR' }, redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h',
    });
    const entry = await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: created.body.sessionId });
    // Monext answered the session's creation 200 {title: "Unauthorized"}, no result: read as the credentials refused.
    assert.equal(fake.requests.at(-1)!.auth, 'bad');
    assert.equal(entry.status, 503);
    assert.equal(entry.body.code, 'ACQUIRER_NOT_CONFIGURED');
    assert.match(entry.body.message, /credentials/);
    assert.equal(JSON.stringify(entry.body).includes('wrong-key-000'), false);
    await connect();
  });
});

describe("Monext's homologation environment", () => {
  const missing = MONEXT_ENV.filter((name) => !process.env[name]);
  const skip = missing.length > 0
    ? `did not run: no Monext homologation credentials (set ${missing.join(', ')} to run against api-sandbox.retail.monext.com)`
    : false;
  const credentials = (): MonextCredentials => ({
    merchantId: process.env.MONEXT_MERCHANT_ID!, accessKey: process.env.MONEXT_ACCESS_KEY!, pointOfSaleReference: process.env.MONEXT_POINT_OF_SALE!,
    contractNumber: process.env.MONEXT_CONTRACT_NUMBER!, environment: 'homologation',
  });
  /** The connector's own calls against Monext, without Motu around them (what docs/live.md lists "to confirm"). */
  const direct = (c: MonextCredentials = credentials()) => {
    const client = new MonextClient(c, { timeoutMs: 30_000 });
    return { client, ctx: { credentials: c, client } as unknown as MonextContext };
  };
  const entry = (amount: number, reference: string) => ({
    mode: 'live' as const, merchantReference: reference, amount, currency: 'EUR', returnUrl: 'https://shop.example/return?session=x',
    notificationUrl: 'https://shop.example/notify?session=x', languageCode: 'fr', email: 'buyer@example.com',
  });

  it('creates a widget session with the given credentials', { skip }, async () => {
    const t = await startApp('sqlite');
    try {
      const m = await createMerchant(t, 'Homologation');
      const res = await t.admin('PATCH', `/admin/v1/contracts/${m.defaultContractId}`, { acquirer: 'monext', monext: credentials() });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const created = await t.api(m.liveKey, 'POST', '/api/v1/payments/sessions', {
        order: { amount: 1000, currency: 'EUR' }, email: 'buyer@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h',
      });
      const widget = await t.api(undefined, 'POST', '/acquirer/v1/monext/sessions', { session: created.body.sessionId });
      assert.equal(widget.status, 201, JSON.stringify(widget.body));
      assert.ok(widget.body.token);
      assert.match(widget.body.scriptUrl, /^https:\/\/homologation-payment\.cdn\.payline\.com\//);
      // The page Monext gives with the creation (kept for 3-D Secure).
      assert.match(widget.body.redirectUrl, /^https:\/\//);
      // The token reads back as "the cardholder is still in the widget".
      const pay = await t.api(undefined, 'POST', `/checkout/${created.body.sessionId}/pay`, { token: widget.body.token });
      assert.equal(pay.body.next, 'challenge');
    } finally {
      await t.close();
    }
  });

  it('answers what the public material leaves open (docs/live.md, "To confirm in homologation")', { skip }, async (tc) => {
    const { client, ctx } = direct();
    // A payment's session: 200 or 201, its sessionId and redirectURL; read back INPROGRESS.
    const reference = `motu_h_${Date.now()}`;
    const payment = await client.call('POST', '/v1/checkout/payments/sessions', sessionBody(ctx, entry(1000, reference), undefined));
    assert.equal(payment.kind, 'answer', JSON.stringify(payment));
    if (payment.kind !== 'answer') return;
    tc.diagnostic(`session creation answered HTTP ${payment.status}`);
    assert.ok([200, 201].includes(payment.status));
    assert.equal(typeof payment.body.sessionId, 'string');
    assert.equal(typeof payment.body.redirectURL, 'string', 'redirectURL on creation');
    const token = payment.body.sessionId as string;
    const read = await client.call('GET', `/v1/checkout/payments/sessions/${token}`);
    assert.equal(read.kind, 'answer', JSON.stringify(read));
    if (read.kind === 'answer') tc.diagnostic(`a session's read ${read.body.redirectURL === undefined ? 'has no' : 'also has a'} redirectURL`);
    assert.equal((await readSession(ctx, token)).kind, 'pending');

    // A second widget session for the same order (a retry after a refusal, a second tab: Motu's order reference is the
    // payment's id each time): accepted too.
    const again = await client.call('POST', '/v1/checkout/payments/sessions', sessionBody(ctx, entry(1000, reference), undefined));
    assert.equal(again.kind, 'answer', `a second session for the same order: ${JSON.stringify(again)}`);

    // A card registration: ACCOUNT_VERIFICATION at zero amount, CHALLENGE_MANDATE, a new wallet: accepted.
    const verification = await client.call('POST', '/v1/checkout/payments/sessions', sessionBody(ctx, entry(0, `motu_h_${Date.now()}`), `motu_h${Date.now()}`));
    assert.equal(verification.kind, 'answer', JSON.stringify(verification));
    assert.equal(typeof (verification.kind === 'answer' && verification.body.sessionId), 'string');
    // A zero-amount ONE_OFF: refused (as a 4xx, or a result that is not ACCEPTED).
    const oneOff = { ...sessionBody(ctx, entry(1000, `motu_h_${Date.now()}`), undefined), order: { reference: `motu_h_${Date.now()}`, amount: 0, currency: 'EUR', origin: 'E_COM' } };
    const zero = await client.call('POST', '/v1/checkout/payments/sessions', oneOff);
    assert.ok(zero.kind === 'rejected' || (zero.body.result as { title?: string } | undefined)?.title !== 'ACCEPTED', JSON.stringify(zero));

    // An unknown token: no attempt (a 404, or 02304 as a 4xx or in a 200), never an outage.
    assert.equal((await readSession(ctx, 'motuUnknownToken0000000000')).kind, 'cancelled');

    // Bad credentials: a 200 {title: "Unauthorized"} or a 401, both read as credentials refused.
    const wrong = direct({ ...credentials(), accessKey: 'not-the-key-0000' });
    const refused = await wrong.client.call('POST', '/v1/checkout/payments/sessions', sessionBody(wrong.ctx, entry(1000, `motu_h_${Date.now()}`), undefined));
    assert.equal(refused.kind, 'rejected', JSON.stringify(refused));
    assert.ok(refused.kind === 'rejected' && [401, 403].includes(refused.status));
  });

  it('needs a cardholder in the widget: checked by hand (docs/live.md, "To confirm in homologation")', {
    skip: skip || 'checked by hand: the order of transactions, a failed 3-D Secure (CANCELLED 03022), the wallet id\'s key, the merchant-initiated fields, 01185, partial captures',
  }, () => {});
});
