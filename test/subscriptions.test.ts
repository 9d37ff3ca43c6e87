// Subscriptions through HTTP on every database, driven by test clocks: a year of monthly due dates in seconds (month
// ends clamped), retries on the retry schedule then past due and back, the mandate revoked by a card the acquirer
// no longer knows or the merchant deletes and restored (missed due dates skipped, or collected), cancellation now
// and at the period's end, endAfter; every event; never a due date charged twice; bad input, isolation.
import { signedInUser } from './support/back-office.js';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eventsOfType } from './support/events.js';
import { createMerchant } from './support/factories.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paymentSchedule } from './support/schedule.js';
import { saveCard } from './support/wallet.js';

const DAY = 86_400_000;
const START = '2027-01-31T10:00:00.000Z';

eachDatabase('subscriptions', (dialect) => {
  const { t, m, clock } = withMerchantApp(dialect, { checkAnswers: true, clock: 'now', env: { MOTU_TEST_SETTLEMENT_DELAY: '60' } });
  const api = (method: string, url: string, body?: unknown, key = m.testKey) => t.api(key, method, url, body);
  const schedule = () => paymentSchedule(t, clock);

  /** A customer on a new test clock at START, with a saved card (`number`). */
  const customer = async (number = '4242424242424242') => {
    const c = (await api('POST', '/api/v1/test-helpers/test-clocks', { frozenTime: START })).body;
    const cus = await api('POST', '/api/v1/customers', { email: `sub-${c.id}@example.com`, testClockId: c.id });
    assert.equal(cus.status, 201, JSON.stringify(cus.body));
    const saved = await saveCard(t, m.testKey, cus.body.id, number);
    return { clockId: c.id as string, customerId: cus.body.id as string, paymentMethodId: saved.result.paymentMethodId as string };
  };
  const advance = async (clockId: string, to: string) => {
    const res = await api('POST', `/api/v1/test-helpers/test-clocks/${clockId}/advance`, { frozenTime: to });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await schedule().tick();
    assert.equal((await api('GET', `/api/v1/test-helpers/test-clocks/${clockId}`)).body.status, 'ready');
  };
  const subscribe = async (body: Record<string, unknown>) => {
    const res = await api('POST', '/api/v1/subscriptions', { amount: 2500, currency: 'EUR', interval: 'month', ...body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  };
  const dueDates = async (id: string) => (await api('GET', `/api/v1/subscriptions/${id}/due-dates?limit=100`)).body.data as Array<{ dueDate: string; status: string; attempts: Array<{ paymentId: string; outcome: string; refusalCode: string | null }>; nextAttemptAt: string | null }>;
  const events = async (type: string, id: string) => (await eventsOfType(t, type)).filter((e) => e.data.subscriptionId === id);
  const get = async (id: string) => (await api('GET', `/api/v1/subscriptions/${id}`)).body;

  it('a year of monthly due dates in seconds: each charged once, on the clamped month end, with its events', async () => {
    const c = await customer();
    const sub = await subscribe({ customerId: c.customerId, paymentMethodId: c.paymentMethodId });
    assert.match(sub.id, /^sub_/);
    assert.equal(sub.status, 'active');
    assert.equal(sub.nextDueDate, '2027-02-28T10:00:00.000Z', 'the first due date (the start) was charged at creation');
    const [created] = await events('subscription.created', sub.id);
    assert.deepEqual(created.data, {
      subscriptionId: sub.id, customerId: c.customerId, status: 'active', amount: 2500, currency: 'EUR', interval: 'month', intervalCount: 1, nextDueDate: START,
    });
    await advance(c.clockId, '2028-01-31T10:00:00.000Z');
    const rows = (await dueDates(sub.id)).reverse();
    assert.deepEqual(rows.map((r) => r.dueDate.slice(0, 10)), [
      '2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30', '2027-05-31', '2027-06-30', '2027-07-31', '2027-08-31',
      '2027-09-30', '2027-10-31', '2027-11-30', '2027-12-31', '2028-01-31',
    ]);
    assert.ok(rows.every((r) => r.status === 'paid' && r.attempts.length === 1 && r.attempts[0]!.outcome === 'succeeded'));
    const payments = await t.db.kysely.selectFrom('payments').select(['id', 'due_date', 'status', 'amount', 'created_at']).where('subscription_id', '=', sub.id).execute();
    assert.equal(payments.length, 13, 'one payment per due date');
    assert.ok(payments.every((p) => p.status === 'captured' && p.amount === 2500 && p.created_at === p.due_date), 'each dated by the clock at its due date');
    const view = (await api('GET', `/api/v1/payments/${payments[0]!.id}`)).body;
    assert.deepEqual([view.subscriptionId, typeof view.dueDate], [sub.id, 'string']);
    const succeeded = await events('subscription.payment_succeeded', sub.id);
    assert.equal(succeeded.length, 13);
    assert.deepEqual(Object.keys(succeeded[0].data).sort(), ['amount', 'attempt', 'currency', 'dueDate', 'paymentId', 'subscriptionId']);
    assert.equal((await get(sub.id)).nextDueDate, '2028-02-29T10:00:00.000Z', 'a leap year: February 29th');
  });

  it('a refused card is retried on the schedule, then the due date is unpaid and the subscription past due; a new card and retry bring it back', async () => {
    const c = await customer('4000000000000341');
    const sub = await subscribe({ customerId: c.customerId, paymentMethodId: c.paymentMethodId, retrySchedule: [1, 2] });
    let [due] = await dueDates(sub.id);
    assert.equal(due!.status, 'retrying');
    assert.equal(due!.nextAttemptAt, '2027-02-01T10:00:00.000Z');
    await advance(c.clockId, '2027-02-05T00:00:00.000Z');
    [due] = await dueDates(sub.id);
    assert.equal(due!.status, 'unpaid');
    assert.deepEqual(due!.attempts.map((a) => [a.outcome, a.refusalCode]), [['failed', 'card_declined'], ['failed', 'card_declined'], ['failed', 'card_declined']]);
    const failed = await events('subscription.payment_failed', sub.id);
    assert.deepEqual(failed.map((e) => [e.data.attempt, e.data.nextAttemptAt]), [[1, '2027-02-01T10:00:00.000Z'], [2, '2027-02-03T10:00:00.000Z'], [3, null]]);
    const [pastDue] = await events('subscription.past_due', sub.id);
    assert.deepEqual(pastDue.data, { subscriptionId: sub.id, dueDate: START, paymentId: failed[2].data.paymentId, amountDue: 2500 });
    assert.equal((await get(sub.id)).status, 'past_due');
    await advance(c.clockId, '2027-03-05T00:00:00.000Z');
    assert.equal((await dueDates(sub.id)).length, 1, 'no new due date opens while past due');
    // A new card, then the unpaid due date again.
    const card = await saveCard(t, m.testKey, c.customerId);
    assert.equal((await api('PATCH', `/api/v1/subscriptions/${sub.id}`, { paymentMethodId: card.result.paymentMethodId })).status, 200);
    const retried = await api('POST', `/api/v1/subscriptions/${sub.id}/retry`);
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(retried.body.status, 'active');
    assert.equal(retried.body.nextDueDate, '2027-03-31T10:00:00.000Z', 'active again from the next due date');
    const rows = await dueDates(sub.id);
    assert.deepEqual(rows.map((r) => [r.dueDate.slice(0, 10), r.status]), [['2027-02-28', 'skipped'], ['2027-01-31', 'paid']]);
    assert.equal((await api('POST', `/api/v1/subscriptions/${sub.id}/retry`)).body.code, 'SUBSCRIPTION_NOT_PAST_DUE');
  });

  it('a card unknown at the acquirer revokes the mandate; a card attached again restores it, skipping or collecting the missed due dates', async () => {
    const c = await customer('4000000000005126');
    const sub = await subscribe({ customerId: c.customerId, paymentMethodId: c.paymentMethodId });
    const after = await get(sub.id);
    assert.equal(after.status, 'waiting_mandate');
    assert.equal(after.paymentMethodId, null);
    const [revoked] = await events('subscription.mandate_revoked', sub.id);
    assert.deepEqual(revoked.data, { subscriptionId: sub.id, paymentMethodId: c.paymentMethodId, reason: 'unknown_at_acquirer' });
    await advance(c.clockId, '2027-04-15T00:00:00.000Z');
    assert.equal((await dueDates(sub.id)).length, 1, 'nothing opens while waiting for a mandate');
    const card = await saveCard(t, m.testKey, c.customerId);
    const restored = await api('PATCH', `/api/v1/subscriptions/${sub.id}`, { paymentMethodId: card.result.paymentMethodId, collectMissed: true });
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    assert.equal(restored.body.status, 'active');
    assert.equal(restored.body.nextDueDate, '2027-04-30T10:00:00.000Z');
    const [back] = await events('subscription.mandate_restored', sub.id);
    assert.deepEqual(back.data, { subscriptionId: sub.id, paymentMethodId: card.result.paymentMethodId, reason: 'integration' });
    const rows = (await dueDates(sub.id)).reverse();
    assert.deepEqual(rows.map((r) => [r.dueDate.slice(0, 10), r.status]), [['2027-01-31', 'paid'], ['2027-02-28', 'paid'], ['2027-03-31', 'paid']], 'the missed ones collected at once, without moving the clock');

    // Without collectMissed, the missed due dates are skipped. The merchant deleting the card revokes it too.
    assert.equal((await api('DELETE', `/api/v1/payment-methods/${card.result.paymentMethodId}`)).status, 200);
    const [deleted] = (await events('subscription.mandate_revoked', sub.id)).slice(1);
    assert.equal(deleted.data.reason, 'deleted');
    await advance(c.clockId, '2027-06-15T00:00:00.000Z');
    const third = await saveCard(t, m.testKey, c.customerId);
    // This time the merchant's team restores it, from the back-office: the event says so.
    const owner = await signedInUser(t, m.id, 'owner');
    assert.equal((await owner.call('PATCH', `/api/v1/subscriptions/${sub.id}`, { paymentMethodId: third.result.paymentMethodId })).status, 200);
    const [, byTeam] = await events('subscription.mandate_restored', sub.id);
    assert.deepEqual(byTeam.data, { subscriptionId: sub.id, paymentMethodId: third.result.paymentMethodId, reason: 'merchant' });
    const latest = (await dueDates(sub.id)).slice(0, 2);
    assert.deepEqual(latest.map((r) => [r.dueDate.slice(0, 10), r.status]), [['2027-05-31', 'skipped'], ['2027-04-30', 'skipped']]);
    assert.equal((await get(sub.id)).nextDueDate, '2027-06-30T10:00:00.000Z');
  });

  it('the cardholder restores the mandate by saving a card through a wallet session made for the subscription', async () => {
    const c = await customer('4000000000005126');
    const sub = await subscribe({ customerId: c.customerId, paymentMethodId: c.paymentMethodId });
    assert.equal((await get(sub.id)).status, 'waiting_mandate');
    const other = await customer();
    const refused = await api('POST', `/api/v1/customers/${other.customerId}/sessions`, { returnUrl: 'https://shop.example/w', subscriptionId: sub.id });
    assert.equal(refused.status, 400, "another customer's subscription");
    const session = await api('POST', `/api/v1/customers/${c.customerId}/sessions`, { returnUrl: 'https://shop.example/w', subscriptionId: sub.id });
    assert.equal(session.status, 201, JSON.stringify(session.body));
    const token = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123', session: session.body.sessionId });
    const saved = await t.api(undefined, 'POST', `/api/v1/sdk/sessions/${session.body.sessionId}/submit`, { token: token.body.token });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    const after = await get(sub.id);
    assert.deepEqual([after.status, after.paymentMethodId, after.nextDueDate], ['active', saved.body.paymentMethodId, '2027-02-28T10:00:00.000Z']);
    const [restored] = await events('subscription.mandate_restored', sub.id);
    assert.deepEqual(restored.data, { subscriptionId: sub.id, paymentMethodId: saved.body.paymentMethodId, reason: 'cardholder' });
    await advance(c.clockId, '2027-03-01T00:00:00.000Z');
    assert.deepEqual((await dueDates(sub.id)).map((r) => [r.dueDate.slice(0, 10), r.status]), [['2027-02-28', 'paid'], ['2027-01-31', 'skipped']]);
  });

  it('cancel at the period end cancels before charging it; cancel now is final; endAfter ends the series', async () => {
    const c = await customer();
    const atEnd = await subscribe({ customerId: c.customerId, paymentMethodId: c.paymentMethodId });
    const asked = await api('POST', `/api/v1/subscriptions/${atEnd.id}/cancel`, { atPeriodEnd: true });
    assert.deepEqual([asked.body.status, asked.body.cancelAt], ['active', '2027-02-28T10:00:00.000Z']);
    const three = await subscribe({ customerId: c.customerId, paymentMethodId: c.paymentMethodId, interval: 'week', endAfter: 3 });
    const now = await subscribe({ customerId: c.customerId, paymentMethodId: c.paymentMethodId, startDate: '2027-02-10T00:00:00.000Z' });
    const cancelled = await api('POST', `/api/v1/subscriptions/${now.id}/cancel`, {});
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal((await api('PATCH', `/api/v1/subscriptions/${now.id}`, { amount: 1 })).body.code, 'SUBSCRIPTION_CANCELLED');
    assert.equal((await api('POST', `/api/v1/subscriptions/${now.id}/cancel`, {})).body.code, 'SUBSCRIPTION_CANCELLED');
    await advance(c.clockId, '2027-04-01T00:00:00.000Z');
    assert.equal((await get(atEnd.id)).status, 'cancelled');
    assert.deepEqual((await dueDates(atEnd.id)).map((r) => r.status), ['paid'], 'the due date that ends it is not charged');
    assert.equal((await events('subscription.cancelled', atEnd.id)).length, 1);
    assert.equal((await get(three.id)).status, 'ended');
    assert.deepEqual((await dueDates(three.id)).map((r) => r.status), ['paid', 'paid', 'paid']);
    assert.deepEqual(await dueDates(now.id), [], 'cancelled before its start: never charged');
  });

  it('never charges a due date twice, whoever runs at once', async () => {
    const c = await customer();
    const sub = await subscribe({ customerId: c.customerId, paymentMethodId: c.paymentMethodId, startDate: '2027-02-01T00:00:00.000Z' });
    await api('POST', `/api/v1/test-helpers/test-clocks/${c.clockId}/advance`, { frozenTime: '2027-02-01T00:00:00.000Z' });
    const engine = schedule().services.subscriptionsEngine;
    const scope = { clockId: c.clockId, now: new Date('2027-02-01T00:00:00.000Z') };
    await engine.openDue(scope);
    await Promise.all([engine.chargeDue(scope), engine.chargeDue(scope), engine.runFor(sub.id), schedule().services.subscriptionsEngine.chargeDue(scope)]);
    const payments = await t.db.kysely.selectFrom('payments').select('id').where('subscription_id', '=', sub.id).execute();
    assert.equal(payments.length, 1);
    assert.equal((await events('subscription.payment_succeeded', sub.id)).length, 1);
  });

  it('bad input is a 400 or 422 that writes nothing; another merchant or mode gets 404', async () => {
    const c = await customer();
    const before = (await api('GET', '/api/v1/subscriptions?limit=100')).body.data.length;
    for (const body of [
      { customerId: c.customerId, amount: 0 }, { customerId: c.customerId, interval: 'fortnight' }, { customerId: c.customerId, retrySchedule: [1, 2, 3, 4, 5, 6, 7, 8, 9] },
      { customerId: c.customerId, retrySchedule: [31] }, { customerId: c.customerId, intervalCount: 366 }, { customerId: c.customerId, currency: 'USD' }, { customerId: c.customerId, extra: 1 },
    ]) {
      assert.equal((await api('POST', '/api/v1/subscriptions', { amount: 2500, currency: 'EUR', interval: 'month', ...body })).status, 400, JSON.stringify(body));
    }
    assert.equal((await api('POST', '/api/v1/subscriptions', { customerId: 'cus_nope', amount: 100, currency: 'EUR', interval: 'month' })).status, 404);
    const other = await customer();
    const foreign = await api('POST', '/api/v1/subscriptions', { customerId: c.customerId, paymentMethodId: other.paymentMethodId, amount: 100, currency: 'EUR', interval: 'month' });
    assert.equal(foreign.body.code, 'PAYMENT_METHOD_UNUSABLE');
    assert.equal((await api('GET', '/api/v1/subscriptions?limit=100')).body.data.length, before);
    const waiting = await subscribe({ customerId: c.customerId });
    assert.equal(waiting.status, 'waiting_mandate');
    const stranger = await createMerchant(t, 'Stranger');
    for (const key of [stranger.testKey, m.liveKey]) {
      assert.equal((await api('GET', `/api/v1/subscriptions/${waiting.id}`, undefined, key)).status, 404);
      assert.equal((await api('PATCH', `/api/v1/subscriptions/${waiting.id}`, { amount: 1 }, key)).status, 404);
      assert.equal((await api('POST', `/api/v1/subscriptions/${waiting.id}/cancel`, {}, key)).status, 404);
      assert.equal((await api('GET', `/api/v1/subscriptions/${waiting.id}/due-dates`, undefined, key)).status, 404);
    }
    assert.equal((await get(waiting.id)).status, 'waiting_mandate');
  });
});
