// Recovery of lifecycle operations interrupted between their two transactions (a process killed after step 1).
// The interrupted state is made by the service's own step functions (reserveRefund, claimCapture, claimCancel),
// optionally followed by the acquirer call of step 2 made exactly as the service makes it, and never step 3; then
// the worker's recovery jobs run with a ManualClock moved past the threshold. Checked each time: the money
// reconciles (Motu's refunded/reserved amounts against the acquirer's), exactly one event, never a second refund
// or capture at the acquirer.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Acquirers } from '../src/acquirer/acquirers.js';
import type { ScheduleDeps } from '../src/jobs.js';
import type { PaymentLifecycleService } from '../src/modules/payments/lifecycle.service.js';
import { recoverClaims } from '../src/modules/payments/payments.scheduler.js';
import { RECOVERY_AFTER_SECONDS, recoverRefunds } from '../src/modules/refunds/refunds.jobs.js';
import { refundIdFor, type RefundsService } from '../src/modules/refunds/refunds.service.js';
import { requestHash } from '../src/http/idempotency.js';
import { PaymentSessionsService, sessionIdsFor } from '../src/modules/sessions/sessions.service.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paidPayment } from './support/payments.js';
import { paymentEvents } from './support/events.js';
import { paymentSchedule, type Schedule } from './support/schedule.js';

eachDatabase('recovery of interrupted refunds, captures and cancels', (dialect) => {
  const { t, m, clock } = withMerchantApp(dialect, { clock: 'now', env: { MOTU_TEST_SETTLEMENT_DELAY: '60' } });
  let schedule: Schedule;
  let deps: ScheduleDeps;
  let lifecycle: PaymentLifecycleService;
  let refunds: RefundsService;
  let acquirers: Acquirers;
  const owner = () => ({ merchantId: m.id, mode: 'test' as const });
  const pastThreshold = () => clock.advance((RECOVERY_AFTER_SECONDS + 1) * 1000);

  before(async () => {
    schedule = paymentSchedule(t, clock);
    ({ deps } = schedule);
    ({ acquirers, lifecycle, refunds } = schedule.services);
  });

  const row = (id: string) => t.db.kysely.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const refundRow = (id: string) => t.db.kysely.selectFrom('refunds').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const atAcquirer = async (paymentId: string) => {
    const p = await row(paymentId);
    return (await acquirers.simulator.getAuthorization('test', p.acquirer_authorization_id!))!;
  };
  const refundEvents = async (id: string) => (await paymentEvents(t, id)).filter((e) => e.type === 'payment.refunded' || e.type === 'payment.partially_refunded');

  /** Motu's books and the acquirer's agree, and nothing is left reserved. */
  async function reconciles(paymentId: string) {
    const p = await row(paymentId);
    const auth = await atAcquirer(paymentId);
    assert.equal(p.refund_reserved, 0, 'nothing left reserved');
    assert.equal(p.refunded_amount, auth.refundedAmount, 'refunded here = refunded at the acquirer');
    assert.equal(p.captured_amount, auth.capturedAmount);
    const succeeded = await t.db.kysely.selectFrom('refunds').select('amount').where('payment_id', '=', paymentId).where('status', '=', 'succeeded').execute();
    assert.equal(succeeded.reduce((sum, r) => sum + r.amount, 0), p.refunded_amount, 'refunded = Σ succeeded refunds');
    const events = await refundEvents(paymentId);
    assert.equal(events.length, succeeded.length, 'one event per succeeded refund');
    assert.equal(events.reduce((sum, e) => sum + e.data.refundOriginalAmount, 0), p.refunded_amount);
  }

  it('the acquirer refund is idempotent on its reference and reports it', async () => {
    const id = await paidPayment(t, m.testKey, { amount: 5000 });
    const authorizationId = (await row(id)).acquirer_authorization_id!;
    const sim = acquirers.simulator;
    assert.equal(await sim.getRefund('test', 're_unknown'), null);
    const calls = await Promise.all(Array.from({ length: 10 }, () => sim.refund({ mode: 'test', authorizationId, amount: 1200, reference: 're_same' })));
    assert.ok(calls.every((r) => r.ok), JSON.stringify(calls));
    assert.equal((await atAcquirer(id)).refundedAmount, 1200, 'ten calls with one reference: one refund');
    const seen = await sim.getRefund('test', 're_same');
    assert.equal(seen?.status, 'succeeded');
    assert.equal(seen?.amount, 1200);
    assert.equal(seen?.authorizationId, authorizationId);
    // A refused reference stays refused, even once the amount would fit.
    const refused = await sim.refund({ mode: 'test', authorizationId, amount: 4000, reference: 're_big' });
    assert.equal(refused.ok, false);
    assert.equal((await sim.getRefund('test', 're_big'))?.status, 'refused');
    assert.equal((await sim.refund({ mode: 'test', authorizationId, amount: 4000, reference: 're_big' })).ok, false);
    // Another reference is another refund.
    assert.equal((await sim.refund({ mode: 'test', authorizationId, amount: 300, reference: 're_other' })).ok, true);
    assert.equal((await atAcquirer(id)).refundedAmount, 1500);
    assert.equal(await sim.getRefund('live', 're_same'), null, 'references are per mode');
  });

  it('a refund interrupted after its reservation, before the acquirer: refunded once by the recovery job', async () => {
    const id = await paidPayment(t, m.testKey, { amount: 10_000 });
    const { refund } = await refunds.reserveRefund(owner(), id, { amountCents: 4000, reason: 'kill after step 1' });
    assert.equal(refund.status, 'pending');
    assert.equal((await row(id)).refund_reserved, 4000);
    // While pending, the reservation holds: only 6,000 is left.
    const beyond = await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amountCents: 6001 });
    assert.equal(beyond.body.code, 'REFUND_EXCEEDS_CAPTURED');
    assert.equal(beyond.body.details.refundable, 6000);

    clock.advance((RECOVERY_AFTER_SECONDS - 5) * 1000);
    assert.equal(await recoverRefunds(deps, clock.now()), 0, 'a recent pending refund may still be running: left alone');
    assert.equal((await refundRow(refund.id)).status, 'pending');
    assert.equal((await atAcquirer(id)).refundedAmount, 0);

    pastThreshold();
    assert.equal((await schedule.tick()).refundsRecovered, 1);
    const done = await refundRow(refund.id);
    assert.equal(done.status, 'succeeded');
    const p = await row(id);
    assert.equal(p.status, 'partially_refunded');
    assert.equal(p.refunded_amount, 4000);
    assert.equal((await acquirers.simulator.getRefund('test', refund.id))?.status, 'succeeded');
    const events = await refundEvents(id);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.type, 'payment.partially_refunded');
    assert.equal(events[0]!.data.refundId, refund.id);
    assert.equal(events[0]!.data.refundOriginalAmount, 4000);
    assert.equal(events[0]!.data.remainingOriginalAmount, 6000);

    // Later runs change nothing; the rest can be refunded through the API.
    pastThreshold();
    assert.equal(await recoverRefunds(deps, clock.now()), 0);
    const rest = await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/refund`, {});
    assert.equal(rest.status, 201, JSON.stringify(rest.body));
    assert.equal(rest.body.amount, 6000);
    assert.equal((await row(id)).status, 'refunded');
    assert.equal((await atAcquirer(id)).refundedAmount, 10_000);
    await reconciles(id);
    const listed = await t.api(m.testKey, 'GET', `/api/v1/payments/${id}/refunds`);
    assert.deepEqual(listed.body.data.map((r: any) => [r.id, r.status]), [[refund.id, 'succeeded'], [rest.body.id, 'succeeded']]);
  });

  /** What a refund request killed after its step 1 leaves behind: the refund reserved and its key in flight. */
  async function killedRefundRequest(id: string, key: string, amountCents: number) {
    const body = { amountCents };
    const { refund } = await refunds.reserveRefund(owner(), id, body, key);
    await t.db.kysely.insertInto('idempotency_keys').values({
      merchant_id: m.id, mode: 'test', scope: '', key, state: 'in_flight', status_code: null, response_body: null,
      request_hash: requestHash({ method: 'POST', url: `/api/v1/payments/${id}/refund`, body } as never),
      created_at: clock.now().toISOString(), expires_at: new Date(clock.now().getTime() + 86_400_000).toISOString(),
    }).execute();
    return refund;
  }

  it('a refund request killed mid-way and retried with its Idempotency-Key once abandoned: the same refund, once (chaos run defect)', async () => {
    const id = await paidPayment(t, m.testKey, { amount: 10_000 });
    const first = await killedRefundRequest(id, 'refund-once', 3000);
    assert.equal(first.id, refundIdFor(id, 'refund-once'));
    clock.advance(61_000); // the dead request's in-flight key is abandoned after 60 s: the retry runs the route again
    const retry = await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amountCents: 3000 }, { 'idempotency-key': 'refund-once' });
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.equal(retry.body.id, first.id, 'the retry resumes the refund its first run reserved');
    const refunds = await t.db.kysely.selectFrom('refunds').selectAll().where('payment_id', '=', id).execute();
    assert.deepEqual(refunds.map((r) => [r.id, r.status]), [[first.id, 'succeeded']]);
    assert.equal((await atAcquirer(id)).refundedAmount, 3000);
    await reconciles(id);
    // Replayed from then on; another key is another refund.
    const replay = await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amountCents: 3000 }, { 'idempotency-key': 'refund-once' });
    assert.equal(replay.body.id, first.id);
    const other = await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amountCents: 3000 }, { 'idempotency-key': 'refund-twice' });
    assert.equal(other.status, 201);
    assert.notEqual(other.body.id, first.id);
    assert.equal((await atAcquirer(id)).refundedAmount, 6000);
    await reconciles(id);
  });

  it('a killed refund already settled by the recovery job, then retried with its Idempotency-Key: answered, not refunded again', async () => {
    const id = await paidPayment(t, m.testKey, { amount: 10_000 });
    const first = await killedRefundRequest(id, 'refund-recovered', 2500);
    pastThreshold();
    assert.equal((await schedule.tick()).refundsRecovered, 1);
    const retry = await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amountCents: 2500 }, { 'idempotency-key': 'refund-recovered' });
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.equal(retry.body.id, first.id);
    assert.equal((await atAcquirer(id)).refundedAmount, 2500);
    assert.equal((await refundEvents(id)).length, 1);
    await reconciles(id);
  });

  it('a session request killed mid-way and retried with its Idempotency-Key once abandoned: one payment (chaos run defect)', async () => {
    const body = { order: { reference: 'KILLED-SESSION', amount: 4200, currency: 'EUR' }, redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/n' };
    // What the killed request left: its session committed, its key in flight, no answer stored.
    const sessions = new PaymentSessionsService(t.db, clock, t.config);
    const first = await sessions.create({ ...owner(), storeId: null } as never, body as never, { idempotencyKey: 'session-once' });
    assert.equal(first.paymentId, sessionIdsFor(owner(), 'session', 'session-once').paymentId);
    await t.db.kysely.insertInto('idempotency_keys').values({
      merchant_id: m.id, mode: 'test', scope: '', key: 'session-once', state: 'in_flight', status_code: null, response_body: null,
      request_hash: requestHash({ method: 'POST', url: '/api/v1/payments/sessions', body } as never),
      created_at: clock.now().toISOString(), expires_at: new Date(clock.now().getTime() + 86_400_000).toISOString(),
    }).execute();
    clock.advance(61_000);
    const retry = await t.api(m.testKey, 'POST', '/api/v1/payments/sessions', body, { 'idempotency-key': 'session-once' });
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    assert.deepEqual(retry.body, JSON.parse(JSON.stringify(first)), 'the retry answers the session its first run created');
    const listed = await t.api(m.testKey, 'GET', '/api/v1/payments?reference=KILLED-SESSION');
    assert.deepEqual(listed.body.data.map((p: { id: string }) => p.id), [first.paymentId]);
    // Another key is another session.
    const other = await t.api(m.testKey, 'POST', '/api/v1/payments/sessions', body, { 'idempotency-key': 'session-twice' });
    assert.equal(other.status, 201);
    assert.notEqual(other.body.paymentId, first.paymentId);
  });

  it('MOTU_REFUND_RECOVERY_SECONDS sets the threshold of the recovery job', async () => {
    const id = await paidPayment(t, m.testKey, { amount: 10_000 });
    const { refund } = await refunds.reserveRefund(owner(), id, { amountCents: 1000, reason: 'short threshold' });
    const short = { ...deps, refundRecoverySeconds: 10 };
    clock.advance(8_000);
    assert.equal(await recoverRefunds(short, clock.now()), 0, 'younger than the configured threshold: left alone');
    clock.advance(3_000);
    assert.equal(await recoverRefunds(deps, clock.now()), 0, 'the default threshold (120 s) is not reached');
    assert.equal(await recoverRefunds(short, clock.now()), 1);
    assert.equal((await refundRow(refund.id)).status, 'succeeded');
    await reconciles(id);
  });

  it('a refund interrupted after the acquirer refunded, before the outcome: recorded once, never refunded twice', async () => {
    const id = await paidPayment(t, m.testKey, { amount: 10_000 });
    const { payment, refund } = await refunds.reserveRefund(owner(), id, { amountCents: 10_000 });
    // Step 2 exactly as the service makes it; the process dies before step 3.
    const sent = await acquirers.simulator.refund({ mode: 'test', authorizationId: payment.acquirer_authorization_id!, amount: refund.amount, reference: refund.id });
    assert.equal(sent.ok, true);
    assert.equal((await row(id)).refunded_amount, 0);

    pastThreshold();
    // Two workers and the original request finishing late, all at once: one refund, one event.
    const [, , late] = await Promise.all([recoverRefunds(deps, clock.now()), recoverRefunds(deps, clock.now()), refunds.completeRefund(payment, refund)]);
    assert.equal(late.status, 'succeeded');
    assert.equal((await atAcquirer(id)).refundedAmount, 10_000, 'refunded once at the acquirer');
    const p = await row(id);
    assert.equal(p.status, 'refunded');
    const events = await refundEvents(id);
    assert.deepEqual(events.map((e) => e.type), ['payment.refunded']);
    assert.equal(events[0]!.data.totalRefundedOriginalAmount, 10_000);
    await reconciles(id);
  });

  it('a pending refund the acquirer refuses: failed, the reservation released, no event', async () => {
    const id = await paidPayment(t, m.testKey, { amount: 10_000 });
    const { payment, refund } = await refunds.reserveRefund(owner(), id, { amountCents: 4000 });
    // Meanwhile the whole amount went back to the card outside Motu (the acquirer's back office): no room left.
    assert.equal((await acquirers.simulator.refund({ mode: 'test', authorizationId: payment.acquirer_authorization_id!, amount: 10_000, reference: 'backoffice-1' })).ok, true);
    pastThreshold();
    assert.equal(await recoverRefunds(deps, clock.now()), 1);
    const failed = await refundRow(refund.id);
    assert.equal(failed.status, 'failed');
    assert.ok(failed.failure_reason);
    const p = await row(id);
    assert.equal(p.refund_reserved, 0, 'reservation released');
    assert.equal(p.refunded_amount, 0);
    assert.equal(p.status, 'captured');
    assert.equal((await acquirers.simulator.getRefund('test', refund.id))?.status, 'refused');
    assert.equal((await atAcquirer(id)).refundedAmount, 10_000, 'not refunded a second time');
    assert.equal((await refundEvents(id)).length, 0);
    const view = (await t.api(m.testKey, 'GET', `/api/v1/payments/${id}/refunds`)).body.data[0];
    assert.equal(view.status, 'failed');
  });

  it('a capture interrupted after the acquirer captured: payment.captured once by the recovery job', async () => {
    const id = await paidPayment(t, m.testKey, { amount: 8000, captureMode: 'MANUAL' });
    const claimed = await lifecycle.claimCapture(owner(), id, 5000);
    assert.equal((await acquirers.simulator.capture({ mode: 'test', authorizationId: claimed.acquirer_authorization_id!, amount: claimed.captureAmount })).ok, true);
    const busy = await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/capture`);
    assert.equal(busy.body.code, 'PAYMENT_NOT_CAPTURABLE', 'the claim holds while it may still be running');
    clock.advance(30_000);
    assert.equal(await recoverClaims(deps, clock.now()), 0, 'too recent');
    pastThreshold();
    assert.equal(await recoverClaims(deps, clock.now()), 1);
    const p = await row(id);
    assert.equal(p.status, 'captured');
    assert.equal(p.captured_amount, 5000);
    assert.equal(p.operation, null);
    assert.equal(await recoverClaims(deps, clock.now()), 0);
    const captured = (await paymentEvents(t, id)).filter((e) => e.type === 'payment.captured');
    assert.equal(captured.length, 1);
    assert.equal(captured[0]!.data.grossAmount, 5000);
    assert.equal((await atAcquirer(id)).capturedAmount, 5000);
  });

  it('a capture interrupted before the acquirer: the claim is released and the merchant can capture', async () => {
    const id = await paidPayment(t, m.testKey, { amount: 3000, captureMode: 'MANUAL' });
    await lifecycle.claimCapture(owner(), id);
    pastThreshold();
    assert.equal(await recoverClaims(deps, clock.now()), 1);
    const p = await row(id);
    assert.equal(p.status, 'transit');
    assert.equal(p.operation, null);
    assert.equal((await atAcquirer(id)).status, 'authorized');
    assert.equal((await paymentEvents(t, id)).filter((e) => e.type === 'payment.captured').length, 0);
    const res = await t.api(m.testKey, 'POST', `/api/v1/payments/${id}/capture`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await paymentEvents(t, id)).filter((e) => e.type === 'payment.captured').length, 1);
  });

  it('an interrupted capture settled before the claim is recovered: payment.captured, then payment.settled', async () => {
    const id = await paidPayment(t, m.testKey, { amount: 2000, captureMode: 'MANUAL' });
    const claimed = await lifecycle.claimCapture(owner(), id);
    assert.equal((await acquirers.simulator.capture({ mode: 'test', authorizationId: claimed.acquirer_authorization_id!, amount: 2000 })).ok, true);
    clock.advance(61_000); // settlement delay 60 s < recovery threshold
    const tick = await schedule.tick();
    assert.equal(tick.claimsRecovered, 0);
    assert.ok(tick.settled >= 1);
    const p = await row(id);
    assert.equal(p.status, 'captured');
    assert.equal(p.settled, 1);
    assert.equal(p.captured_amount, 2000);
    assert.equal(p.operation, null);
    const types = (await paymentEvents(t, id)).map((e) => e.type);
    assert.deepEqual(types, ['payment.authorized', 'payment.captured', 'payment.settled']);
    pastThreshold();
    assert.equal((await schedule.tick()).claimsRecovered, 0);
    assert.deepEqual((await paymentEvents(t, id)).map((e) => e.type), types);
  });

  it('a cancel interrupted after the acquirer voided: payment.cancelled once by the recovery job', async () => {
    const id = await paidPayment(t, m.testKey, { amount: 2500, captureMode: 'MANUAL' });
    const claimed = await lifecycle.claimCancel(owner(), id);
    assert.ok(claimed);
    assert.equal((await acquirers.simulator.cancel({ mode: 'test', authorizationId: claimed.acquirer_authorization_id! })).ok, true);
    pastThreshold();
    const [a, b] = await Promise.all([recoverClaims(deps, clock.now()), recoverClaims(deps, clock.now())]);
    assert.equal(a + b, 1);
    const p = await row(id);
    assert.equal(p.status, 'cancelled');
    assert.equal(p.operation, null);
    const cancelled = (await paymentEvents(t, id)).filter((e) => e.type === 'payment.cancelled');
    assert.equal(cancelled.length, 1);
    assert.equal(cancelled[0]!.data.cancelledBy, 'merchant_api');
    assert.equal((await atAcquirer(id)).status, 'cancelled');
  });
});
