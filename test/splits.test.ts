// Split payments through HTTP on every database (docs/platforms.md, "Split payments"): a platform's order split between
// sellers it onboarded; each invalid field of order.platformConfig refused with its name; free platformConfig shapes of
// existing integrations still kept and ignored; platformDistribution on the events and GET payment, every figure worked
// by hand; each seller's and the platform's balance after capture, settlement, refunds in proportion and as given, a
// chargeback (borne by the platform), a partial capture in XPF; a seller paid out; what a seller's key sees.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { paymentEvents } from './support/events.js';
import { createCustomer, createMerchant, type MerchantFixture } from './support/factories.js';
import { saveCard } from './support/wallet.js';
import { eachDatabase } from './support/harness.js';
import { withMerchantApp } from './support/merchant-app.js';
import { paySession, tokenize } from './support/payments.js';
import { CARDS } from './support/cards.js';
import { makePlatform, onboardSeller, type OnboardedSeller } from './support/platforms.js';
import { paymentSchedule } from './support/schedule.js';
import { fromAnotherProcess, listening } from './support/reference.js';
import { eventually } from './support/wait.js';
import { unlinkSeller } from '../src/modules/platforms/platform-links.js';
import { balanceOf, paidSplit, splitSessionBody, type SplitOrder } from './support/splits.js';

// The default contract's fees on 80.00 EUR: 2.50 % = 200 + 16 % tax 32; fixed 25 + tax 4 → 261.
const FEES_ON_8000 = 261;

eachDatabase('split payments', (dialect) => {
  const { t, clock } = withMerchantApp(dialect, { clock: 'now', env: { MOTU_TEST_SETTLEMENT_DELAY: '60', MOTU_TEST_PAYOUT_SECONDS: '60' } });
  const schedule = () => paymentSchedule(t, clock);
  let platform: MerchantFixture;
  let a: OnboardedSeller;
  let b: OnboardedSeller;
  let other: MerchantFixture;

  /** A new platform and two sellers: each test reads balances that start at zero. */
  const fresh = async () => {
    platform = await makePlatform(t, 'Fenua Market');
    a = await onboardSeller(t, platform.testKey, { legalName: 'Vanille Tahaa' });
    b = await onboardSeller(t, platform.testKey, { legalName: 'Perles Rikitea' });
  };
  before(async () => {
    await fresh();
    other = await createMerchant(t, 'Not a platform');
  });

  const books = async () => assert.deepEqual((await verifyLedger(t.db)).differences, [], 'ledger verify finds nothing');
  const settle = async () => {
    clock.advance(61_000);
    await schedule().tick();
  };
  /** Two sellers, a discount on B funded by the platform, financing: the card pays 8,000. */
  const example = (): SplitOrder => ({
    amount: 10_000,
    distribution: [
      { merchantId: a.merchantId, amount: 6000, commission: { rate: 1000, fixed: 50 } },
      { merchantId: b.merchantId, amount: 5000, commission: { rate: 500 }, discount: 1000 },
    ],
    financing: 2000,
  });

  it('each invalid field of order.platformConfig is a 400 PLATFORM_CONFIG_INVALID naming it, and nothing is written', async () => {
    const before = await t.db.kysely.selectFrom('payments').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const live = await onboardSeller(t, platform.liveKey, { legalName: 'Live Only Seller' });
    const foreignPlatform = await makePlatform(t, 'Another Market');
    const foreign = await onboardSeller(t, foreignPlatform.testKey, { legalName: 'Seller Elsewhere' });
    const base = example();
    const cases: Array<[string, SplitOrder | Record<string, unknown>, string, string?]> = [
      ['not a platform', base, 'order.platformConfig', other.testKey],
      ['unknown key at the top', { ...base, extraKey: true }, 'order.platformConfig.extraKey'],
      ['unknown key in an entry', { ...base, distribution: [{ ...base.distribution[0], shop: '42' }, base.distribution[1]] }, 'order.platformConfig.distribution[0].shop'],
      ['amount not an integer', { ...base, distribution: [{ ...base.distribution[0], amount: 6000.5 }, base.distribution[1]] }, 'order.platformConfig.distribution[0].amount'],
      ['negative discount', { ...base, distribution: [base.distribution[0], { ...base.distribution[1], discount: -1 }] }, 'order.platformConfig.distribution[1].discount'],
      ['commission above the amount', { ...base, distribution: [{ ...base.distribution[0], commission: { fixed: 6001 } }, base.distribution[1]] }, 'order.platformConfig.distribution[0].commission'],
      ['rate above 100 %', { ...base, distribution: [{ ...base.distribution[0], commission: { rate: 10_001 } }, base.distribution[1]] }, 'order.platformConfig.distribution[0].commission.rate'],
      ['the same seller twice', { ...base, distribution: [base.distribution[0], { ...base.distribution[1], merchantId: a.merchantId }] }, 'order.platformConfig.distribution[1].merchantId'],
      ['sum ≠ order.amount + discounts', { ...base, amount: 10_001 }, 'order.platformConfig.distribution'],
      ['financing ≥ order.amount', { ...base, financing: 10_000 }, 'order.platformConfig.financing.amount'],
      ['seller of another platform', { ...base, distribution: [base.distribution[0], { ...base.distribution[1], merchantId: foreign.merchantId }] }, 'order.platformConfig.distribution[1].merchantId'],
      ['seller linked in live mode only', { ...base, distribution: [base.distribution[0], { ...base.distribution[1], merchantId: live.merchantId }] }, 'order.platformConfig.distribution[1].merchantId'],
      ['the platform itself', { ...base, distribution: [base.distribution[0], { ...base.distribution[1], merchantId: platform.id }] }, 'order.platformConfig.distribution[1].merchantId'],
      ['unknown merchant', { ...base, distribution: [base.distribution[0], { ...base.distribution[1], merchantId: 'mer_doesnotexist000000' }] }, 'order.platformConfig.distribution[1].merchantId'],
    ];
    for (const [name, order, field, key] of cases) {
      const body = splitSessionBody(order as SplitOrder);
      if ('extraKey' in order) (body.order.platformConfig as Record<string, unknown>).extraKey = true;
      const res = await t.api(key ?? platform.testKey, 'POST', '/api/v1/payments/sessions', body);
      assert.equal(res.status, 400, `${name}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'PLATFORM_CONFIG_INVALID', name);
      assert.equal(res.body.details.field, field, name);
    }
    // isInclTaxAmount false would add a tax the sellers' amounts do not share.
    const taxed = await t.api(platform.testKey, 'POST', '/api/v1/payments/sessions', { ...splitSessionBody(base), isInclTaxAmount: false, order: { ...splitSessionBody(base).order, taxDetail: { rate: 1600 } } });
    assert.equal(taxed.status, 400);
    assert.equal(taxed.body.details.field, 'isInclTaxAmount');
    // Payment links check the same way.
    const link = await t.api(platform.testKey, 'POST', '/api/v1/payments/links', { ...splitSessionBody({ ...base, amount: 10_001 }) });
    assert.equal(link.status, 400, JSON.stringify(link.body));
    assert.equal(link.body.details.field, 'order.platformConfig.distribution');
    const after = await t.db.kysely.selectFrom('payments').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n), 'no payment written');
  });

  it('a platformConfig without distribution or financing is kept as given and ignored, from any merchant', async () => {
    for (const key of [other.testKey, platform.testKey]) {
      const res = await t.api(key, 'POST', '/api/v1/payments/sessions', {
        order: { amount: 1500, currency: 'EUR', platformConfig: { channel: 'odoo', shopId: '42' } }, email: 'buyer@example.com',
        redirectUrl: 'https://shop.example/return', notificationUrl: 'https://shop.example/hook',
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      await paySession(t, res.body.sessionId);
      const payment = (await t.api(key, 'GET', `/api/v1/payments/${res.body.paymentId}`)).body;
      assert.equal(payment.amount, 1500);
      assert.deepEqual(payment.order.platformConfig, { channel: 'odoo', shopId: '42' });
      assert.equal(payment.platformDistribution, undefined);
      for (const e of await paymentEvents(t, res.body.paymentId)) assert.equal(e.data.platformDistribution, undefined, e.type);
    }
  });

  it('two sellers, a discount, financing: the card pays 8,000; every event and GET payment carry the distribution; balances follow capture and settlement', async () => {
    await fresh();
    const before = { a: await balanceOf(t, a.secretKey), b: await balanceOf(t, b.secretKey), p: await balanceOf(t, platform.testKey) };
    const id = await paidSplit(t, platform.testKey, example());
    const payment = (await t.api(platform.testKey, 'GET', `/api/v1/payments/${id}`)).body;
    assert.equal(payment.amount, 8000);
    assert.equal(payment.capturedAmount, 8000);
    assert.equal(payment.order.platformConfig.financing.amount, 2000, 'the order as given');
    assert.equal(payment.order.platformSplit, undefined, 'no internal mark shown');
    assert.equal(payment.settlement.mobupayCommission, FEES_ON_8000);
    const expected = [
      {
        merchantId: a.merchantId, amount: 6000, discount: 0, commission: 650, netAmount: 5350, currency: 'EUR', refundedAmount: 0, refundedCommission: 0,
        detailedCommission: [
          { id: 'platform_commission', label: 'Platform commission', type: 'PERCENTAGE', rate: 1000, amount: 600, amountEur: 600, totalAmount: 600, totalAmountEur: 600 },
          { id: 'platform_fixed_fee', label: 'Platform fixed fee', totalAmount: 50, totalAmountEur: 50 },
        ],
      },
      {
        merchantId: b.merchantId, amount: 5000, discount: 1000, commission: 250, netAmount: 4750, currency: 'EUR', refundedAmount: 0, refundedCommission: 0,
        detailedCommission: [
          { id: 'platform_commission', label: 'Platform commission', type: 'PERCENTAGE', rate: 500, amount: 250, amountEur: 250, totalAmount: 250, totalAmountEur: 250 },
          { id: 'platform_fixed_fee', label: 'Platform fixed fee', totalAmount: 0, totalAmountEur: 0 },
        ],
      },
      {
        role: 'platform', merchantId: platform.id, commission: 900, discounts: 1000, financing: 2000, fees: FEES_ON_8000,
        netAmount: 900 - 1000 - 2000 - FEES_ON_8000, currency: 'EUR', refundedCommission: 0,
      },
    ];
    assert.deepEqual(payment.platformDistribution, expected);
    const events = await paymentEvents(t, id);
    assert.deepEqual(events.map((e) => e.type), ['payment.authorized', 'payment.captured']);
    // At authorization nothing is captured yet: Motu's fees are 0 in the settlement block, and so in the platform's entry.
    assert.deepEqual(events[0].data.platformDistribution, [expected[0], expected[1], { ...expected[2], fees: 0, netAmount: 900 - 1000 - 2000 }]);
    assert.deepEqual(events[1].data.platformDistribution, expected);

    const delta = async (key: string, was: { available: number; pending: number }) => {
      const now = await balanceOf(t, key);
      return { available: now.available - was.available, pending: now.pending - was.pending };
    };
    assert.deepEqual(await delta(a.secretKey, before.a), { available: 0, pending: 5350 });
    assert.deepEqual(await delta(b.secretKey, before.b), { available: 0, pending: 4750 });
    assert.deepEqual(await delta(platform.testKey, before.p), { available: 0, pending: -2361 });
    await settle();
    assert.deepEqual(await delta(a.secretKey, before.a), { available: 5350, pending: 0 });
    assert.deepEqual(await delta(b.secretKey, before.b), { available: 4750, pending: 0 });
    assert.deepEqual(await delta(platform.testKey, before.p), { available: -2361, pending: 0 });
    const settled = (await paymentEvents(t, id)).find((e) => e.type === 'payment.settled');
    assert.deepEqual(settled.data.platformDistribution, expected);
    await books();

    // A refund in proportion to what each seller has left: 4,000 → A 2,182 (commission back 236), B 1,818 (91).
    const r1 = await t.api(platform.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amount: 4000 });
    assert.equal(r1.status, 201, JSON.stringify(r1.body));
    const partially = (await paymentEvents(t, id)).find((e) => e.type === 'payment.partially_refunded');
    assert.deepEqual(partially.data.refundDistribution, [
      { merchantId: a.merchantId, amount: 2182, commission: 236 }, { merchantId: b.merchantId, amount: 1818, commission: 91 },
    ].sort((x, y) => (x.merchantId < y.merchantId ? -1 : 1))); // by seller id, code point order
    assert.deepEqual(partially.data.platformDistribution.map((d: any) => [d.refundedAmount, d.refundedCommission]), [[2182, 236], [1818, 91], [undefined, 327]]);
    assert.deepEqual(await delta(a.secretKey, before.a), { available: 5350 - 2182 + 236, pending: 0 });
    assert.deepEqual(await delta(b.secretKey, before.b), { available: 4750 - 1818 + 91, pending: 0 });
    assert.deepEqual(await delta(platform.testKey, before.p), { available: -2361 - 327, pending: 0 });

    // As given: more than a seller has left is refused, a sum other than the refund too, an unknown seller too.
    const tooMuch = await t.api(platform.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amount: 4000, distribution: [{ merchantId: a.merchantId, amount: 3819 }, { merchantId: b.merchantId, amount: 181 }] });
    assert.equal(tooMuch.status, 422, JSON.stringify(tooMuch.body));
    assert.equal(tooMuch.body.code, 'REFUND_EXCEEDS_CAPTURED');
    assert.equal(tooMuch.body.details.field, 'distribution[0].amount');
    const wrongSum = await t.api(platform.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amount: 4000, distribution: [{ merchantId: a.merchantId, amount: 100 }] });
    assert.equal(wrongSum.status, 400);
    assert.equal(wrongSum.body.details.field, 'distribution');
    const stranger = await t.api(platform.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amount: 100, distribution: [{ merchantId: other.id, amount: 100 }] });
    assert.equal(stranger.status, 400);
    assert.equal(stranger.body.details.field, 'distribution[0].merchantId');
    // The rest, as given: A's 3,818 (its whole share left: its commission back to 650 in all), B 182.
    const r2 = await t.api(platform.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amount: 4000, distribution: [{ merchantId: a.merchantId, amount: 3818 }, { merchantId: b.merchantId, amount: 182 }] });
    assert.equal(r2.status, 201, JSON.stringify(r2.body));
    const refunded = (await paymentEvents(t, id)).find((e) => e.type === 'payment.refunded');
    assert.deepEqual(new Map(refunded.data.refundDistribution.map((s: any) => [s.merchantId, [s.amount, s.commission]])), new Map([[a.merchantId, [3818, 414]], [b.merchantId, [182, 9]]]));
    assert.deepEqual(await delta(a.secretKey, before.a), { available: 0, pending: 0 });
    assert.deepEqual(await delta(b.secretKey, before.b), { available: 2850, pending: 0 });
    assert.deepEqual(await delta(platform.testKey, before.p), { available: -2850 - FEES_ON_8000, pending: 0 });
    await books();
  });

  it('a refused card and a cancelled authorization announce the order\'s split too, and move no seller\'s money', async () => {
    await fresh();
    const declined = await t.api(platform.testKey, 'POST', '/api/v1/payments/sessions', splitSessionBody(example()));
    await t.api(undefined, 'POST', `/checkout/${declined.body.sessionId}/pay`, { token: await tokenize(t, declined.body.sessionId, CARDS.declined) });
    const failed = (await paymentEvents(t, declined.body.paymentId)).find((e) => e.type === 'payment.failed');
    assert.ok(failed, 'payment.failed');
    assert.deepEqual(failed.data.platformDistribution.map((d: any) => d.netAmount), [5350, 4750, 900 - 1000 - 2000]);
    const manual = await t.api(platform.testKey, 'POST', '/api/v1/payments/sessions', splitSessionBody({ ...example(), captureMode: 'MANUAL' }));
    await paySession(t, manual.body.sessionId);
    assert.equal((await t.api(platform.testKey, 'POST', `/api/v1/payments/${manual.body.paymentId}/cancel`)).status, 200);
    const cancelled = (await paymentEvents(t, manual.body.paymentId)).find((e) => e.type === 'payment.cancelled');
    assert.deepEqual(cancelled.data.platformDistribution.map((d: any) => d.merchantId), [a.merchantId, b.merchantId, platform.id]);
    assert.deepEqual(await balanceOf(t, a.secretKey), { available: 0, pending: 0 });
    assert.deepEqual(await balanceOf(t, b.secretKey), { available: 0, pending: 0 });
    await books();
  });

  it('a charge of a saved card is split the same way, and checked the same way', async () => {
    await fresh();
    const customerId = await createCustomer(t, platform.testKey);
    const visa = (await saveCard(t, platform.testKey, customerId)).result.paymentMethodId;
    const body = (order: SplitOrder) => ({ paymentMethodId: visa, order: splitSessionBody(order).order, notificationUrl: 'https://shop.example/hook' });
    const refused = await t.api(platform.testKey, 'POST', '/api/v1/payments', body({ ...example(), financing: -1 }));
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.details.field, 'order.platformConfig.financing.amount');
    const res = await t.api(platform.testKey, 'POST', '/api/v1/payments', body(example()));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual([res.body.status, res.body.amount, res.body.capturedAmount], ['captured', 8000, 8000]);
    assert.deepEqual(res.body.platformDistribution.map((d: any) => d.netAmount), [5350, 4750, -2361]);
    assert.deepEqual(await balanceOf(t, a.secretKey), { available: 0, pending: 5350 });
    await books();
  });

  it('a chargeback is borne by the platform: the sellers keep their shares', async () => {
    await fresh();
    const id = await paidSplit(t, platform.testKey, example());
    await settle();
    const was = { a: await balanceOf(t, a.secretKey), b: await balanceOf(t, b.secretKey), p: await balanceOf(t, platform.testKey) };
    const d = await t.api(platform.testKey, 'POST', `/api/v1/test-helpers/payments/${id}/dispute`, { reason: 'fraudulent' });
    assert.equal(d.status, 201, JSON.stringify(d.body));
    assert.deepEqual(await balanceOf(t, a.secretKey), was.a);
    assert.deepEqual(await balanceOf(t, b.secretKey), was.b);
    assert.equal((await balanceOf(t, platform.testKey)).available, was.p.available - 8000 - 1500);
    // What the chargeback took cannot be refunded again.
    const refund = await t.api(platform.testKey, 'POST', `/api/v1/payments/${id}/refund`, { amount: 1 });
    assert.equal(refund.status, 422);
    await books();
  });

  it('a partial capture in XPF shares the split in proportion; a refused distribution on a payment without split', async () => {
    await fresh();
    const c = await onboardSeller(t, platform.testKey, { legalName: 'Tiare Moorea' });
    const order: SplitOrder = {
      amount: 30_000, currency: 'XPF', captureMode: 'MANUAL', financing: 3000,
      distribution: [
        { merchantId: a.merchantId, amount: 10_000, commission: { rate: 1000 } },
        { merchantId: b.merchantId, amount: 12_000, discount: 2000, commission: { fixed: 100 } },
        { merchantId: c.merchantId, amount: 10_000, commission: { rate: 333, fixed: 7 } },
      ],
    };
    const was = { a: await balanceOf(t, a.secretKey, 'XPF'), b: await balanceOf(t, b.secretKey, 'XPF'), c: await balanceOf(t, c.secretKey, 'XPF'), p: await balanceOf(t, platform.testKey, 'XPF') };
    const id = await paidSplit(t, platform.testKey, order);
    assert.equal((await t.api(platform.testKey, 'GET', `/api/v1/payments/${id}`)).body.amount, 27_000);
    const cap = await t.api(platform.testKey, 'POST', `/api/v1/payments/${id}/capture`, { amount: 13_500 });
    assert.equal(cap.status, 200, JSON.stringify(cap.body));
    const captured = (await paymentEvents(t, id)).find((e) => e.type === 'payment.captured');
    const dist = captured.data.platformDistribution;
    // Half of the card: amounts 32,000 × ½ = 16,000 shared 10:12:10 → 5,000, 6,000, 5,000; discounts 1,000; financing 1,500.
    assert.deepEqual(dist.slice(0, 3).map((s: any) => [s.amount, s.discount, s.commission, s.netAmount]), [
      [5000, 0, 500, 4500], [6000, 1000, 50, 5950], [5000, 0, 170, 4830],
    ]);
    const p = dist[3];
    assert.deepEqual([p.commission, p.discounts, p.financing, p.fees], [720, 1000, 1500, captured.data.settlement.mobupayCommission]);
    assert.equal(p.netAmount, 720 - 1000 - 1500 - p.fees);
    for (const [seller, key, w] of [[0, a.secretKey, was.a], [1, b.secretKey, was.b], [2, c.secretKey, was.c]] as const) {
      assert.equal((await balanceOf(t, key, 'XPF')).pending - w.pending, dist[seller].netAmount);
    }
    assert.equal((await balanceOf(t, platform.testKey, 'XPF')).pending - was.p.pending, p.netAmount);
    await books();

    const plain = await t.api(other.testKey, 'POST', '/api/v1/payments/sessions', { order: { amount: 500, currency: 'EUR' }, email: 'buyer@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h' });
    await paySession(t, plain.body.sessionId);
    const refused = await t.api(other.testKey, 'POST', `/api/v1/payments/${plain.body.paymentId}/refund`, { amount: 100, distribution: [{ merchantId: a.merchantId, amount: 100 }] });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.details.field, 'distribution');
  });

  it("a seller sees its own balance transactions (not the platform's payment), and is paid out like any merchant", async () => {
    await fresh();
    const id = await paidSplit(t, platform.testKey, example());
    await settle();
    // The payment is the platform's: the seller's key does not see it.
    assert.equal((await t.api(a.secretKey, 'GET', `/api/v1/payments/${id}`)).status, 404);
    assert.equal((await t.api(a.secretKey, 'GET', '/api/v1/payments?limit=100')).body.data.some((p: any) => p.id === id), false);
    const mine = (await t.api(a.secretKey, 'GET', `/api/v1/balance-transactions?sourceId=${id}&limit=100`)).body.data as Array<{ type: string; amount: number; status: string }>;
    assert.deepEqual(mine.map((x) => [x.type, x.amount, x.status]).sort(), [['platform_commission', -650, 'available'], ['platform_share', 6000, 'available']]);
    const theirs = (await t.api(platform.testKey, 'GET', `/api/v1/balance-transactions?sourceId=${id}&limit=100`)).body.data as Array<{ type: string; amount: number }>;
    assert.deepEqual(theirs.map((x) => [x.type, x.amount]).sort(), [['payment', 8000], ['payment_fee', -FEES_ON_8000], ['platform_share', -5350], ['platform_share', -4750]].sort());

    // Paid out: the seller's whole available balance, to the bank account of its onboarding.
    const banks = (await t.api(a.secretKey, 'GET', '/api/v1/bank-accounts')).body.data as Array<{ id: string; default: boolean; currency: string }>;
    const bank = banks.find((x) => x.default && x.currency === 'EUR');
    assert.ok(bank, 'the onboarding gave the seller a default EUR account');
    const available = (await balanceOf(t, a.secretKey)).available;
    assert.ok(available > 0);
    const payout = await t.api(a.secretKey, 'POST', '/api/v1/payouts', { currency: 'EUR' });
    assert.equal(payout.status, 201, JSON.stringify(payout.body));
    assert.equal(payout.body.amount, available);
    assert.equal(payout.body.recipientId, bank.id);
    const carried = (await t.api(a.secretKey, 'GET', `/api/v1/payouts/${payout.body.id}/transactions?limit=100`)).body.data as Array<{ amount: number }>;
    assert.equal(carried.reduce((s, x) => s + x.amount, 0), available);
    clock.advance(61_000);
    await schedule().services.payouts.answerDueTestPayouts(clock.now());
    assert.equal((await t.api(a.secretKey, 'GET', `/api/v1/payouts/${payout.body.id}`)).body.status, 'paid');
    assert.equal((await balanceOf(t, a.secretKey)).available, 0);
    // The platform's key never sees the seller's payout.
    assert.equal((await t.api(platform.testKey, 'GET', `/api/v1/payouts/${payout.body.id}`)).status, 404);
    await books();
  });
  // The platform flag and the sellers' links are read from the process's cache (src/db/reference-cache.ts): a link ended
  // after a split was accepted, here or by another process, is seen by the very next session (PostgreSQL: once the other
  // process's commit is heard).
  it('a seller unlinked after a split was accepted, by this process or another, is refused at the next session', async () => {
    const market = await makePlatform(t, 'Cached Market');
    const x = await onboardSeller(t, market.testKey, { legalName: 'Seller Cached X' });
    const y = await onboardSeller(t, market.testKey, { legalName: 'Seller Cached Y' });
    const order: SplitOrder = { amount: 3000, distribution: [{ merchantId: x.merchantId, amount: 1000 }, { merchantId: y.merchantId, amount: 2000 }] };
    const session = () => t.api(market.testKey, 'POST', '/api/v1/payments/sessions', splitSessionBody(order));
    const refusedAt = async (field: string) => {
      const res = await session();
      return res.status === 400 && res.body.code === 'PLATFORM_CONFIG_INVALID' && res.body.details.field === field;
    };
    if (dialect === 'postgres') await listening(t);
    assert.equal((await session()).status, 201);
    await t.db.transaction((trx) => unlinkSeller(trx, { platformId: market.id, sellerId: y.merchantId, mode: 'test', at: clock.now() }));
    assert.ok(await refusedAt('order.platformConfig.distribution[1].merchantId'), 'unlinked by this process: refused at once');

    const both: SplitOrder = { amount: 1000, distribution: [{ merchantId: x.merchantId, amount: 1000 }] };
    assert.equal((await t.api(market.testKey, 'POST', '/api/v1/payments/sessions', splitSessionBody(both))).status, 201);
    const unlinkX = 'update platform_links set unlinked_at = $1 where seller_id = $2 and unlinked_at is null';
    if (dialect === 'postgres') {
      await fromAnotherProcess(t, [unlinkX, [clock.now().toISOString(), x.merchantId]]);
    } else {
      const { default: SQLite } = await import('better-sqlite3');
      const { join } = await import('node:path');
      const other = new SQLite(join(t.dataDir, 'motu.sqlite'));
      try {
        other.prepare(unlinkX.replace('$1', '?').replace('$2', '?')).run(clock.now().toISOString(), x.merchantId);
      } finally {
        other.close();
      }
    }
    await eventually('the link ended by another process is seen', () => refusedAt('order.platformConfig.distribution[0].merchantId'));
  });
});
