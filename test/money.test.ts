// Money arithmetic with worked examples computed by hand (XPF is pegged: 1,000 XPF = 8.38 EUR).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  eurCentsToXpf, formatAmount, fromEurCents, percentOf, roundHalfUp, toEurCents, xpfToEurCents,
} from '../src/shared/money.js';

const S = '\u00a0'; // the no-break space formatAmount puts between groups and before the currency

describe('roundHalfUp', () => {
  it('rounds exact halves up and everything else to the nearest integer', () => {
    assert.equal(roundHalfUp(5, 2), 3); // 2.5 → 3
    assert.equal(roundHalfUp(7, 2), 4); // 3.5 → 4
    assert.equal(roundHalfUp(4, 3), 1); // 1.333… → 1
    assert.equal(roundHalfUp(5, 3), 2); // 1.666… → 2
    assert.equal(roundHalfUp(6, 3), 2); // exact
    assert.equal(roundHalfUp(0, 7), 0);
    assert.equal(roundHalfUp(1, 3), 0); // 0.333… → 0
  });
  it('is symmetric for negative values (half away from zero)', () => {
    assert.equal(roundHalfUp(-5, 2), -3);
    assert.equal(roundHalfUp(5, -2), -3);
    assert.equal(roundHalfUp(-4, 3), -1);
    assert.equal(roundHalfUp(-5, -2), 3);
  });
  it('is exact beyond 2^53 in the numerator (BigInt) and refuses an unsafe result', () => {
    // 9,007,199,254,740,993 is 2^53 + 1, not representable as a double; / 1000 = 9,007,199,254,740.993 → …741
    assert.equal(roundHalfUp(9_007_199_254_740_993n, 1000n), 9_007_199_254_741);
    assert.throws(() => roundHalfUp(10n ** 20n, 1n), RangeError);
    assert.throws(() => roundHalfUp(1, 0), RangeError);
    assert.throws(() => roundHalfUp(1.5, 1), RangeError);
  });
});

describe('XPF ↔ EUR cents', () => {
  it('converts XPF to EUR cents: round_half_up(x × 838 / 1000)', () => {
    assert.equal(xpfToEurCents(1000), 838); // the peg itself
    assert.equal(xpfToEurCents(500), 419); // 419.000
    assert.equal(xpfToEurCents(1), 1); // 0.838 → 1
    assert.equal(xpfToEurCents(100), 84); // 83.8 → 84
    assert.equal(xpfToEurCents(125), 105); // 104.75 → 105
    assert.equal(xpfToEurCents(250), 210); // 209.5: an exact half, rounded up
    assert.equal(xpfToEurCents(119_332), 100_000); // 100,000.216 → 100,000
    assert.equal(xpfToEurCents(5_000), 4_190); // 4,190.000
    assert.equal(xpfToEurCents(0), 0);
  });
  it('converts EUR cents to XPF: round_half_up(c × 1000 / 838)', () => {
    assert.equal(eurCentsToXpf(838), 1000);
    assert.equal(eurCentsToXpf(419), 500);
    assert.equal(eurCentsToXpf(1), 1); // 1.193… → 1
    assert.equal(eurCentsToXpf(100), 119); // 119.33… → 119
    assert.equal(eurCentsToXpf(1000), 1193); // 1,193.317… → 1,193
    assert.equal(eurCentsToXpf(10_000), 11_933); // 11,933.17… → 11,933
    assert.equal(eurCentsToXpf(50), 60); // 59.665… → 60
  });
  it('leaves EUR unchanged and converts XPF through the peg', () => {
    assert.equal(toEurCents(1234, 'EUR'), 1234);
    assert.equal(toEurCents(1000, 'XPF'), 838);
    assert.equal(fromEurCents(1234, 'EUR'), 1234);
    assert.equal(fromEurCents(838, 'XPF'), 1000);
  });
});

describe('percentOf (basis points)', () => {
  it('takes hundredths of a percent, rounded half up', () => {
    assert.equal(percentOf(10_000, 250), 250); // 2.50 % of 100.00
    assert.equal(percentOf(1_999, 250), 50); // 49.975 → 50
    assert.equal(percentOf(1_000, 1_600), 160); // 16 % of 1,000
    assert.equal(percentOf(3, 5_000), 2); // 1.5 → 2
    assert.equal(percentOf(1, 4_999), 0); // 0.4999 → 0
    assert.equal(percentOf(10_000, 1_100), 1_100); // TGC 11 %
    assert.equal(percentOf(12_345, 550), 679); // 678.975 → 679
  });
});

describe('formatAmount', () => {
  it('writes French amounts with no-break spaces', () => {
    assert.equal(formatAmount(1000, 'XPF', 'fr'), `1${S}000${S}XPF`);
    assert.equal(formatAmount(999, 'XPF', 'fr'), `999${S}XPF`);
    assert.equal(formatAmount(1_250_000, 'XPF', 'fr-FR'), `1${S}250${S}000${S}XPF`);
    assert.equal(formatAmount(1000, 'EUR', 'fr'), `10,00${S}€`);
    assert.equal(formatAmount(123_456, 'EUR', 'fr'), `1${S}234,56${S}€`);
    assert.equal(formatAmount(5, 'EUR'), `0,05${S}€`); // French is the default
    assert.equal(formatAmount(-1050, 'EUR', 'fr'), `-10,50${S}€`);
  });
  it('writes English amounts with the symbol first', () => {
    assert.equal(formatAmount(1000, 'EUR', 'en'), '€10.00');
    assert.equal(formatAmount(123_456_789, 'EUR', 'en-US'), '€1,234,567.89');
    assert.equal(formatAmount(0, 'EUR', 'en'), '€0.00');
    assert.equal(formatAmount(1000, 'XPF', 'en'), `XPF${S}1,000`);
    assert.equal(formatAmount(-7, 'EUR', 'en'), '-€0.07');
  });
});
