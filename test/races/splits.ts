// The split payment rows of the race table (test/races.test.ts, docs/reliability.md "Races"): a platform's payment
// split between two sellers it onboarded (docs/platforms.md, the worked example: the card pays 8,000; A's amount 6,000,
// commission 650; B's 5,000, commission 250, a 1,000 discount; financing 2,000; Motu's fees 261). Refunds taken from a
// seller never go beyond its share, whatever arrives at once; a capture posts each seller's net once.
import assert from 'node:assert/strict';
import { makePlatform, onboardSeller } from '../support/platforms.js';
import { assertTally, countEvents, race, type RaceApp } from '../support/races.js';
import { balanceOf, splitSessionBody, type SplitOrder } from '../support/splits.js';
import { paySession } from '../support/payments.js';

async function market({ t }: RaceApp, captureMode: 'AUTO' | 'MANUAL') {
  const platform = await makePlatform(t, 'Race Market');
  const a = await onboardSeller(t, platform.testKey, { legalName: 'Race Seller A' });
  const b = await onboardSeller(t, platform.testKey, { legalName: 'Race Seller B' });
  const order: SplitOrder = {
    amount: 10_000, financing: 2000, captureMode,
    distribution: [
      { merchantId: a.merchantId, amount: 6000, commission: { rate: 1000, fixed: 50 } },
      { merchantId: b.merchantId, amount: 5000, commission: { rate: 500 }, discount: 1000 },
    ],
  };
  const session = await t.api(platform.testKey, 'POST', '/api/v1/payments/sessions', splitSessionBody(order));
  assert.equal(session.status, 201, JSON.stringify(session.body));
  await paySession(t, session.body.sessionId);
  return { platform, a, b, id: session.body.paymentId as string };
}

export const splitRaces = [
  race({
    name: 'split payments: 20 refunds of 400 all taken from seller A (6,000): 15 refunded, 5 refused, A never below its share',
    setup: (app) => market(app, 'AUTO'),
    fire: ({ t }, { platform, a, id }) => t.api(platform.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amount: 400, distribution: [{ merchantId: a.merchantId, amount: 400 }] }),
    invariant: async ({ t }, { platform, a, b, id }, answers) => {
      assertTally(answers, { '201': 15, '422 REFUND_EXCEEDS_CAPTURED': 5 });
      const payment = (await t.api(platform.testKey, 'GET', `/api/v1/payments/${id}`)).body;
      assert.deepEqual([payment.refundedAmount, payment.status], [6000, 'partially_refunded']);
      const [sa, sb, own] = payment.platformDistribution;
      assert.deepEqual([sa.refundedAmount, sa.refundedCommission, sb.refundedAmount, sb.refundedCommission, own.refundedCommission], [6000, 650, 0, 0, 650]);
      const total = async (key: string) => Object.values(await balanceOf(t, key)).reduce((s, x) => s + x, 0);
      assert.equal(await total(a.secretKey), 5350 - 6000 + 650);
      assert.equal(await total(b.secretKey), 4750);
      assert.equal(await total(platform.testKey), 900 - 1000 - 2000 - 261 - 650);
      assert.equal(await countEvents(t, 'payment.partially_refunded', { paymentId: id }), 15);
    },
  }),
  race({
    name: 'split payments: 20 refunds of 500 shared in proportion: 16 refunded, 4 refused, no seller beyond its share, balances as announced',
    setup: (app) => market(app, 'AUTO'),
    fire: ({ t }, { platform, id }) => t.api(platform.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amount: 500 }),
    invariant: async ({ t }, { platform, a, b, id }, answers) => {
      assertTally(answers, { '201': 16, '422 REFUND_EXCEEDS_CAPTURED': 4 });
      const payment = (await t.api(platform.testKey, 'GET', `/api/v1/payments/${id}`)).body;
      assert.deepEqual([payment.refundedAmount, payment.status], [8000, 'refunded']);
      const [sa, sb, own] = payment.platformDistribution;
      assert.equal(sa.refundedAmount + sb.refundedAmount, 8000);
      assert.ok(sa.refundedAmount <= 6000 && sb.refundedAmount <= 5000);
      const total = async (key: string) => Object.values(await balanceOf(t, key)).reduce((s, x) => s + x, 0);
      assert.equal(await total(a.secretKey), 5350 - sa.refundedAmount + sa.refundedCommission);
      assert.equal(await total(b.secretKey), 4750 - sb.refundedAmount + sb.refundedCommission);
      assert.equal(own.refundedCommission, sa.refundedCommission + sb.refundedCommission);
      assert.equal(await total(platform.testKey), 900 - 1000 - 2000 - 261 - own.refundedCommission);
      assert.equal(await countEvents(t, 'payment.refunded', { paymentId: id }), 1);
    },
  }),
  race({
    name: 'split payments: 20 captures of one split authorization: one capture, each seller credited once',
    setup: (app) => market(app, 'MANUAL'),
    fire: ({ t }, { platform, id }) => t.api(platform.testKey, 'POST', `/api/v1/payments/${id}/capture`, { amount: 4000 }),
    invariant: async ({ t }, { platform, a, b, id }, answers) => {
      assertTally(answers, { '200': 1, '422 PAYMENT_NOT_CAPTURABLE': 19 });
      assert.equal(await countEvents(t, 'payment.captured', { paymentId: id }), 1);
      // Half the card: A 3,000 less 325, B 2,500 less 125; the platform 450 − 500 − 1,000 − its fees on 40.00 EUR (116 + 29 = 145).
      assert.deepEqual(await balanceOf(t, a.secretKey), { available: 0, pending: 2675 });
      assert.deepEqual(await balanceOf(t, b.secretKey), { available: 0, pending: 2375 });
      assert.deepEqual(await balanceOf(t, platform.testKey), { available: 0, pending: 450 - 500 - 1000 - 145 });
    },
  }),
];
