// A creating POST killed mid-way and retried with the same Idempotency-Key (docs/reliability.md, Chaos). The idempotency
// layer takes over an in-flight key older than 60 s (src/http/idempotency.ts) and runs the route again; it cannot know
// whether the dead run committed. Each creation derives its id from the key (idFromKey), so the retry finds what the
// dead run committed and answers it as the first request would have: same status, same id, one object.
//
// The dead run is reproduced faithfully: the request is made through HTTP, then its stored answer is turned back into
// the in-flight claim it was before the answer was written, dated 61 s ago (`abandon`). Where the run dies before its
// end (a merchant-initiated payment between its steps), the state is made by the service's own step functions.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { buildServices } from '../src/app.js';
import { base62, idFromKey } from '../src/shared/ids.js';
import { refundIdFor } from '../src/modules/refunds/refunds.service.js';
import { recoverClaims, recoveryEveryMs } from '../src/modules/payments/payments.scheduler.js';
import { sessionIdsFor } from '../src/modules/sessions/sessions.service.js';
import { MerchantPaymentsService, merchantPaymentIdFor } from '../src/modules/merchant-payments/merchant-payments.service.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paidPayment } from './support/payments.js';
import { saveCard } from './support/wallet.js';
import { CARDS } from './support/cards.js';
import { paymentEvents } from './support/events.js';
import { createCustomer } from './support/factories.js';

describe('ids derived from an Idempotency-Key', () => {
  it('idFromKey has the shape of a random id, and sessionIdsFor / refundIdFor are unchanged by moving onto it', () => {
    const id = idFromKey('cus', ['cus', 'mer_x', 'test', 'k1']);
    assert.match(id, /^cus_[0-9A-Za-z]{22}$/);
    assert.equal(idFromKey('cus', ['cus', 'mer_x', 'test', 'k1']), id, 'the same parts, the same id');
    assert.notEqual(idFromKey('cus', ['cus', 'mer_x', 'test', 'k2']), id);
    assert.notEqual(idFromKey('cus', ['cus', 'mer_x', 'test', 'k1'], Buffer.alloc(32, 7)), id, 'a secret makes another (keyed) id');
    // The formulas sessions and refunds used before idFromKey existed (ids already stored depend on them).
    const before = (text: string) => base62(createHash('sha256').update(text).digest().subarray(0, 16), 22);
    for (const [merchant, mode, channel, key] of [['mer_a', 'test', 'session', 'k'], ['mer_7Hq', 'live', 'link', 'order-42/!~']] as const) {
      assert.deepEqual(sessionIdsFor({ merchantId: merchant, mode }, channel, key), {
        paymentId: `pay_${before(`pay\n${merchant}\n${mode}\n${channel}\n${key}`)}`,
      });
      assert.equal(refundIdFor(`pay_${merchant}`, key), `re_${before(`refund\npay_${merchant}\n${key}`)}`);
    }
    assert.deepEqual(sessionIdsFor({ merchantId: 'mer_a', mode: 'test' }, 'session', 'k'), { paymentId: 'pay_5xwPTZapopfvJXlAKn4kwb' });
    assert.equal(refundIdFor('pay_x', 'k'), 're_7PqcofYuRKhdkP1UkgkHJi');
  });
});

eachDatabase('a creating POST killed mid-way, retried with its Idempotency-Key', (dialect) => {
  const { t, m } = withMerchantApp(dialect);

  /** What a request killed after its commit, before its answer was stored, leaves: its key in flight, 61 s old. */
  async function abandon(key: string) {
    const res = await t.db.kysely.updateTable('idempotency_keys')
      .set({ state: 'in_flight', status_code: null, response_body: null, created_at: new Date(Date.now() - 61_000).toISOString() })
      .where('merchant_id', '=', m.id).where('mode', '=', 'test').where('key', '=', key).executeTakeFirst();
    assert.equal(Number(res.numUpdatedRows), 1, `the key ${key} was stored`);
  }

  /** POST with `key`, abandon, POST again: both 201 with the same body; the retry ran the route (not a replay). */
  async function createKilledRetried(url: string, body: unknown, key: string) {
    const first = await t.api(m.testKey, 'POST', url, body, { 'idempotency-key': key });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    await abandon(key);
    const retry = await t.api(m.testKey, 'POST', url, body, { 'idempotency-key': key });
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.equal(retry.headers['idempotent-replayed'], undefined, 'the retry took the abandoned key over and ran the route');
    assert.equal(retry.body.id ?? retry.body.sessionId, first.body.id ?? first.body.sessionId);
    // From then on it is replayed as stored.
    const replay = await t.api(m.testKey, 'POST', url, body, { 'idempotency-key': key });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.body, retry.body);
    return { first: first.body, retry: retry.body };
  }

  const eventCount = async (type: string, field: string, value: string) => {
    const rows = await t.db.kysely.selectFrom('webhook_events').select('body').where('type', '=', type).execute();
    return rows.filter((r) => JSON.parse(r.body).data[field] === value).length;
  };

  it('POST /customers: one customer, answered again; its email with another key is still a 409', async () => {
    const body = { email: 'killed@example.com', externalId: 'ext-killed', name: 'Killed Once' };
    const { first, retry } = await createKilledRetried('/api/v1/customers', body, 'cus-key');
    assert.deepEqual(retry, first);
    const listed = await t.api(m.testKey, 'GET', '/api/v1/customers?email=killed@example.com');
    assert.deepEqual(listed.body.data.map((c: { id: string }) => c.id), [first.id]);
    assert.equal(await eventCount('customer.created', 'id', first.id), 1, 'one customer.created');
    const other = await t.api(m.testKey, 'POST', '/api/v1/customers', body, { 'idempotency-key': 'cus-key-2' });
    assert.equal(other.status, 409);
    assert.equal(other.body.code, 'ALREADY_EXISTS');
    const noKey = await t.api(m.testKey, 'POST', '/api/v1/customers', { externalId: 'ext-killed' });
    assert.equal(noKey.status, 409);
  });

  it('POST /webhook-endpoints and /agency/webhooks: one endpoint each', async () => {
    const body = { url: 'https://hooks.example/killed', events: ['payment.*'] };
    const { first, retry } = await createKilledRetried('/api/v1/webhook-endpoints', body, 'we-key');
    assert.deepEqual(retry, first);
    assert.equal((await t.admin('PATCH', `/admin/v1/merchants/${m.id}`, { agency: true })).status, 200);
    const agency = await createKilledRetried('/api/v1/agency/webhooks', { url: 'https://hooks.example/agency' }, 'we-agency-key');
    assert.deepEqual(agency.retry, agency.first);
    assert.notEqual(agency.first.id, first.id);
    const listed = await t.api(m.testKey, 'GET', '/api/v1/webhook-endpoints');
    const urls = listed.body.data.map((e: { url: string }) => e.url).sort();
    assert.deepEqual(urls, ['https://hooks.example/agency', 'https://hooks.example/killed']);
    // Deleted since: the retry answers it as it stands instead of registering it again.
    assert.equal((await t.api(m.testKey, 'DELETE', `/api/v1/webhook-endpoints/${first.id}`)).status, 200);
    await abandon('we-key');
    const late = await t.api(m.testKey, 'POST', '/api/v1/webhook-endpoints', body, { 'idempotency-key': 'we-key' });
    assert.equal(late.status, 201);
    assert.equal(late.body.id, first.id);
    assert.equal((await t.api(m.testKey, 'GET', '/api/v1/webhook-endpoints')).body.data.length, 1);
  });

  it('POST /events/{id}/resend: one new delivery per target, not two', async () => {
    const paymentId = await paidPayment(t, m.testKey);
    const [event] = await paymentEvents(t, paymentId);
    const deliveries = () => t.db.kysely.selectFrom('webhook_deliveries').select('id').where('event_id', '=', event!.id).orderBy('id').execute();
    const before = (await deliveries()).length;
    assert.ok(before >= 1, 'the event had a target');
    const url = `/api/v1/events/${event!.id}/resend`;
    const first = await t.api(m.testKey, 'POST', url, {}, { 'idempotency-key': 'resend-key' });
    assert.equal(first.status, 202, JSON.stringify(first.body));
    assert.equal(first.body.deliveries.length, before);
    await abandon('resend-key');
    const retry = await t.api(m.testKey, 'POST', url, {}, { 'idempotency-key': 'resend-key' });
    assert.equal(retry.status, 202, JSON.stringify(retry.body));
    assert.equal(retry.headers['idempotent-replayed'], undefined, 'the retry took the abandoned key over and ran the route');
    assert.deepEqual(retry.body.deliveries.map((d: { id: string }) => d.id), first.body.deliveries.map((d: { id: string }) => d.id));
    assert.equal((await deliveries()).length, 2 * before, 'the first resend\'s deliveries, and no more');
    // Another key is another resend.
    const again = await t.api(m.testKey, 'POST', url, {}, { 'idempotency-key': 'resend-key-2' });
    assert.equal(again.status, 202);
    assert.equal((await deliveries()).length, 3 * before);
  });

  it('POST /payments/links: one link, one payment', async () => {
    const body = { order: { reference: 'KILLED-LINK', amount: 3100, currency: 'EUR' }, redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/n' };
    const { first, retry } = await createKilledRetried('/api/v1/payments/links', body, 'link-key');
    assert.deepEqual(retry, first);
    assert.match(first.linkId, /^lnk_/);
    const listed = await t.api(m.testKey, 'GET', '/api/v1/payments?reference=KILLED-LINK');
    assert.deepEqual(listed.body.data.map((p: { id: string }) => p.id), [first.paymentId]);
    const sessions = await t.db.kysely.selectFrom('payment_sessions').select('id').where('payment_id', '=', first.paymentId).execute();
    assert.equal(sessions.length, 1);
  });

  it('POST /customers/{id}/sessions (wallet): one session; its id is keyed (not computable from the key alone)', async () => {
    const customerId = await createCustomer(t, m.testKey);
    const { first, retry } = await createKilledRetried(`/api/v1/customers/${customerId}/sessions`, { returnUrl: 'https://shop.example/w' }, 'ws-key');
    assert.deepEqual(retry, first);
    assert.match(first.sessionId, /^ses_[0-9A-Za-z]{22}$/);
    assert.notEqual(first.sessionId, idFromKey('ses', ['wallet', m.id, 'test', 'ws-key']));
    const rows = await t.db.kysely.selectFrom('payment_sessions').select('id').where('customer_id', '=', customerId).where('kind', '=', 'wallet').execute();
    assert.deepEqual(rows.map((r) => r.id), [first.sessionId]);
  });

  it('POST /customers/{id}/card-links: one link, one session', async () => {
    const customerId = await createCustomer(t, m.testKey);
    const { first, retry } = await createKilledRetried(`/api/v1/customers/${customerId}/card-links`, { locale: 'en', sendEmail: true }, 'cl-key');
    assert.deepEqual(retry, first);
    const links = await t.db.kysely.selectFrom('card_links').select('id').where('customer_id', '=', customerId).execute();
    assert.deepEqual(links.map((l) => l.id), [first.id]);
    const rows = await t.db.kysely.selectFrom('payment_sessions').select('id').where('customer_id', '=', customerId).where('kind', '=', 'wallet').execute();
    assert.deepEqual(rows.map((r) => r.id), [first.sessionId]);
  });

  /** POST with `key`, abandon, POST again: the retry (not a replay) answers as the first did. */
  async function transitionKilledRetried(url: string, body: unknown, key: string, status: number) {
    const first = await t.api(m.testKey, 'POST', url, body, { 'idempotency-key': key });
    assert.equal(first.status, status, JSON.stringify(first.body));
    await abandon(key);
    const retry = await t.api(m.testKey, 'POST', url, body, { 'idempotency-key': key });
    assert.equal(retry.status, status, JSON.stringify(retry.body));
    assert.equal(retry.headers['idempotent-replayed'], undefined, 'the retry took the abandoned key over and ran the route');
    return { first: first.body, retry: retry.body };
  }

  it('POST /payments/{id}/capture and /cancel that committed: the retry answers 200 with the payment, not 422', async () => {
    const authorized = await paidPayment(t, m.testKey, { amount: 5000, captureMode: 'MANUAL' });
    const capture = await transitionKilledRetried(`/api/v1/payments/${authorized}/capture`, { amount: 3000 }, 'capture-key', 200);
    assert.deepEqual(capture.retry, capture.first);
    assert.equal(capture.retry.status, 'captured');
    assert.equal((await paymentEvents(t, authorized)).filter((e) => e.type === 'payment.captured').length, 1);
    // Not for another request: a new key, or another amount, still gets the 422.
    const again = await t.api(m.testKey, 'POST', `/api/v1/payments/${authorized}/capture`, { amount: 3000 }, { 'idempotency-key': 'capture-key-2' });
    assert.equal(again.status, 422);
    const toCancel = await paidPayment(t, m.testKey, { amount: 5000, captureMode: 'MANUAL' });
    const cancel = await transitionKilledRetried(`/api/v1/payments/${toCancel}/cancel`, {}, 'cancel-key', 200);
    assert.deepEqual(cancel.retry, cancel.first);
    assert.equal(cancel.retry.status, 'cancelled');
    assert.equal((await paymentEvents(t, toCancel)).filter((e) => e.type === 'payment.cancelled').length, 1);
    assert.equal((await t.api(m.testKey, 'POST', `/api/v1/payments/${toCancel}/cancel`)).status, 422);
  });

  it('POST /webhooks/signing-secret/rotate that committed: the retry answers that rotation, not a second one', async () => {
    const before = (await t.api(m.testKey, 'GET', '/api/v1/webhooks/signing-secret')).body.webhookSecret;
    const { first, retry } = await transitionKilledRetried('/api/v1/webhooks/signing-secret/rotate', undefined, 'rotate-key', 200);
    assert.deepEqual(retry, first);
    assert.equal((await t.api(m.testKey, 'GET', '/api/v1/webhooks/signing-secret')).body.webhookSecret, first.webhookSecret);
    const row = await t.db.kysely.selectFrom('webhook_secrets').select('previous_secret').where('merchant_id', '=', m.id).where('mode', '=', 'test').executeTakeFirstOrThrow();
    const { secretBoxFor } = await import('../src/shared/secret-box.js');
    assert.equal(secretBoxFor(t.config).open(row.previous_secret!), before, 'the secret the receivers verify with is still the previous one');
    const another = await t.api(m.testKey, 'POST', '/api/v1/webhooks/signing-secret/rotate', undefined, { 'idempotency-key': 'rotate-key-2' });
    assert.notEqual(another.body.webhookSecret, first.webhookSecret, 'a new key rotates again');
  });

  describe('POST /payments (merchant-initiated)', () => {
    let visa: string;
    let service: MerchantPaymentsService;
    const owner = () => ({ merchantId: m.id, mode: 'test' as const, storeId: null });
    before(async () => {
      const customerId = await createCustomer(t, m.testKey);
      visa = (await saveCard(t, m.testKey, customerId, CARDS.visa)).result.paymentMethodId;
      const s = buildServices(t.config, t.db, t.clock);
      service = new MerchantPaymentsService(t.db, t.clock, s.acquirers, s.paymentSessions, s.payments, t.config);
    });
    const body = (reference: string) => ({ paymentMethodId: visa, order: { reference, amount: 2400, currency: 'EUR' as const }, captureMode: 'AUTO' as const, notificationUrl: 'https://shop.example/n' });
    const attempts = (id: string) => t.db.kysely.selectFrom('acquirer_authorizations').select(['id', 'status']).where('merchant_reference', '=', id).execute();
    const events = async (id: string) =>
      (await t.db.kysely.selectFrom('webhook_events').select('type').where('payment_id', '=', id).execute()).map((e) => e.type).sort();

    it('killed after its answer was committed: the retry answers the same payment, charged once', async () => {
      const { first, retry } = await createKilledRetried('/api/v1/payments', body('MIT-KILLED-1'), 'mit-key-1');
      assert.equal(first.status, 'captured');
      assert.deepEqual(retry, first);
      assert.equal(first.id, merchantPaymentIdFor(owner(), 'mit-key-1'));
      const listed = await t.api(m.testKey, 'GET', '/api/v1/payments?reference=MIT-KILLED-1');
      assert.deepEqual(listed.body.data.map((p: { id: string }) => p.id), [first.id]);
      assert.equal((await attempts(first.id)).length, 1, 'one authorization at the acquirer');
      assert.deepEqual(await events(first.id), ['payment.authorized', 'payment.captured']);
    });

    it('killed after writing the payment, before the acquirer: the retry charges it once', async () => {
      const id = merchantPaymentIdFor(owner(), 'mit-key-2');
      await service.writePending(owner(), body('MIT-KILLED-2'), id);
      assert.equal((await attempts(id)).length, 0);
      const retry = await t.api(m.testKey, 'POST', '/api/v1/payments', body('MIT-KILLED-2'), { 'idempotency-key': 'mit-key-2' });
      assert.equal(retry.status, 201, JSON.stringify(retry.body));
      assert.equal(retry.body.id, id);
      assert.equal(retry.body.status, 'captured');
      assert.deepEqual((await attempts(id)).map((a) => a.status), ['captured']);
      assert.deepEqual(await events(id), ['payment.authorized', 'payment.captured']);
      const listed = await t.api(m.testKey, 'GET', '/api/v1/payments?reference=MIT-KILLED-2');
      assert.equal(listed.body.data.length, 1);
    });

    it('killed after the acquirer charged, before recording it: the retry records that charge, never a second', async () => {
      const id = merchantPaymentIdFor(owner(), 'mit-key-3');
      const pending = await service.writePending(owner(), body('MIT-KILLED-3'), id);
      // Step 2 exactly as the service makes it; the process dies before step 3.
      const s = buildServices(t.config, t.db, t.clock);
      const outcome = await s.acquirers.forMode('test').authorize({
        mode: 'test', source: { cardRef: pending.cardRef }, amount: pending.amount, currency: pending.currency, merchantReference: id, capture: true,
      });
      assert.equal(outcome.status, 'authorized');
      const retry = await t.api(m.testKey, 'POST', '/api/v1/payments', body('MIT-KILLED-3'), { 'idempotency-key': 'mit-key-3' });
      assert.equal(retry.status, 201, JSON.stringify(retry.body));
      assert.equal(retry.body.id, id);
      assert.equal(retry.body.status, 'captured');
      const held = await attempts(id);
      assert.deepEqual(held.map((a) => a.id), [(outcome as { authorizationId: string }).authorizationId], 'the first charge, and no other');
      assert.deepEqual(await events(id), ['payment.authorized', 'payment.captured']);
      const row = await t.db.kysely.selectFrom('payments').select(['captured_amount', 'card_last4']).where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.captured_amount, 2400);
      assert.equal(row.card_last4, '4242');
    });

    it('a retry while the first run still waits on the acquirer: one authorization for both', async () => {
      const key = 'mit-key-4';
      const id = merchantPaymentIdFor(owner(), key);
      const pending = await service.writePending(owner(), body('MIT-SLOW-4'), id);
      // The first run's step 2 and 3 (its acquirer call outlived the claim), the merchant's retry, and two more runs of
      // the same step, all at once: each asks the acquirer under the payment's id.
      const [, retry] = await Promise.all([
        service.authorize(pending),
        t.api(m.testKey, 'POST', '/api/v1/payments', body('MIT-SLOW-4'), { 'idempotency-key': key }),
        service.authorize(pending),
        service.authorize(pending),
      ]);
      assert.equal(retry.status, 201, JSON.stringify(retry.body));
      assert.equal(retry.body.id, id);
      const held = await attempts(id);
      assert.deepEqual(held.map((a) => a.status), ['captured'], 'one charge at the acquirer');
      const row = await t.db.kysely.selectFrom('payments').select(['status', 'captured_amount', 'acquirer_authorization_id']).where('id', '=', id).executeTakeFirstOrThrow();
      assert.deepEqual(row, { status: 'captured', captured_amount: 2400, acquirer_authorization_id: held[0]!.id });
      assert.deepEqual(await events(id), ['payment.authorized', 'payment.captured']);
      const seen = await t.api(m.testKey, 'GET', `/api/v1/payments/${id}`);
      assert.equal(seen.body.status, 'captured');
    });
  });
});

eachDatabase('an Idempotency-Key used again after its 24 hours', (dialect) => {
  const { t, m, clock } = withMerchantApp(dialect, { clock: 'now' });
  const owner = () => ({ merchantId: m.id, mode: 'test' as const });
  const payment = (id: string) => t.db.kysely.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('a session or refund key used again after 24 hours names a new object; its retry after a kill finds that one', async () => {
    const body = (reference: string) => ({ order: { reference, amount: 1000, currency: 'EUR' }, redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/n' });
    const first = await t.api(m.testKey, 'POST', '/api/v1/payments/sessions', body('REUSE-1'), { 'idempotency-key': 'reused' });
    assert.equal(first.body.paymentId, sessionIdsFor(owner(), 'session', 'reused').paymentId);
    // The ses_ is the customer's bearer capability: random, not computable from the merchant id and the key.
    assert.notEqual(first.body.sessionId, idFromKey('ses', ['ses', m.id, 'test', 'session', 'reused']));
    clock.advance(25 * 3600 * 1000);
    const again = await t.api(m.testKey, 'POST', '/api/v1/payments/sessions', body('REUSE-2'), { 'idempotency-key': 'reused' });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.equal(again.body.paymentId, sessionIdsFor(owner(), 'session', 'reused', 1).paymentId);
    // That second use killed after its commit and retried: the second use's session, not a third.
    await t.db.kysely.updateTable('idempotency_keys').set({ state: 'in_flight', status_code: null, response_body: null, created_at: new Date(clock.now().getTime() - 61_000).toISOString() })
      .where('merchant_id', '=', m.id).where('key', '=', 'reused').execute();
    const retry = await t.api(m.testKey, 'POST', '/api/v1/payments/sessions', body('REUSE-2'), { 'idempotency-key': 'reused' });
    assert.deepEqual(retry.body, again.body);
    assert.equal((await t.api(m.testKey, 'GET', '/api/v1/payments?reference=REUSE-2')).body.data.length, 1);

    const id = await paidPayment(t, m.testKey, { amount: 10_000 });
    const r0 = await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amountCents: 1000 }, { 'idempotency-key': 'refund-reused' });
    assert.equal(r0.body.id, refundIdFor(id, 'refund-reused'));
    clock.advance(25 * 3600 * 1000);
    const r1 = await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amountCents: 1000 }, { 'idempotency-key': 'refund-reused' });
    assert.equal(r1.status, 201, JSON.stringify(r1.body));
    assert.equal(r1.body.id, refundIdFor(id, 'refund-reused', 1), 'a new refund, not the day-old one answered again');
    assert.equal((await payment(id)).refunded_amount, 2000);
  });
});

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

eachDatabase('a capture or cancel killed mid-way, with MOTU_OPERATION_CLAIM_SECONDS=5', (dialect) => {
  const { t, m, clock } = withMerchantApp(dialect, { clock: 'now', env: { MOTU_OPERATION_CLAIM_SECONDS: '5', MOTU_METRICS_TOKEN: METRICS_TOKEN } });
  const owner = () => ({ merchantId: m.id, mode: 'test' as const });
  const payment = (id: string) => t.db.kysely.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('a capture killed mid-way: 422 with retryAfterSeconds while its claim holds, then the retry captures once', async () => {
    const s = buildServices(t.config, t.db, clock);
    assert.equal(s.lifecycle.claimTtlSeconds, 5);
    const viewAt = async (id: string) => (await s.acquirers.forMode('test').getAuthorization('test', (await payment(id)).acquirer_authorization_id!))!;
    const captured = async (id: string) => (await paymentEvents(t, id)).filter((e) => e.type === 'payment.captured').length;
    // Killed before the acquirer was called, and killed after it captured (before recording it).
    const before = await paidPayment(t, m.testKey, { amount: 4000, captureMode: 'MANUAL' });
    const afterAcquirer = await paidPayment(t, m.testKey, { amount: 4000, captureMode: 'MANUAL' });
    await s.lifecycle.claimCapture({ ...owner(), storeId: null }, before);
    const claimed = await s.lifecycle.claimCapture({ ...owner(), storeId: null }, afterAcquirer);
    assert.equal((await s.acquirers.forMode('test').capture({ mode: 'test', authorizationId: claimed.acquirer_authorization_id!, amount: 4000 })).ok, true);
    clock.advance(2_000);
    for (const id of [before, afterAcquirer]) {
      const busy = await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/capture`, {}, { 'idempotency-key': `cap-${id}` });
      assert.equal(busy.status, 422);
      assert.equal(busy.body.code, 'PAYMENT_NOT_CAPTURABLE');
      assert.equal(busy.body.details.operation, 'capture');
      assert.equal(busy.body.details.retryAfterSeconds, 3);
      assert.equal(busy.headers['retry-after'], '3');
      assert.match(busy.body.message, /under way; this is not final: retry in 3 s/);
      const cancel = await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/cancel`);
      assert.equal(cancel.body.code, 'PAYMENT_NOT_CANCELLABLE');
      assert.equal(cancel.body.details.retryAfterSeconds, 3);
    }
    clock.advance(3_500);
    for (const id of [before, afterAcquirer]) {
      // The same Idempotency-Key: the 422 said to retry later, so it was not kept as that key's answer.
      const retry = await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/capture`, {}, { 'idempotency-key': `cap-${id}` });
      assert.equal(retry.status, 200, JSON.stringify(retry.body));
      assert.equal(retry.body.status, 'captured');
      const view = await viewAt(id);
      assert.equal(view.status, 'captured');
      assert.equal(view.capturedAmount, 4000, 'captured once at the acquirer');
      assert.equal((await payment(id)).captured_amount, 4000);
      assert.equal(await captured(id), 1, 'one payment.captured');
    }
  });

  it('the recovery job resolves a claim once it is older than MOTU_OPERATION_CLAIM_SECONDS', async () => {
    const s = buildServices(t.config, t.db, clock);
    const id = await paidPayment(t, m.testKey, { amount: 2500, captureMode: 'MANUAL' });
    const claimed = await s.lifecycle.claimCapture({ ...owner(), storeId: null }, id);
    await s.acquirers.forMode('test').capture({ mode: 'test', authorizationId: claimed.acquirer_authorization_id!, amount: 2500 });
    const deps = { db: t.db, clock, acquirers: s.acquirers, lifecycle: s.lifecycle, testSettlementDelaySeconds: t.config.testSettlementDelaySeconds };
    clock.advance(4_000);
    assert.equal(await recoverClaims(deps, clock.now()), 0, 'younger than 5 s: left alone');
    clock.advance(2_000);
    assert.equal(await recoverClaims(deps, clock.now()), 1);
    assert.equal((await payment(id)).status, 'captured');
    assert.equal((await paymentEvents(t, id)).filter((e) => e.type === 'payment.captured').length, 1);
  });

  describe('a merchant-initiated payment left pending by its stopped request, never retried', () => {
    let service: MerchantPaymentsService;
    let visa: string;
    let recover: () => Promise<number>;
    let releaseJob: () => Promise<number>;
    before(async () => {
      const customerId = await createCustomer(t, m.testKey);
      visa = (await saveCard(t, m.testKey, customerId, CARDS.visa)).result.paymentMethodId;
      const s = buildServices(t.config, t.db, clock);
      service = new MerchantPaymentsService(t.db, clock, s.acquirers, s.paymentSessions, s.payments, t.config);
      recover = () => service.recoverLeftPending(clock.now());
      releaseJob = () => service.releaseLateAuthorizations(clock.now(), recoveryEveryMs(5));
    });
    const body = (reference: string, captureMode: 'AUTO' | 'MANUAL' = 'AUTO') => ({ paymentMethodId: visa, order: { reference, amount: 3100, currency: 'EUR' as const }, captureMode, notificationUrl: 'https://shop.example/n' });
    const attempts = (id: string) => t.db.kysely.selectFrom('acquirer_authorizations').select(['id', 'status']).where('merchant_reference', '=', id).execute();
    const types = async (id: string) => (await paymentEvents(t, id)).map((e) => e.type).sort();

    it('stopped before the acquirer: the recovery job fails it, with no charge, once older than MOTU_OPERATION_CLAIM_SECONDS', async () => {
      const { paymentId: id } = await service.writePending({ ...owner(), storeId: null }, body('MIT-LEFT-1'));
      clock.advance(4_000);
      assert.equal(await recover(), 0, 'younger than 5 s: its request may still be waiting for the acquirer');
      assert.equal((await payment(id)).status, 'pending');
      clock.advance(2_000);
      assert.equal(await recover(), 1);
      const row = await payment(id);
      assert.equal(row.status, 'failed');
      assert.equal(row.refusal_code, 'processing_error');
      assert.equal(row.captured_amount, 0);
      assert.equal(row.operation, 'release', 'watched for an authorization its stopped request may still bring');
      assert.equal((await attempts(id)).length, 0, 'the card was not charged');
      assert.deepEqual(await types(id), ['payment.failed']);
      const seen = await t.api(m.testKey, 'GET', `/api/v1/payments/${id}`);
      assert.equal(seen.body.status, 'failed');
      assert.equal(await recover(), 0, 'finished once');
      assert.deepEqual(await types(id), ['payment.failed']);
    });

    it('stopped after the acquirer charged: the recovery job records that charge and its events, once', async () => {
      const pending = await service.writePending({ ...owner(), storeId: null }, body('MIT-LEFT-2'));
      const s = buildServices(t.config, t.db, clock);
      const outcome = await s.acquirers.forMode('test').authorize({
        mode: 'test', source: { cardRef: pending.cardRef }, amount: pending.amount, currency: pending.currency, merchantReference: pending.paymentId, capture: true,
      });
      assert.equal(outcome.status, 'authorized');
      clock.advance(6_000);
      assert.equal(await recover(), 1);
      const row = await payment(pending.paymentId);
      assert.equal(row.status, 'captured');
      assert.equal(row.captured_amount, 3100);
      assert.equal(row.acquirer_authorization_id, (outcome as { authorizationId: string }).authorizationId);
      assert.deepEqual((await attempts(pending.paymentId)).map((a) => a.status), ['captured'], 'one charge');
      assert.deepEqual(await types(pending.paymentId), ['payment.authorized', 'payment.captured']);
      assert.equal(await recover(), 0);
    });

    for (const captureMode of ['AUTO', 'MANUAL'] as const) {
      it(`its request was only slow (${captureMode} capture): the job failed it meanwhile, and the charge that comes back is given back`, async () => {
        const pending = await service.writePending({ ...owner(), storeId: null }, body(`MIT-LATE-${captureMode}`, captureMode));
        clock.advance(6_000);
        assert.equal(await recover(), 1, 'no attempt at the acquirer yet: failed without a charge');
        assert.equal((await payment(pending.paymentId)).status, 'failed');
        // The request's own acquirer call answers now, authorized, and finds the payment failed.
        await service.authorize(pending);
        const row = await payment(pending.paymentId);
        assert.equal(row.status, 'failed', 'the merchant was told failed (payment.failed): it stays so');
        assert.equal(row.captured_amount, 0);
        assert.deepEqual(await types(pending.paymentId), ['payment.failed']);
        const held = await t.db.kysely.selectFrom('acquirer_authorizations').select(['status', 'captured_amount', 'refunded_amount'])
          .where('merchant_reference', '=', pending.paymentId).execute();
        assert.deepEqual(held, captureMode === 'AUTO'
          ? [{ status: 'captured', captured_amount: 3100, refunded_amount: 3100 }]
          : [{ status: 'cancelled', captured_amount: 0, refunded_amount: 0 }], 'the money went back to the card');
        // Another late run of the same call: the same authorization, nothing given back twice.
        await service.authorize(pending);
        assert.deepEqual(await t.db.kysely.selectFrom('acquirer_authorizations').select(['status', 'captured_amount', 'refunded_amount'])
          .where('merchant_reference', '=', pending.paymentId).execute(), held);
        // Nor by the release job, which watches the payment meanwhile.
        clock.advance(2_000);
        assert.equal(await releaseJob(), 0);
        assert.deepEqual(await t.db.kysely.selectFrom('acquirer_authorizations').select(['status', 'captured_amount', 'refunded_amount'])
          .where('merchant_reference', '=', pending.paymentId).execute(), held);
        assert.deepEqual(await types(pending.paymentId), ['payment.failed']);
      });
    }

    it('its stopped request\'s call reaches the acquirer only after the job failed the payment: the release job refunds that charge, once, and stops watching after 24 h', async () => {
      const pending = await service.writePending({ ...owner(), storeId: null }, body('MIT-LATE-DEAD'));
      clock.advance(6_000);
      assert.equal(await recover(), 1);
      assert.equal(await releaseJob(), 0, 'nothing at the acquirer yet');
      // The dead request's call lands now (nobody is left to see its answer), captured in the same call.
      const s = buildServices(t.config, t.db, clock);
      const late = await s.acquirers.forMode('test').authorize({
        mode: 'test', source: { cardRef: pending.cardRef }, amount: pending.amount, currency: pending.currency,
        merchantReference: pending.paymentId, reference: pending.paymentId, capture: true,
      });
      assert.equal(late.status, 'authorized');
      const authorizationId = (late as { authorizationId: string }).authorizationId;
      // An earlier give-back under the first reference was refused by the acquirer: its answer stands, the next reference is used.
      const refused = await s.acquirers.forMode('test').refund({ mode: 'test', authorizationId, amount: 999_999, reference: `release_${authorizationId}` });
      assert.equal(refused.ok, false);
      assert.equal(await releaseJob(), 0, 'looked at a moment ago: not before the job\'s period has passed');
      clock.advance(1_300);
      assert.equal(await releaseJob(), 1);
      const held = () => t.db.kysely.selectFrom('acquirer_authorizations').select(['status', 'captured_amount', 'refunded_amount'])
        .where('merchant_reference', '=', pending.paymentId).execute();
      assert.deepEqual(await held(), [{ status: 'captured', captured_amount: 3100, refunded_amount: 3100 }], 'the money went back to the card');
      assert.deepEqual(await t.db.kysely.selectFrom('acquirer_refunds').select(['reference', 'amount', 'status'])
        .where('authorization_id', '=', authorizationId).orderBy('reference').execute(), [
        { reference: `release_${authorizationId}`, amount: 999_999, status: 'refused' },
        { reference: `release_${authorizationId}_1`, amount: 3100, status: 'succeeded' },
      ]);
      const row = await payment(pending.paymentId);
      assert.equal(row.status, 'failed');
      assert.equal(row.captured_amount, 0);
      assert.deepEqual(await types(pending.paymentId), ['payment.failed'], 'the merchant was told failed: no other event');
      // Looked at again later, with growing gaps: nothing more to give back.
      for (let hour = 1; hour < 24; hour++) {
        clock.advance(3_600_000);
        assert.equal(await releaseJob(), 0);
        assert.equal((await payment(pending.paymentId)).operation, 'release', `still watched after ${hour} h`);
      }
      clock.advance(3_600_000);
      assert.equal(await releaseJob(), 0);
      assert.equal((await payment(pending.paymentId)).operation, null, 'the watch ends 24 h after the failure');
      assert.deepEqual(await held(), [{ status: 'captured', captured_amount: 3100, refunded_amount: 3100 }]);
      assert.equal((await payment(pending.paymentId)).updated_at, row.updated_at, 'the payment itself unchanged');
    });

    it('the acquirer down when the late charge comes back: the request still answers, and the release job gives it back once the acquirer answers', async () => {
      const s = buildServices(t.config, t.db, clock);
      const simulator = s.acquirers.simulator;
      let down = false;
      const unreachable = () => { throw new Error('acquirer unreachable'); };
      // The acquirer is outside Motu: here it stops answering anything but the authorization already on its way.
      const flaky = Object.assign(Object.create(simulator) as typeof simulator, {
        cancel: (input: Parameters<typeof simulator.cancel>[0]) => (down ? unreachable() : simulator.cancel(input)),
        refund: (input: Parameters<typeof simulator.refund>[0]) => (down ? unreachable() : simulator.refund(input)),
        getAuthorization: (...a: Parameters<typeof simulator.getAuthorization>) => (down ? unreachable() : simulator.getAuthorization(...a)),
        listAuthorizations: (...a: Parameters<typeof simulator.listAuthorizations>) => (down ? unreachable() : simulator.listAuthorizations(...a)),
      });
      const acquirers = Object.assign(Object.create(s.acquirers) as typeof s.acquirers, { forMode: () => flaky });
      const flakyService = new MerchantPaymentsService(t.db, clock, acquirers, s.paymentSessions, s.payments, t.config);
      const pending = await flakyService.writePending({ ...owner(), storeId: null }, body('MIT-LATE-DOWN', 'MANUAL'));
      clock.advance(6_000);
      assert.equal(await flakyService.recoverLeftPending(clock.now()), 1);
      down = true;
      await flakyService.authorize(pending); // answers; the payment as it stands is what the request returns
      const row = await payment(pending.paymentId);
      assert.equal(row.status, 'failed');
      assert.equal(row.operation, 'release');
      const held = () => t.db.kysely.selectFrom('acquirer_authorizations').select(['status']).where('merchant_reference', '=', pending.paymentId).execute();
      assert.deepEqual(await held(), [{ status: 'authorized' }], 'still held on the card while the acquirer is down');
      clock.advance(2_000);
      assert.equal(await flakyService.releaseLateAuthorizations(clock.now(), 1_250), 0);
      assert.deepEqual(await held(), [{ status: 'authorized' }]);
      assert.equal((await payment(pending.paymentId)).operation, 'release', 'looked at again later');
      // What an operator sees on /metrics: watched, and once still held a day after the failure, overdue.
      const gauges = async () => {
        const body = String((await t.api(METRICS_TOKEN, 'GET', '/metrics')).body);
        const read = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(body)?.[1]);
        return { watched: read('motu_late_authorizations_watched'), overdue: read('motu_late_authorizations_overdue') };
      };
      const before = await gauges();
      assert.ok(before.watched >= 1, `watched ${before.watched}`);
      for (let hour = 1; hour <= 24; hour++) {
        clock.advance(3_600_000);
        assert.equal(await flakyService.releaseLateAuthorizations(clock.now(), 1_250), 0);
      }
      assert.equal((await payment(pending.paymentId)).operation, 'release', 'still held after 24 h: still watched');
      const overdue = await gauges();
      assert.equal(overdue.overdue, 1, 'the one payment whose authorization could not be given back for a day');
      down = false;
      clock.advance(3_600_000);
      assert.equal(await flakyService.releaseLateAuthorizations(clock.now(), 1_250), 1);
      assert.deepEqual(await held(), [{ status: 'cancelled' }], 'the hold on the card released');
      assert.deepEqual(await types(pending.paymentId), ['payment.failed']);
      // Given back, and more than 24 h after the failure: the watch ends.
      assert.equal((await payment(pending.paymentId)).operation, null);
      assert.deepEqual(await gauges(), { watched: overdue.watched - 1, overdue: 0 });
    });

    it('a retry of the request holding the payment meanwhile: the job leaves it to that retry', async () => {
      const key = 'mit-left-3';
      const id = merchantPaymentIdFor(owner(), key);
      await service.writePending({ ...owner(), storeId: null }, body('MIT-LEFT-3'), id);
      clock.advance(6_000);
      // The retry claims the payment before charging it; the job, at the same moment, finds it claimed.
      await t.db.kysely.updateTable('payments').set({ operation: 'authorize', operation_at: clock.now().toISOString() }).where('id', '=', id).execute();
      assert.equal(await recover(), 0, 'claimed by the retry');
      assert.equal((await payment(id)).status, 'pending');
      clock.advance(6_000); // that retry stopped too: its claim lapses, the job takes over
      assert.equal(await recover(), 1);
      assert.equal((await payment(id)).status, 'failed');
      // The merchant's own retry, later, answers what was decided: failed, never charged.
      const retry = await t.api(m.testKey, 'POST', '/api/v1/payments', body('MIT-LEFT-3'), { 'idempotency-key': key });
      assert.equal(retry.status, 201, JSON.stringify(retry.body));
      assert.equal(retry.body.id, id);
      assert.equal(retry.body.status, 'failed');
      assert.equal((await attempts(id)).length, 0);
    });
  });
});
