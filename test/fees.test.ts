// Fees of the settlement block against worked examples computed by hand (docs/payments.md, Fees:
// each line exact in EUR cents with its own tax rounded half up, converted line by line; the commission
// is the exact EUR total converted once). The HTTP-level checks of the same numbers in events are in
// test/payments-lifecycle.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { settlementBlock } from '../src/modules/payments/fees.js';

const DEFAULT = { commission_rate: 250, fixed_fee: 25, authorization_fee: 0, tax_rate: 1600 };

describe('settlement block fees', () => {
  it('EUR 100.00 captured, 2.50 % + 0.25 €, TVA 16 %', () => {
    // commission: 10000 × 2.5 % = 250.00 → 250; tax 250 × 16 % = 40 → 40; total 290
    // fixed fee: 25, tax 25 × 16 % = 4 → 4; total 29
    // authorization: 0 € × 1 attempt = 0
    // Σ EUR = 319 → commission 319, net 10000 − 319 = 9681
    const s = settlementBlock({ currency: 'EUR', capturedAmount: 10000, attempts: 1, settled: false }, DEFAULT);
    assert.deepEqual(s, {
      capturedAmount: 10000,
      mobupayCommission: 319,
      netAmount: 9681,
      currency: 'EUR',
      settled: false,
      detailedFees: [
        {
          id: 'spirit_commission', label: 'Commission', type: 'PERCENTAGE', rate: 250,
          amount: 250, amountEur: 250, taxAmount: 40, taxAmountEur: 40,
          taxes: [{ id: 'tva', type: 'PERCENTAGE', value: 1600, amount: 40, amountEur: 40 }],
          totalAmount: 290, totalAmountEur: 290,
        },
        { id: 'spirit_fixed_fee', label: 'Fixed fee', totalAmount: 29, totalAmountEur: 29 },
        { id: 'authorization_result', label: 'Authorization', totalAmount: 0, totalAmountEur: 0 },
      ],
    });
  });

  it('EUR 19.99 with an authorization fee and two attempts: half-up on each line', () => {
    // commission: 1999 × 2.5 % = 49.975 → 50; tax 50 × 16 % = 8 → 8; total 58
    // fixed fee: 25 + 4 = 29
    // authorization: 10 × 2 attempts = 20; tax 20 × 16 % = 3.2 → 3; total 23
    // Σ EUR = 58 + 29 + 23 = 110; net 1999 − 110 = 1889
    const s = settlementBlock(
      { currency: 'EUR', capturedAmount: 1999, attempts: 2, settled: true },
      { ...DEFAULT, authorization_fee: 10 },
    );
    assert.equal(s.detailedFees[0]!.amountEur, 50);
    assert.equal(s.detailedFees[0]!.taxAmountEur, 8);
    assert.equal(s.detailedFees[0]!.totalAmountEur, 58);
    assert.deepEqual(s.detailedFees[2], { id: 'authorization_result', label: 'Authorization', totalAmount: 23, totalAmountEur: 23 });
    assert.equal(s.mobupayCommission, 110);
    assert.equal(s.netAmount, 1889);
    assert.equal(s.settled, true);
  });

  it('XPF 1 000: the lines total one franc more than the commission', () => {
    // 1000 XPF = 1000 × 838 / 1000 = 838 EUR cents
    // commission: 838 × 2.5 % = 20.95 → 21 c; tax 21 × 16 % = 3.36 → 3 c; total 24 c
    //   in XPF: amount 21 × 1000 / 838 = 25.06 → 25; tax 3 × 1000 / 838 = 3.58 → 4; total 24 × 1000 / 838 = 28.64 → 29
    // fixed fee: 25 + 4 = 29 c → 29 × 1000 / 838 = 34.61 → 35 XPF
    // authorization: 0
    // Σ EUR = 24 + 29 = 53 c → commission 53 × 1000 / 838 = 63.25 → 63 XPF, while the lines add up to 29 + 35 = 64
    // net = 1000 − 63 = 937 XPF
    const s = settlementBlock({ currency: 'XPF', capturedAmount: 1000, attempts: 1, settled: false }, DEFAULT);
    const [commission, fixed, auth] = s.detailedFees;
    assert.deepEqual(commission, {
      id: 'spirit_commission', label: 'Commission', type: 'PERCENTAGE', rate: 250,
      amount: 25, amountEur: 21, taxAmount: 4, taxAmountEur: 3,
      taxes: [{ id: 'tva', type: 'PERCENTAGE', value: 1600, amount: 4, amountEur: 3 }],
      totalAmount: 29, totalAmountEur: 24,
    });
    assert.deepEqual(fixed, { id: 'spirit_fixed_fee', label: 'Fixed fee', totalAmount: 35, totalAmountEur: 29 });
    assert.deepEqual(auth, { id: 'authorization_result', label: 'Authorization', totalAmount: 0, totalAmountEur: 0 });
    assert.equal(s.currency, 'XPF');
    assert.equal(s.mobupayCommission, 63);
    assert.equal(s.detailedFees.reduce((sum, l) => sum + l.totalAmount, 0), 64);
    assert.equal(s.detailedFees.reduce((sum, l) => sum + l.totalAmountEur, 0), 53);
    assert.equal(s.netAmount, 937);
  });

  it('XPF 10 000: lines and commission agree', () => {
    // 10000 XPF = 8380 c; commission 8380 × 2.5 % = 209.5 → 210 c; tax 210 × 16 % = 33.6 → 34 c; total 244 c
    //   XPF: 210 → 250.60 → 251; 34 → 40.57 → 41; 244 → 291.17 → 291
    // fixed fee 29 c → 35 XPF; Σ EUR 273 c → 325.78 → 326 XPF = 291 + 35; net 10000 − 326 = 9674
    const s = settlementBlock({ currency: 'XPF', capturedAmount: 10000, attempts: 1, settled: false }, DEFAULT);
    assert.equal(s.detailedFees[0]!.amount, 251);
    assert.equal(s.detailedFees[0]!.taxAmount, 41);
    assert.equal(s.detailedFees[0]!.totalAmount, 291);
    assert.equal(s.mobupayCommission, 326);
    assert.equal(s.netAmount, 9674);
  });

  it('a refund adds its own line and returns no fee', () => {
    const before = settlementBlock({ currency: 'XPF', capturedAmount: 1000, attempts: 1, settled: false }, DEFAULT);
    const after = settlementBlock(
      { currency: 'XPF', capturedAmount: 1000, attempts: 1, settled: false, refunds: [{ id: 're_1', amount: 400 }] },
      DEFAULT,
    );
    assert.equal(after.detailedFees.length, 4);
    assert.equal(after.detailedFees[3]!.id, 'refund');
    assert.equal(after.detailedFees[3]!.totalAmountEur, 0);
    assert.match(after.detailedFees[3]!.label, /re_1/);
    assert.equal(after.mobupayCommission, before.mobupayCommission);
    assert.equal(after.netAmount, 937);
  });
});
