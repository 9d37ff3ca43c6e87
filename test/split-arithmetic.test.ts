// The arithmetic of split payments (src/modules/splits/split-arithmetic.ts): examples worked by hand, then properties
// over random splits (fast-check): the sums hold to the unit, partial captures keep the identity and bounds, refunds
// never take more than a seller has left and give its whole commission back when it is refunded in full.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  capturedSplit, commissionBack, commissionOf, largestRemainder, orderSplit, platformNet, proportionalRefund, type SplitPlan,
} from '../src/modules/splits/split-arithmetic.js';
import { checkShape } from '../src/modules/splits/split-config.js';
import { AppError } from '../src/shared/errors.js';

describe('split arithmetic', () => {
  it('largest remainder shares exactly, the leftover units to the largest remainders', () => {
    assert.deepEqual(largestRemainder(100, [1, 1, 1]), [34, 33, 33]);
    assert.deepEqual(largestRemainder(10, [7000, 3000]), [7, 3]);
    assert.deepEqual(largestRemainder(5, [1, 2, 3]), [1, 2, 2]); // 0.83, 1.67, 2.5 → floors 0,1,2, remainders .83 .67 .5
    assert.deepEqual(largestRemainder(0, [0, 0]), [0, 0]);
    assert.throws(() => largestRemainder(1, [0]), RangeError);
  });

  it('a commission is the rate of the amount, half up, plus the fixed part', () => {
    assert.deepEqual(commissionOf(1999, 250, 0), { rated: 50, fixed: 0, total: 50 }); // 49.975 → 50
    assert.deepEqual(commissionOf(1000, 1000, 30), { rated: 100, fixed: 30, total: 130 });
    assert.deepEqual(commissionOf(5, 1000, 0), { rated: 1, fixed: 0, total: 1 }); // 0.5 → 1
  });

  it('two sellers, a discount and financing: every figure by hand', () => {
    // order.amount 10,000 = 6,000 + 5,000 − 1,000 discount; financing 2,000: the card pays 8,000.
    const plan: SplitPlan = {
      sellers: [
        { merchantId: 'mer_a', amount: 6000, discount: 0, commissionRate: 1000, commissionFixed: 50 },
        { merchantId: 'mer_b', amount: 5000, discount: 1000, commissionRate: 500, commissionFixed: 0 },
      ],
      financing: 2000,
    };
    const split = orderSplit(plan, 8000);
    assert.deepEqual(split.sellers.map((s) => [s.commission, s.netAmount]), [[650, 5350], [250, 4750]]);
    assert.equal(split.commission, 900);
    assert.equal(platformNet(split, 100), 900 - 1000 - 2000 - 100);
    // Platform net = what the card brought − fees − the sellers' nets.
    assert.equal(platformNet(split, 100), 8000 - 100 - 5350 - 4750);
    // Half the card captured.
    const half = capturedSplit(plan, 8000, 4000);
    assert.deepEqual(half.sellers.map((s) => s.amount), [3000, 2500]);
    assert.deepEqual(half.sellers.map((s) => s.discount), [0, 500]);
    assert.equal(half.financing, 1000);
    assert.deepEqual(half.sellers.map((s) => s.commission), [325, 125]);
  });

  it('the order is checked: sums, commission, duplicates, unknown keys, financing', () => {
    const field = (config: Record<string, unknown>, amount = 1000) => {
      try {
        checkShape(config, amount);
        return 'accepted';
      } catch (err) {
        assert.ok(err instanceof AppError);
        assert.equal(err.code, 'PLATFORM_CONFIG_INVALID');
        return (err.details as { field: string }).field;
      }
    };
    const a = 'mer_aaaaaaaaaaaa';
    const b = 'mer_bbbbbbbbbbbb';
    assert.equal(field({ distribution: [{ merchantId: a, amount: 600 }, { merchantId: b, amount: 400 }] }), 'accepted');
    assert.equal(field({ distribution: [{ merchantId: a, amount: 600 }, { merchantId: b, amount: 500 }] }), 'order.platformConfig.distribution');
    assert.equal(field({ distribution: [{ merchantId: a, amount: 600 }, { merchantId: b, amount: 500, discount: 100 }] }), 'accepted');
    assert.equal(field({ distribution: [{ merchantId: a, amount: 600 }, { merchantId: a, amount: 400 }] }), 'order.platformConfig.distribution[1].merchantId');
    assert.equal(field({ distribution: [{ merchantId: a, amount: 600.5 }, { merchantId: b, amount: 399.5 }] }), 'order.platformConfig.distribution[0].amount');
    assert.equal(field({ distribution: [{ merchantId: a, amount: -1 }] }), 'order.platformConfig.distribution[0].amount');
    assert.equal(field({ distribution: [{ merchantId: a, amount: 1000, commission: { fixed: 1001 } }] }), 'order.platformConfig.distribution[0].commission');
    assert.equal(field({ distribution: [{ merchantId: a, amount: 1000, commission: { rate: 10_001 } }] }), 'order.platformConfig.distribution[0].commission.rate');
    assert.equal(field({ distribution: [{ merchantId: a, amount: 1000, commission: { percent: 1 } }] }), 'order.platformConfig.distribution[0].commission.percent');
    assert.equal(field({ distribution: [{ merchantId: a, amount: 1000, shop: 1 }] }), 'order.platformConfig.distribution[0].shop');
    assert.equal(field({ distribution: [{ merchantId: a, amount: 1000 }], channel: 'odoo' }), 'order.platformConfig.channel');
    assert.equal(field({ distribution: [{ merchantId: a, amount: 1000 }], financing: { amount: 1000 } }), 'order.platformConfig.financing.amount');
    assert.equal(field({ distribution: [{ merchantId: a, amount: 1000 }], financing: { amount: 999 } }), 'accepted');
    assert.equal(field({ distribution: [] }), 'order.platformConfig.distribution');
    assert.equal(field({ distribution: [{ merchantId: 'acme', amount: 1000 }] }), 'order.platformConfig.distribution[0].merchantId');
    assert.equal(field({ distribution: [{ merchantId: a, amount: 100, discount: 101 }] }), 'order.platformConfig.distribution[0].discount');
  });
});

/** A random valid plan: 1–10 sellers, discounts, commissions, financing below the order's amount. */
const planArb = fc.record({
  sellers: fc.array(fc.record({
    amount: fc.integer({ min: 1, max: 5_000_000 }),
    discountShare: fc.integer({ min: 0, max: 100 }),
    rate: fc.integer({ min: 0, max: 3000 }),
    fixed: fc.integer({ min: 0, max: 500 }),
  }), { minLength: 1, maxLength: 10 }),
  financingShare: fc.integer({ min: 0, max: 99 }),
}).map(({ sellers, financingShare }) => {
  const plan: SplitPlan = {
    sellers: sellers.map((s, i) => {
      const discount = Math.floor((s.amount * s.discountShare) / 400);
      const rated = commissionOf(s.amount, s.rate, 0).rated;
      return { merchantId: `mer_${i}`, amount: s.amount, discount, commissionRate: s.rate, commissionFixed: Math.min(s.fixed, s.amount - rated) };
    }),
    financing: 0,
  };
  const orderAmount = plan.sellers.reduce((t, s) => t + s.amount - s.discount, 0);
  plan.financing = Math.floor(((orderAmount - 1) * financingShare) / 100);
  return { plan, charge: orderAmount - plan.financing };
});

describe('split arithmetic properties', () => {
  it('any capture: Σ amounts = captured + discounts + financing, bounds kept, the platform net is what is left', () => {
    fc.assert(fc.property(planArb, fc.integer({ min: 0, max: 1000 }), ({ plan, charge }, per) => {
      const captured = Math.floor((charge * per) / 1000);
      const split = capturedSplit(plan, charge, captured);
      const amounts = split.sellers.reduce((t, s) => t + s.amount, 0);
      assert.equal(amounts, captured + split.discounts + split.financing);
      assert.ok(split.financing >= 0 && split.financing <= plan.financing);
      split.sellers.forEach((s, i) => {
        assert.ok(s.amount >= 0 && s.amount <= plan.sellers[i]!.amount);
        assert.ok(s.commission >= 0 && s.commission <= s.amount);
        assert.ok(s.commissionFixed >= 0 && s.commissionRated >= 0);
        assert.equal(s.netAmount, s.amount - s.commission);
      });
      const fees = 37;
      assert.equal(platformNet(split, fees), captured - fees - split.sellers.reduce((t, s) => t + s.netAmount, 0));
      if (captured === charge) assert.deepEqual(split, orderSplit(plan, charge));
    }), { numRuns: 2000 });
  });

  it('refunds in proportion never take more than a seller has left, and a full refund of a seller gives back all its commission', () => {
    fc.assert(fc.property(planArb, fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 6 }), ({ plan, charge }, parts) => {
      const split = capturedSplit(plan, charge, charge);
      const refunded = split.sellers.map(() => ({ amount: 0, commission: 0 }));
      let left = charge;
      for (const part of parts) {
        const amount = Math.max(1, Math.floor((left * part) / 100));
        if (left === 0) break;
        const shares = proportionalRefund(Math.min(amount, left), split, refunded);
        assert.equal(shares.reduce((t, x) => t + x, 0), Math.min(amount, left));
        shares.forEach((share, i) => {
          assert.ok(share >= 0 && refunded[i]!.amount + share <= split.sellers[i]!.amount);
          const back = commissionBack(split.sellers[i]!, refunded[i]!, share);
          assert.ok(back >= 0);
          refunded[i] = { amount: refunded[i]!.amount + share, commission: refunded[i]!.commission + back };
          assert.ok(refunded[i]!.commission <= split.sellers[i]!.commission);
          if (refunded[i]!.amount === split.sellers[i]!.amount) assert.equal(refunded[i]!.commission, split.sellers[i]!.commission);
        });
        left -= Math.min(amount, left);
      }
    }), { numRuns: 2000 });
  });
});
