// The race suite: every route that moves money or consumes a count (or a sign-in attempt), fired 20 times at once
// with conflicting requests (or as many as the row says: 150 sign-ins), on every database; each row asserts exact counts of answers, rows and events, and `motu ledger verify` runs after
// each (docs/reliability.md, "Races"). Every race of the project is a row of the one table RACES below: the rows of a
// domain live in a module of test/races/ (or here), and a new route joins by adding its row, or its module's line, to
// RACES (test/support/races.ts says how).
import assert from 'node:assert/strict';
import { createMerchant, createCustomer, type MerchantFixture } from './support/factories.js';
import { CARDS } from './support/cards.js';
import type { TestApp } from './support/harness.js';
import { createSession, paidPayment } from './support/payments.js';
import { assertTally, countEvents, race, raceSuite, succeeded, tally, type RaceRow } from './support/races.js';
import { paymentSchedule } from './support/schedule.js';
import { saveCard } from './support/wallet.js';
import { cardLinkRaces } from './races/card-links.js';
import { invoiceRaces } from './races/invoices.js';
import { payoutFileRaces } from './races/payout-files.js';
import { signInRaces } from './races/sign-in.js';
import { onboardingRaces } from './races/onboarding.js';
import { splitRaces } from './races/splits.js';

/** The card rows' bounds: a session's card tokens and the cards it may send to the acquirer. */
const TOKENS_PER_SESSION = 5;
const CARD_ATTEMPTS = 3;
const CARD_BOUNDS = { MOTU_TOKENS_PER_SESSION: String(TOKENS_PER_SESSION), MOTU_MAX_CARD_ATTEMPTS: String(CARD_ATTEMPTS) };

const PAID_IBAN = 'FR7630006000010000000000152';

/** The evidence fields a draft may carry. */
const DRAFT_FIELDS = ['productDescription', 'customerCommunication', 'refundPolicy', 'shippingTracking', 'uncategorizedText'] as const;

const post = (t: TestApp, key: string, url: string, body: unknown = {}, headers?: Record<string, string>) => t.api(key, 'POST', url, body, headers);
const get = async (t: TestApp, key: string, url: string) => {
  const res = await t.api(key, 'GET', url);
  assert.equal(res.status, 200, `${url}: ${JSON.stringify(res.body)}`);
  return res.body;
};

/** A merchant of its own, with `amount` EUR available in `mode` (an operator's adjustment) and a default bank account. */
async function fundedMerchant(t: TestApp, mode: 'test' | 'live', amount: number): Promise<{ m: MerchantFixture; key: string }> {
  const m = await createMerchant(t, `Payouts ${mode}`);
  const key = mode === 'test' ? m.testKey : m.liveKey;
  const adjusted = await t.admin('POST', `/admin/v1/merchants/${m.id}/adjustments`, { mode, currency: 'EUR', amount, reason: 'funds' });
  assert.equal(adjusted.status, 201, JSON.stringify(adjusted.body));
  const account = await post(t, key, '/api/v1/bank-accounts', { iban: PAID_IBAN, holderName: 'Fare Ute SARL', currency: 'EUR' });
  assert.equal(account.status, 201, JSON.stringify(account.body));
  return { m, key };
}

async function available(t: TestApp, key: string): Promise<number> {
  const balance = await get(t, key, '/api/v1/balance');
  return (balance.available as Array<{ currency: string; amount: number }>).find((b) => b.currency === 'EUR')?.amount ?? 0;
}

/** A chargeback open on a captured payment of the suite's merchant. */
async function openDispute(t: TestApp, key: string): Promise<{ paymentId: string; disputeId: string }> {
  const paymentId = await paidPayment(t, key, { amount: 5000 });
  const res = await post(t, key, `/api/v1/test-helpers/payments/${paymentId}/dispute`, { amount: 2000, reason: 'fraudulent' });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { paymentId, disputeId: res.body.id };
}

/** A subscription whose first due date was refused (no retries left): past due, on a card that now fails. */
async function pastDueSubscription(t: TestApp, key: string) {
  const customerId = await createCustomer(t, key);
  const refusing = (await saveCard(t, key, customerId, CARDS.saveThenDecline)).result.paymentMethodId as string;
  const res = await post(t, key, '/api/v1/subscriptions', { customerId, paymentMethodId: refusing, amount: 2500, currency: 'EUR', interval: 'month', retrySchedule: [] });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal(res.body.status, 'past_due', 'the first due date was refused');
  const good = (await saveCard(t, key, customerId)).result.paymentMethodId as string;
  return { id: res.body.id as string, customerId, good };
}

async function subscriptionPayments(t: TestApp, id: string) {
  return t.db.kysely.selectFrom('payments').select(['id', 'status', 'amount', 'due_date']).where('subscription_id', '=', id).execute();
}

const refunds = [
  race({
    name: 'refunds: 20 partial refunds of 70 on 1,000 captured: 14 refunded, 6 refused, never above captured',
    setup: async ({ t, m }) => ({ id: await paidPayment(t, m.testKey, { amount: 1000 }) }),
    fire: ({ t, m }, { id }) => post(t, m.testKey, `/api/v1/payments/${id}/refund`, { amountCents: 70 }),
    invariant: async ({ t, m }, { id }, answers) => {
      assertTally(answers, { '201': 14, '422 REFUND_EXCEEDS_CAPTURED': 6 });
      const payment = await get(t, m.testKey, `/api/v1/payments/${id}`);
      assert.deepEqual([payment.refundedAmount, payment.status], [980, 'partially_refunded']);
      assert.equal((await get(t, m.testKey, `/api/v1/payments/${id}/refunds?limit=100`)).data.length, 14);
      assert.equal(await countEvents(t, 'payment.partially_refunded', { paymentId: id }), 14);
      assert.equal(await countEvents(t, 'payment.refunded', { paymentId: id }), 0);
    },
  }),
  race({
    name: 'refunds: 20 full refunds at once: exactly one',
    setup: async ({ t, m }) => ({ id: await paidPayment(t, m.testKey, { amount: 1000 }) }),
    fire: ({ t, m }, { id }) => post(t, m.testKey, `/api/v1/payments/${id}/refund`, {}),
    invariant: async ({ t, m }, { id }, answers) => {
      assertTally(answers, { '201': 1, '422 REFUND_EXCEEDS_CAPTURED': 19 });
      const payment = await get(t, m.testKey, `/api/v1/payments/${id}`);
      assert.deepEqual([payment.refundedAmount, payment.status], [1000, 'refunded']);
      assert.equal((await get(t, m.testKey, `/api/v1/payments/${id}/refunds`)).data.length, 1);
      assert.equal(await countEvents(t, 'payment.refunded', { paymentId: id }), 1);
    },
  }),
  race({
    name: 'refunds: 20 refunds with one Idempotency-Key: one refund, the same answer to all',
    setup: async ({ t, m }) => ({ id: await paidPayment(t, m.testKey, { amount: 1000 }) }),
    fire: ({ t, m }, { id }) => post(t, m.testKey, `/api/v1/payments/${id}/refund`, { amountCents: 300 }, { 'idempotency-key': `refund-${id}` }),
    invariant: async ({ t, m }, { id }, answers) => {
      assertTally(answers, { '201': 20 });
      assert.equal(new Set(answers.map((a) => a.body.id)).size, 1, 'one refund id');
      assert.equal((await get(t, m.testKey, `/api/v1/payments/${id}`)).refundedAmount, 300);
      assert.equal(await countEvents(t, 'payment.partially_refunded', { paymentId: id }), 1);
    },
  }),
];

const refundsAndDisputes = [
  race({
    name: 'refunds and chargebacks: 10 refunds and 10 disputes of 600 on 5,000 captured: 8 taken, never above captured',
    setup: async ({ t, m }) => ({ id: await paidPayment(t, m.testKey, { amount: 5000 }) }),
    fire: ({ t, m }, { id }, i) => i % 2
      ? post(t, m.testKey, `/api/v1/test-helpers/payments/${id}/dispute`, { amount: 600, reason: 'fraudulent' })
      : post(t, m.testKey, `/api/v1/payments/${id}/refund`, { amountCents: 600 }),
    invariant: async ({ t, m }, { id }, answers) => {
      const refunds = answers.filter((_, i) => i % 2 === 0);
      const disputes = answers.filter((_, i) => i % 2 === 1);
      const refunded = succeeded(refunds).length;
      const disputed = succeeded(disputes).length;
      assert.equal(refunded + disputed, 8, 'as many as fit in 5,000');
      // A refund refused names why: nothing left, or what is left is disputed (which of the two depends on who won).
      const { '201': ok = 0, ...refusals } = tally(refunds);
      assert.equal(ok, refunded);
      for (const code of Object.keys(refusals)) assert.ok(['422 REFUND_EXCEEDS_CAPTURED', '422 PAYMENT_DISPUTED'].includes(code), code);
      assertTally(disputes, { '201': disputed, '422 PAYMENT_NOT_DISPUTABLE': 10 - disputed });
      const payment = await get(t, m.testKey, `/api/v1/payments/${id}`);
      assert.deepEqual([payment.refundedAmount, payment.disputedAmount], [600 * refunded, 600 * disputed]);
      assert.equal(await countEvents(t, 'dispute.created', { paymentId: id }), disputed);
      assert.equal(await countEvents(t, 'payment.partially_refunded', { paymentId: id }), refunded);
    },
  }),
];

const captures = [
  race({
    name: 'captures: 20 captures of one authorization: one capture',
    setup: async ({ t, m }) => ({ id: await paidPayment(t, m.testKey, { captureMode: 'MANUAL', amount: 3000 }) }),
    fire: ({ t, m }, { id }) => post(t, m.testKey, `/api/v1/payments/${id}/capture`),
    invariant: async ({ t, m }, { id }, answers) => {
      assertTally(answers, { '200': 1, '422 PAYMENT_NOT_CAPTURABLE': 19 });
      const payment = await get(t, m.testKey, `/api/v1/payments/${id}`);
      assert.deepEqual([payment.status, payment.capturedAmount], ['captured', 3000]);
      assert.equal(await countEvents(t, 'payment.captured', { paymentId: id }), 1);
    },
  }),
  race({
    name: 'captures: 10 captures and 10 cancels of one authorization: one wins, one event',
    setup: async ({ t, m }) => ({ id: await paidPayment(t, m.testKey, { captureMode: 'MANUAL', amount: 3000 }) }),
    fire: ({ t, m }, { id }, i) => post(t, m.testKey, `/api/v1/payments/${id}/${i % 2 ? 'cancel' : 'capture'}`),
    invariant: async ({ t, m }, { id }, answers) => {
      const payment = await get(t, m.testKey, `/api/v1/payments/${id}`);
      const captured = payment.status === 'captured';
      assert.ok(captured || payment.status === 'cancelled', payment.status);
      assertTally(answers, {
        '200': 1,
        '422 PAYMENT_NOT_CAPTURABLE': captured ? 9 : 10,
        '422 PAYMENT_NOT_CANCELLABLE': captured ? 10 : 9,
      });
      assert.equal(await countEvents(t, 'payment.captured', { paymentId: id }), captured ? 1 : 0);
      assert.equal(await countEvents(t, 'payment.cancelled', { paymentId: id }), captured ? 0 : 1);
      assert.equal(payment.capturedAmount ?? 0, captured ? 3000 : 0);
    },
  }),
];

const payouts = [
  race({
    name: 'payouts: 20 payouts of the whole available balance: one, never overdrawn',
    setup: ({ t }) => fundedMerchant(t, 'test', 5000),
    fire: ({ t }, { key }) => post(t, key, '/api/v1/payouts', { currency: 'EUR' }),
    invariant: async ({ t }, { key }, answers) => {
      assertTally(answers, { '201': 1, '422 INSUFFICIENT_BALANCE': 19 });
      assert.equal(succeeded(answers)[0]!.body.amount, 5000);
      assert.equal(await available(t, key), 0);
      assert.equal((await get(t, key, '/api/v1/payouts?limit=100')).data.length, 1);
    },
  }),
  race({
    name: 'payouts: 20 payouts of 1,000 on 5,000 available: five, never overdrawn',
    setup: ({ t }) => fundedMerchant(t, 'test', 5000),
    fire: ({ t }, { key }) => post(t, key, '/api/v1/payouts', { currency: 'EUR', amount: 1000 }),
    invariant: async ({ t }, { key, m }, answers) => {
      assertTally(answers, { '201': 5, '422 INSUFFICIENT_BALANCE': 15 });
      assert.equal(await available(t, key), 0);
      const created = await t.db.kysely.selectFrom('webhook_events').select('id').where('type', '=', 'payout.created').where('merchant_id', '=', m.id).execute();
      assert.equal(created.length, 5);
    },
  }),
  race({
    name: 'payout cancel: 20 cancels of a pending payout: one, credited back once',
    setup: async ({ t }) => {
      const funded = await fundedMerchant(t, 'live', 5000);
      const payout = await post(t, funded.key, '/api/v1/payouts', { currency: 'EUR', amount: 4000 });
      assert.equal(payout.status, 201, JSON.stringify(payout.body));
      assert.equal(payout.body.status, 'pending');
      return { ...funded, payoutId: payout.body.id as string };
    },
    fire: ({ t }, { key, payoutId }) => post(t, key, `/api/v1/payouts/${payoutId}/cancel`),
    invariant: async ({ t }, { key, payoutId }, answers) => {
      assertTally(answers, { '200': 1, '422 PAYOUT_NOT_CANCELLABLE': 19 });
      assert.equal(await available(t, key), 5000, 'the amount credited back once');
      const credits = await t.db.kysely.selectFrom('balance_transactions').select('amount').where('source_id', '=', payoutId).where('type', '=', 'payout_failure').execute();
      assert.deepEqual(credits.map((c) => Number(c.amount)), [4000]);
      assert.equal(await countEvents(t, 'payout.failed', { data: { payoutId } }), 1);
    },
  }),
  race({
    name: 'payout end: 10 cancels and 10 bank answers (5 paid, 5 failed) on a pending payout: one ending, money moved once',
    setup: async ({ t }) => {
      const funded = await fundedMerchant(t, 'live', 5000);
      const payout = await post(t, funded.key, '/api/v1/payouts', { currency: 'EUR', amount: 4000 });
      assert.equal(payout.status, 201, JSON.stringify(payout.body));
      return { ...funded, payoutId: payout.body.id as string };
    },
    fire: ({ t }, { key, payoutId }, i) => {
      if (i % 2 === 0) return post(t, key, `/api/v1/payouts/${payoutId}/cancel`);
      return i % 4 === 1
        ? t.admin('POST', `/admin/v1/payouts/${payoutId}/paid`, {})
        : t.admin('POST', `/admin/v1/payouts/${payoutId}/failed`, { failureReason: 'declined' });
    },
    invariant: async ({ t }, { key, payoutId }, answers) => {
      const status = (await get(t, key, `/api/v1/payouts/${payoutId}`)).status as string;
      assert.ok(['cancelled', 'paid', 'failed'].includes(status), status);
      const cancels = answers.filter((_, i) => i % 2 === 0);
      const bank = answers.filter((_, i) => i % 2 === 1);
      assertTally(cancels, { '200': status === 'cancelled' ? 1 : 0, '422 PAYOUT_NOT_CANCELLABLE': status === 'cancelled' ? 9 : 10 });
      assertTally(bank, { '200': status === 'cancelled' ? 0 : 1, '422 PAYOUT_NOT_PENDING': status === 'cancelled' ? 10 : 9 });
      const paid = status === 'paid';
      assert.equal(await available(t, key), paid ? 1000 : 5000, 'paid out once, or credited back once');
      const credits = await t.db.kysely.selectFrom('balance_transactions').select('amount').where('source_id', '=', payoutId).where('type', '=', 'payout_failure').execute();
      assert.equal(credits.length, paid ? 0 : 1);
      assert.equal(await countEvents(t, 'payout.completed', { data: { payoutId } }), paid ? 1 : 0);
      assert.equal(await countEvents(t, 'payout.failed', { data: { payoutId } }), paid ? 0 : 1);
    },
  }),
];

const disputes = [
  race({
    name: 'dispute evidence: 20 submissions at once: one under review, one event',
    setup: ({ t, m }) => openDispute(t, m.testKey),
    fire: ({ t, m }, { disputeId }, i) => post(t, m.testKey, `/api/v1/disputes/${disputeId}/evidence`, { uncategorizedText: `receipt ${i}`, submit: true }),
    invariant: async ({ t, m }, { disputeId }, answers) => {
      assertTally(answers, { '200': 1, '422 DISPUTE_EVIDENCE_SUBMITTED': 19 });
      const dispute = await get(t, m.testKey, `/api/v1/disputes/${disputeId}`);
      assert.equal(dispute.status, 'under_review');
      assert.equal(dispute.evidence.uncategorizedText, succeeded(answers)[0]!.body.evidence.uncategorizedText, 'the evidence of the one that won');
      assert.equal(await countEvents(t, 'dispute.updated', { data: { disputeId } }), 1);
    },
  }),
  race({
    name: 'dispute evidence: 20 drafts of different fields at once: every field kept, none lost to another draft',
    setup: ({ t, m }) => openDispute(t, m.testKey),
    fire: ({ t, m }, { disputeId }, i) => post(t, m.testKey, `/api/v1/disputes/${disputeId}/evidence`, { [DRAFT_FIELDS[i % DRAFT_FIELDS.length]!]: `draft ${i}`, submit: false }),
    invariant: async ({ t, m }, { disputeId }, answers) => {
      assertTally(answers, { '200': 20 });
      const dispute = await get(t, m.testKey, `/api/v1/disputes/${disputeId}`);
      assert.deepEqual(Object.keys(dispute.evidence).sort(), [...DRAFT_FIELDS].sort(), JSON.stringify(dispute.evidence));
      for (const [field, value] of Object.entries<string>(dispute.evidence)) {
        const i = Number(value.split(' ')[1]);
        assert.equal(DRAFT_FIELDS[i % DRAFT_FIELDS.length], field, `${field}: ${value}`);
      }
      assert.equal(dispute.status, 'needs_response');
      assert.equal(await countEvents(t, 'dispute.updated', { data: { disputeId } }), 0, 'a draft announces nothing');
    },
  }),
  race({
    name: 'dispute evidence: 10 drafts and 10 submissions at once: one submitted, drafts never after it',
    setup: ({ t, m }) => openDispute(t, m.testKey),
    fire: ({ t, m }, { disputeId }, i) => post(t, m.testKey, `/api/v1/disputes/${disputeId}/evidence`, i % 2
      ? { uncategorizedText: `submitted ${i}`, submit: true }
      : { productDescription: `draft ${i}`, submit: false }),
    invariant: async ({ t, m }, { disputeId }, answers) => {
      const drafts = answers.filter((_, i) => i % 2 === 0);
      const saved = succeeded(drafts).length;
      assertTally(answers.filter((_, i) => i % 2 === 1), { '200': 1, '422 DISPUTE_EVIDENCE_SUBMITTED': 9 });
      assertTally(drafts, { '200': saved, '422 DISPUTE_EVIDENCE_SUBMITTED': 10 - saved });
      const dispute = await get(t, m.testKey, `/api/v1/disputes/${disputeId}`);
      assert.equal(dispute.status, 'under_review');
      // What was submitted is what stays: a draft accepted after the submission would have changed it.
      const submitted = succeeded(answers.filter((_, i) => i % 2 === 1))[0]!.body.evidence;
      assert.deepEqual(dispute.evidence, submitted);
      assert.equal(await countEvents(t, 'dispute.updated', { data: { disputeId } }), 1);
    },
  }),
  race({
    name: 'dispute accept: 20 accepts at once: one lost, one event',
    setup: ({ t, m }) => openDispute(t, m.testKey),
    fire: ({ t, m }, { disputeId }) => post(t, m.testKey, `/api/v1/disputes/${disputeId}/accept`),
    invariant: async ({ t, m }, { disputeId }, answers) => {
      assertTally(answers, { '200': 1, '422 DISPUTE_CLOSED': 19 });
      assert.equal((await get(t, m.testKey, `/api/v1/disputes/${disputeId}`)).status, 'lost');
      assert.equal(await countEvents(t, 'dispute.updated', { data: { disputeId } }), 1);
    },
  }),
  race({
    name: "dispute decided: 10 merchant accepts and 10 operator decisions (won) at once: one decision, money moved once",
    setup: ({ t, m }) => openDispute(t, m.testKey),
    fire: ({ t, m }, { disputeId }, i) => i % 2
      ? t.admin('POST', `/admin/v1/disputes/${disputeId}/close`, { outcome: 'won' })
      : post(t, m.testKey, `/api/v1/disputes/${disputeId}/accept`),
    invariant: async ({ t, m }, { disputeId }, answers) => {
      const status = (await get(t, m.testKey, `/api/v1/disputes/${disputeId}`)).status as string;
      assert.ok(['lost', 'won'].includes(status), status);
      assertTally(answers, { '200': 1, '422 DISPUTE_CLOSED': 19 });
      assert.equal(succeeded(answers)[0]!.body.status, status);
      const reversals = await t.db.kysely.selectFrom('balance_transactions').select('amount').where('source_id', '=', disputeId).where('type', '=', 'dispute_reversal').execute();
      assert.deepEqual(reversals.map((r) => Number(r.amount)), status === 'won' ? [2000] : [], 'a won chargeback gives its amount back once');
      assert.equal(await countEvents(t, 'dispute.updated', { data: { disputeId } }), 1);
    },
  }),
  race({
    name: 'dispute evidence vs accept: 10 of each at once: one status change, one event',
    setup: ({ t, m }) => openDispute(t, m.testKey),
    fire: ({ t, m }, { disputeId }, i) => post(t, m.testKey, `/api/v1/disputes/${disputeId}/${i % 2 ? 'accept' : 'evidence'}`, i % 2 ? {} : { uncategorizedText: 'receipt', submit: true }),
    invariant: async ({ t, m }, { disputeId }, answers) => {
      const dispute = await get(t, m.testKey, `/api/v1/disputes/${disputeId}`);
      const refusal = dispute.status === 'lost' ? '422 DISPUTE_CLOSED' : '422 DISPUTE_EVIDENCE_SUBMITTED';
      assert.ok(['lost', 'under_review'].includes(dispute.status), dispute.status);
      assertTally(answers, { '200': 1, [refusal]: 19 });
      assert.equal(await countEvents(t, 'dispute.updated', { data: { disputeId } }), 1);
    },
  }),
];

/** Months after a test clock's start, as the subscription's due dates fall (the 10th, 10:00 UTC). */
const CLOCK_START = Date.parse('2027-01-10T10:00:00.000Z');
const monthsAfterStart = (n: number) => {
  const d = new Date(CLOCK_START);
  d.setUTCMonth(d.getUTCMonth() + n);
  return d.toISOString();
};

/** The time the `i`th advance asks for: 1 to 4 months on, and `i` minutes, so that no two ask for the same. */
const advanceTarget = (i: number) => monthsAfterStart(1 + (i % 4)).replace(':00:00.000Z', `:${String(i).padStart(2, '0')}:00.000Z`);

const subscriptions = [
  race({
    name: "test clock: 20 advances of a subscription's clock at once: one taken, each due date charged once by three workers",
    setup: async ({ t, m }) => {
      const clock = await post(t, m.testKey, '/api/v1/test-helpers/test-clocks', { frozenTime: monthsAfterStart(0) });
      assert.equal(clock.status, 201, JSON.stringify(clock.body));
      const customerId = await createCustomer(t, m.testKey, { testClockId: clock.body.id });
      const card = (await saveCard(t, m.testKey, customerId)).result.paymentMethodId as string;
      const sub = await post(t, m.testKey, '/api/v1/subscriptions', { customerId, paymentMethodId: card, amount: 2500, currency: 'EUR', interval: 'month' });
      assert.equal(sub.status, 201, JSON.stringify(sub.body));
      return { clockId: clock.body.id as string, subscriptionId: sub.body.id as string };
    },
    fire: ({ t, m }, { clockId }, i) => post(t, m.testKey, `/api/v1/test-helpers/test-clocks/${clockId}/advance`, { frozenTime: advanceTarget(i) }),
    invariant: async ({ t, m }, { clockId, subscriptionId }, answers) => {
      assertTally(answers, { '200': 1, '422 CLOCK_NOT_ADVANCEABLE': 19 });
      // The worker's side: three workers run the advance at once, then until the clock is ready.
      const schedules = [paymentSchedule(t, t.clock), paymentSchedule(t, t.clock), paymentSchedule(t, t.clock)];
      await Promise.all(schedules.map((s) => s.tick()));
      for (let i = 0; i < 20 && (await get(t, m.testKey, `/api/v1/test-helpers/test-clocks/${clockId}`)).status !== 'ready'; i++) await schedules[0]!.tick();
      const clock = await get(t, m.testKey, `/api/v1/test-helpers/test-clocks/${clockId}`);
      assert.deepEqual([clock.status, clock.frozenTime], ['ready', advanceTarget(answers.findIndex((a) => a.status === 200))], 'at the time the one taken asked for');
      const due = Array.from({ length: 6 }, (_, n) => monthsAfterStart(n)).filter((d) => d <= clock.frozenTime);
      assert.ok(due.length >= 2, clock.frozenTime);
      const payments = await subscriptionPayments(t, subscriptionId);
      assert.deepEqual(payments.map((p) => p.due_date).sort(), due, 'one charge per due date reached');
      assert.ok(payments.every((p) => p.status === 'captured'));
      assert.equal(await countEvents(t, 'subscription.payment_succeeded', { data: { subscriptionId } }), due.length);
    },
  }),
  race({
    name: 'subscriptions: 20 cancels at once: one cancellation, one event',
    setup: async ({ t, m }) => {
      const customerId = await createCustomer(t, m.testKey);
      const res = await post(t, m.testKey, '/api/v1/subscriptions', { customerId, amount: 2500, currency: 'EUR', interval: 'month' });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return { id: res.body.id as string };
    },
    fire: ({ t, m }, { id }) => post(t, m.testKey, `/api/v1/subscriptions/${id}/cancel`),
    invariant: async ({ t, m }, { id }, answers) => {
      assertTally(answers, { '200': 1, '422 SUBSCRIPTION_CANCELLED': 19 });
      assert.equal((await get(t, m.testKey, `/api/v1/subscriptions/${id}`)).status, 'cancelled');
      assert.equal(await countEvents(t, 'subscription.cancelled', { data: { subscriptionId: id } }), 1);
    },
  }),
  race({
    name: 'subscriptions: 20 retries of a past-due subscription on a good card: one charge',
    setup: async ({ t, m }) => {
      const sub = await pastDueSubscription(t, m.testKey);
      const patched = await t.api(m.testKey, 'PATCH', `/api/v1/subscriptions/${sub.id}`, { paymentMethodId: sub.good });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      return sub;
    },
    fire: ({ t, m }, { id }) => post(t, m.testKey, `/api/v1/subscriptions/${id}/retry`),
    invariant: async ({ t, m }, { id }, answers) => {
      const refused = answers.filter((a) => a.status !== 200).length;
      assertTally(answers, { '200': 20 - refused, '422 SUBSCRIPTION_NOT_PAST_DUE': refused });
      assert.ok(refused < 20, 'one retry at least charged');
      const payments = await subscriptionPayments(t, id);
      assert.deepEqual(payments.map((p) => p.status).sort(), ['captured', 'failed'], 'the refused first charge, then one retry charged');
      assert.equal(await countEvents(t, 'subscription.payment_succeeded', { data: { subscriptionId: id } }), 1);
      assert.equal((await get(t, m.testKey, `/api/v1/subscriptions/${id}`)).status, 'active');
    },
  }),
  race({
    name: 'subscriptions: PATCH card, PATCH amount, retry and cancel, 5 of each at once: one cancellation, no double charge',
    setup: ({ t, m }) => pastDueSubscription(t, m.testKey),
    fire: ({ t, m }, { id, good }, i) => {
      if (i % 4 === 0) return t.api(m.testKey, 'PATCH', `/api/v1/subscriptions/${id}`, { paymentMethodId: good });
      if (i % 4 === 1) return t.api(m.testKey, 'PATCH', `/api/v1/subscriptions/${id}`, { amount: 3000 + i });
      if (i % 4 === 2) return post(t, m.testKey, `/api/v1/subscriptions/${id}/retry`);
      return post(t, m.testKey, `/api/v1/subscriptions/${id}/cancel`);
    },
    invariant: async ({ t, m }, { id }, answers) => {
      const cancels = answers.filter((_, i) => i % 4 === 3);
      assertTally(cancels, { '200': 1, '422 SUBSCRIPTION_CANCELLED': 4 }, 'one cancel wins');
      assert.equal((await get(t, m.testKey, `/api/v1/subscriptions/${id}`)).status, 'cancelled');
      assert.equal(await countEvents(t, 'subscription.cancelled', { data: { subscriptionId: id } }), 1);
      const captured = (await subscriptionPayments(t, id)).filter((p) => p.status === 'captured');
      assert.ok(captured.length <= 1, `charged ${captured.length} times`);
      assert.equal(await countEvents(t, 'subscription.payment_succeeded', { data: { subscriptionId: id } }), captured.length);
      // Each change answered as it would alone: applied, or refused by name (cancelled, no longer past due).
      const others = answers.filter((_, i) => i % 4 !== 3);
      const allowed = new Set(['200', '422 SUBSCRIPTION_CANCELLED', '422 SUBSCRIPTION_NOT_PAST_DUE']);
      for (const key of Object.keys(tally(others))) assert.ok(allowed.has(key), `unexpected answer ${key}`);
    },
  }),
];

const cards = [
  race({
    env: CARD_BOUNDS,
    name: `card tokens: 20 token requests for one session: exactly ${TOKENS_PER_SESSION}`,
    setup: ({ t, m }) => createSession(t, m.testKey),
    fire: ({ t }, { sessionId }, i) => t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: CARDS.visa, expMonth: 12, expYear: 2040, cvc: String(100 + i), session: sessionId }),
    invariant: async ({ t }, { sessionId }, answers) => {
      assertTally(answers, { '201': TOKENS_PER_SESSION, '429 TOO_MANY_ATTEMPTS': 20 - TOKENS_PER_SESSION });
      const row = await t.db.kysely.selectFrom('payment_sessions').select('tokens_issued').where('id', '=', sessionId).executeTakeFirstOrThrow();
      assert.equal(Number(row.tokens_issued), TOKENS_PER_SESSION);
      const tokens = await t.db.kysely.selectFrom('acquirer_tokens').select('id').where('id', 'in', succeeded(answers).map((a) => a.body.token)).execute();
      assert.equal(tokens.length, TOKENS_PER_SESSION);
    },
  }),
  race({
    env: CARD_BOUNDS,
    name: `card tokens: 20 token requests for one wallet session: exactly ${TOKENS_PER_SESSION}`,
    setup: async ({ t, m }) => {
      const res = await post(t, m.testKey, `/api/v1/customers/${await createCustomer(t, m.testKey)}/sessions`, { returnUrl: 'https://shop.example/w' });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return { sessionId: res.body.sessionId as string };
    },
    fire: ({ t }, { sessionId }) => t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: CARDS.visa, expMonth: 12, expYear: 2040, cvc: '123', session: sessionId }),
    invariant: async (_app, _context, answers) => {
      assertTally(answers, { '201': TOKENS_PER_SESSION, '429 TOO_MANY_ATTEMPTS': 20 - TOKENS_PER_SESSION });
    },
  }),
  race({
    env: CARD_BOUNDS,
    name: `card attempts: 20 refused cards for one session at once: exactly ${CARD_ATTEMPTS} reach the acquirer`,
    setup: ({ t, m }) => createSession(t, m.testKey),
    fire: async ({ t }, { sessionId }) => {
      const token = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: CARDS.declined, expMonth: 12, expYear: 2040, cvc: '123', session: sessionId });
      if (token.status !== 201) return token;
      return t.api(undefined, 'POST', `/checkout/${sessionId}/pay`, { token: token.body.token });
    },
    invariant: async ({ t }, { paymentId }, answers) => {
      assertTally(answers, { '200': CARD_ATTEMPTS, '429 TOO_MANY_ATTEMPTS': 20 - CARD_ATTEMPTS });
      const asked = await t.db.kysely.selectFrom('acquirer_authorizations').select('id').where('merchant_reference', '=', paymentId).execute();
      assert.equal(asked.length, CARD_ATTEMPTS);
      assert.equal(await countEvents(t, 'payment.failed', { paymentId }), CARD_ATTEMPTS);
    },
  }),
  race({
    env: CARD_BOUNDS,
    name: `card attempts: refused cards through the page's pay and the card component's submit alike: exactly ${CARD_ATTEMPTS}`,
    setup: ({ t, m }) => createSession(t, m.testKey),
    fire: async ({ t }, { sessionId }, i) => {
      const token = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: CARDS.declined, expMonth: 12, expYear: 2040, cvc: '123', session: sessionId });
      if (token.status !== 201) return token;
      return t.api(undefined, 'POST', i % 2 ? `/api/v1/sdk/sessions/${sessionId}/submit` : `/checkout/${sessionId}/pay`, { token: token.body.token });
    },
    invariant: async ({ t }, { paymentId }, answers) => {
      // Both answer a refused card 200 (the page's next step, the component's failed result).
      assertTally(answers, { '200': CARD_ATTEMPTS, '429 TOO_MANY_ATTEMPTS': 20 - CARD_ATTEMPTS });
      const asked = await t.db.kysely.selectFrom('acquirer_authorizations').select('id').where('merchant_reference', '=', paymentId).execute();
      assert.equal(asked.length, CARD_ATTEMPTS);
      assert.equal(await countEvents(t, 'payment.failed', { paymentId }), CARD_ATTEMPTS);
    },
  }),
];


/**
 * What a pay sent again with a token another request is using answers: the token is spent (INVALID_TOKEN), the
 * session's attempts are held by the others for now (429), or the payment is no longer open to a card (410: paid, or
 * being authorized by the first request).
 */
const DUPLICATE_PAY = new Set(['INVALID_TOKEN', '429 TOO_MANY_ATTEMPTS', '410 SESSION_EXPIRED']);

const payingTwice = [
  race({
    name: 'checkout pay: 20 pays of one session with one card token at once: one authorization, one capture',
    setup: async ({ t, m }) => {
      const session = await createSession(t, m.testKey, { amount: 2300 });
      const token = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: CARDS.visa, expMonth: 12, expYear: 2040, cvc: '123', session: session.sessionId });
      assert.equal(token.status, 201, JSON.stringify(token.body));
      return { ...session, token: token.body.token as string };
    },
    fire: ({ t }, { sessionId, token }) => t.api(undefined, 'POST', `/checkout/${sessionId}/pay`, { token }),
    invariant: async ({ t, m }, { paymentId, sessionId }, answers) => {
      // One pay goes through; the others are refused as duplicates (DUPLICATE_PAY).
      const paid = answers.filter((a) => a.status === 200 && a.body.next === 'redirect');
      assert.deepEqual(paid.map((a) => a.body.url), [`/checkout/success?sessionId=${sessionId}`]);
      for (const a of answers.filter((x) => !paid.includes(x))) {
        assert.ok(DUPLICATE_PAY.has(a.status === 200 ? a.body.code : `${a.status} ${a.body.code}`), JSON.stringify(a.body));
      }
      const asked = await t.db.kysely.selectFrom('acquirer_authorizations').select('id').where('merchant_reference', '=', paymentId).execute();
      assert.equal(asked.length, 1);
      assert.equal((await get(t, m.testKey, `/api/v1/payments/sessions/${sessionId}`)).cardAttempts, 1, 'one card, one attempt');
      assert.equal((await get(t, m.testKey, `/api/v1/payments/${paymentId}`)).capturedAmount, 2300);
      assert.equal(await countEvents(t, 'payment.captured', { paymentId }), 1);
    },
  }),
  race({
    name: 'checkout pay: a refused card sent 20 times at once: one attempt spent, the next card still taken',
    env: CARD_BOUNDS,
    setup: async ({ t, m }) => {
      const session = await createSession(t, m.testKey, { amount: 2300 });
      const token = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: CARDS.declined, expMonth: 12, expYear: 2040, cvc: '123', session: session.sessionId });
      assert.equal(token.status, 201, JSON.stringify(token.body));
      return { ...session, token: token.body.token as string };
    },
    fire: ({ t }, { sessionId, token }) => t.api(undefined, 'POST', `/checkout/${sessionId}/pay`, { token }),
    invariant: async ({ t, m }, { paymentId, sessionId }, answers) => {
      const refused = answers.filter((a) => a.status === 200 && a.body.next === 'redirect');
      assert.deepEqual(refused.map((a) => a.body.url), [`/checkout/failed?sessionId=${sessionId}`]);
      for (const a of answers.filter((x) => !refused.includes(x))) {
        assert.ok(DUPLICATE_PAY.has(a.status === 200 ? a.body.code : `${a.status} ${a.body.code}`), JSON.stringify(a.body));
      }
      const session = await get(t, m.testKey, `/api/v1/payments/sessions/${sessionId}`);
      assert.deepEqual([session.cardAttempts, session.cardAttemptsLeft], [1, CARD_ATTEMPTS - 1], 'one card, one attempt');
      assert.equal(await countEvents(t, 'payment.failed', { paymentId }), 1);
      // The payer tries another card: taken.
      const next = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: CARDS.visa, expMonth: 12, expYear: 2040, cvc: '123', session: sessionId });
      assert.equal(next.status, 201, JSON.stringify(next.body));
      const paid = await t.api(undefined, 'POST', `/checkout/${sessionId}/pay`, { token: next.body.token });
      assert.equal(paid.body.url, `/checkout/success?sessionId=${sessionId}`, JSON.stringify(paid.body));
    },
  }),
  race({
    name: 'wallet: 20 submits of one wallet session with one card token at once: one saved card, one event, at most MOTU_MAX_CARD_ATTEMPTS sent',
    setup: async ({ t, m }) => {
      const customerId = await createCustomer(t, m.testKey);
      const session = await post(t, m.testKey, `/api/v1/customers/${customerId}/sessions`, { returnUrl: 'https://shop.example/w' });
      assert.equal(session.status, 201, JSON.stringify(session.body));
      const token = await t.api(undefined, 'POST', '/acquirer/v1/tokens', { mode: 'test', number: CARDS.mastercard, expMonth: 12, expYear: 2040, cvc: '123', session: session.body.sessionId });
      assert.equal(token.status, 201, JSON.stringify(token.body));
      return { customerId, sessionId: session.body.sessionId as string, token: token.body.token as string };
    },
    fire: ({ t }, { sessionId, token }) => t.api(undefined, 'POST', `/api/v1/sdk/sessions/${sessionId}/submit`, { token }),
    invariant: async ({ t, m }, { customerId, sessionId }, answers) => {
      // Each submit first takes one of the session's MOTU_MAX_CARD_ATTEMPTS (10 by default): those that took one
      // reach the acquirer (one saves the card, the others find the token spent); the rest are refused before it, 429,
      // or 410 if the session ended first.
      const { card_attempts: attempts } = await t.db.kysely.selectFrom('payment_sessions').select('card_attempts').where('id', '=', sessionId).executeTakeFirstOrThrow();
      assert.ok(attempts <= t.config.maxCardAttempts, `${attempts} cards sent`);
      const seen = tally(answers);
      assert.equal(seen['200'], 1, JSON.stringify(seen));
      assert.equal(seen['400 VALIDATION_ERROR'] ?? 0, attempts - 1, `the others sent found the token spent: ${JSON.stringify(seen)}`);
      assert.ok(answers.every((a) => a.status !== 400 || a.body.details.field === 'token'), 'the token is spent');
      assert.equal((seen['429 TOO_MANY_ATTEMPTS'] ?? 0) + (seen['410 SESSION_EXPIRED'] ?? 0), 20 - attempts, JSON.stringify(seen));
      if (seen['429 TOO_MANY_ATTEMPTS']) assert.equal(attempts, t.config.maxCardAttempts, 'refused 429 only once the bound is reached');
      const cards = (await get(t, m.testKey, `/api/v1/customers/${customerId}/payment-methods`)).data;
      assert.deepEqual(cards.map((c: { id: string }) => c.id), [succeeded(answers)[0]!.body.paymentMethodId]);
      assert.equal(await countEvents(t, 'payment_method.added', { data: { customerId } }), 1);
    },
  }),
];

const sessions = [
  race({
    name: 'payment sessions: 20 creations with one Idempotency-Key: one payment, the same answer to all',
    setup: async () => ({ reference: `ORD-RACE-${Math.random().toString(36).slice(2, 8)}` }),
    fire: ({ t, m }, { reference }) => post(t, m.testKey, '/api/v1/payments/sessions', {
      order: { reference, amount: 4200, currency: 'EUR' }, redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/n',
    }, { 'idempotency-key': reference }),
    invariant: async ({ t }, { reference }, answers) => {
      assertTally(answers, { '201': 20 });
      assert.equal(new Set(answers.map((a) => `${a.body.paymentId} ${a.body.sessionId}`)).size, 1, 'one payment and session named to all');
      const rows = await t.db.kysely.selectFrom('payments').select('id').where('order_reference', '=', reference).execute();
      assert.equal(rows.length, 1);
    },
  }),
  race({
    name: 'merchant-initiated payments: 20 charges of a saved card with one Idempotency-Key: one authorization',
    setup: async ({ t, m }) => {
      const customerId = await createCustomer(t, m.testKey);
      const saved = await saveCard(t, m.testKey, customerId);
      return { paymentMethodId: saved.result.paymentMethodId as string, reference: `MIT-${Math.random().toString(36).slice(2, 8)}` };
    },
    fire: ({ t, m }, { paymentMethodId, reference }) => post(t, m.testKey, '/api/v1/payments', {
      paymentMethodId, order: { reference, amount: 1500, currency: 'EUR' }, notificationUrl: 'https://shop.example/n',
    }, { 'idempotency-key': reference }),
    invariant: async ({ t }, { reference }, answers) => {
      assertTally(answers, { '201': 20 });
      const ids = new Set(answers.map((a) => a.body.id ?? a.body.paymentId));
      assert.equal(ids.size, 1, 'one payment named to all');
      const [id] = [...ids] as string[];
      const asked = await t.db.kysely.selectFrom('acquirer_authorizations').select('id').where('merchant_reference', '=', id!).execute();
      assert.equal(asked.length, 1);
      assert.equal((await t.db.kysely.selectFrom('payments').select('id').where('order_reference', '=', reference).execute()).length, 1);
      assert.equal(await countEvents(t, 'payment.captured', { paymentId: id }), 1);
    },
  }),
];

const IBANS = ['FR7630006000010000000000152', 'DE89370400440532013000', 'FR7630006000010000000000443', 'FR7630006000010000000000540'];

const bankAccounts = [
  race({
    name: 'bank accounts: 20 first accounts of a currency added at once: exactly one is the default',
    setup: async ({ t }) => ({ m: await createMerchant(t, 'First bank accounts') }),
    fire: ({ t }, { m }, i) => post(t, m.testKey, '/api/v1/bank-accounts', { iban: IBANS[i % IBANS.length], holderName: `Holder ${i}`, currency: 'EUR' }),
    invariant: async ({ t }, { m }, answers) => {
      assertTally(answers, { '201': 20 });
      const list = (await get(t, m.testKey, '/api/v1/bank-accounts?limit=100')).data as Array<{ default: boolean }>;
      assert.equal(list.length, 20);
      assert.equal(list.filter((a) => a.default).length, 1);
    },
  }),
  race({
    name: 'bank accounts: 20 PATCH {default: true} over four accounts at once: all answered, exactly one default',
    setup: async ({ t }) => {
      const m = await createMerchant(t, 'Default bank accounts');
      const ids: string[] = [];
      for (const iban of IBANS) ids.push((await post(t, m.testKey, '/api/v1/bank-accounts', { iban, holderName: 'Fare Ute SARL', currency: 'EUR' })).body.id);
      return { m, ids };
    },
    fire: ({ t }, { m, ids }, i) => t.api(m.testKey, 'PATCH', `/api/v1/bank-accounts/${ids[i % ids.length]}`, { default: true }),
    invariant: async ({ t }, { m }, answers) => {
      assertTally(answers, { '200': 20 });
      const list = (await get(t, m.testKey, '/api/v1/bank-accounts?limit=100')).data as Array<{ default: boolean }>;
      assert.equal(list.filter((a) => a.default).length, 1);
    },
  }),
];

/** Every row; a new route that moves money or consumes a count adds its own here. */
const RACES: RaceRow[] = [
  ...refunds,
  ...refundsAndDisputes,
  ...captures,
  ...payouts,
  ...bankAccounts,
  ...payoutFileRaces,
  ...disputes,
  ...subscriptions,
  ...cards,
  ...cardLinkRaces,
  ...payingTwice,
  ...sessions,
  ...invoiceRaces,
  ...signInRaces,
  ...onboardingRaces,
  ...splitRaces,
];

raceSuite('races', RACES);
