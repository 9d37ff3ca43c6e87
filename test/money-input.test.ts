// Amounts as typed in the back-office read into minor units (src/shared/money-input.ts): worked examples, and
// properties over any amount: what formatAmount or amountToInput writes reads back to the same amount, and an
// amount with more decimals than its currency has is refused, never rounded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { amountToInput, parseAmount } from '../src/shared/money-input.js';
import { formatAmount } from '../src/shared/money.js';

const ok = (amount: number) => ({ ok: true, amount });
const refused = (error: string) => ({ ok: false, error });

describe('parseAmount', () => {
  it('reads French amounts: a comma or a point for the decimals, spaces between thousands', () => {
    assert.deepEqual(parseAmount('25', 'EUR', 'fr'), ok(2500));
    assert.deepEqual(parseAmount('25,50', 'EUR', 'fr'), ok(2550));
    assert.deepEqual(parseAmount('25.50', 'EUR', 'fr'), ok(2550));
    assert.deepEqual(parseAmount('25,5', 'EUR', 'fr'), ok(2550));
    assert.deepEqual(parseAmount('0,29', 'EUR', 'fr'), ok(29)); // 0.29 × 100 is 28.999… in floating point
    assert.deepEqual(parseAmount(',05', 'EUR', 'fr'), ok(5));
    assert.deepEqual(parseAmount('1 234,56', 'EUR', 'fr'), ok(123_456));
    assert.deepEqual(parseAmount('1\u202f234,56\u00a0€', 'EUR', 'fr'), ok(123_456)); // as Intl writes it, pasted
    assert.deepEqual(parseAmount(' 2 500 XPF ', 'XPF', 'fr'), ok(2500));
    assert.deepEqual(parseAmount('2500', 'XPF', 'fr'), ok(2500));
  });

  it('reads English amounts: a point for the decimals, commas between thousands', () => {
    assert.deepEqual(parseAmount('25', 'EUR', 'en'), ok(2500));
    assert.deepEqual(parseAmount('25.50', 'EUR', 'en'), ok(2550));
    assert.deepEqual(parseAmount('€1,234.56', 'EUR', 'en'), ok(123_456));
    assert.deepEqual(parseAmount('1,000', 'XPF', 'en'), ok(1000));
    assert.deepEqual(parseAmount('XPF 1,000', 'XPF', 'en'), ok(1000));
  });

  it('refuses more decimals than the currency has, rather than rounding', () => {
    assert.deepEqual(parseAmount('0,001', 'EUR', 'fr'), refused('too_many_decimals'));
    assert.deepEqual(parseAmount('25.505', 'EUR', 'en'), refused('too_many_decimals'));
    assert.deepEqual(parseAmount('25,5', 'XPF', 'fr'), refused('too_many_decimals'));
    assert.deepEqual(parseAmount('25,00', 'XPF', 'fr'), refused('too_many_decimals'));
    // "1.000" is one euro with three decimals in French (refused), not a thousand.
    assert.deepEqual(parseAmount('1.000', 'EUR', 'fr'), refused('too_many_decimals'));
  });

  it('refuses what is not an amount, and guesses nothing', () => {
    for (const [text, lang] of [
      ['abc', 'fr'], ['25 €50', 'fr'], ['-25', 'fr'], ['+25', 'en'], ['1e3', 'en'], ['25,50', 'en'], ['1,00,000', 'en'],
      ['12 34', 'fr'], ['1.000,50', 'fr'], ['.', 'en'], [',', 'fr'], ['0x10', 'en'], ['25,5,0', 'fr'], ['٣', 'fr'],
    ] as const) {
      assert.deepEqual(parseAmount(text, 'EUR', lang), refused('invalid'), `${text} (${lang})`);
    }
    assert.deepEqual(parseAmount('', 'EUR', 'fr'), refused('empty'));
    assert.deepEqual(parseAmount('  ', 'EUR', 'fr'), refused('empty'));
    assert.deepEqual(parseAmount('€', 'EUR', 'fr'), refused('empty'));
    assert.deepEqual(parseAmount('90071992547409,92', 'EUR', 'fr'), refused('too_large'));
    assert.deepEqual(parseAmount('9'.repeat(60), 'XPF', 'fr'), refused('too_large'));
  });

  const currency = fc.constantFrom('EUR' as const, 'XPF' as const);
  const lang = fc.constantFrom('fr', 'en');
  const amount = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });

  it('reads back what amountToInput writes, in both languages and currencies', () => {
    fc.assert(fc.property(amount, currency, lang, (a, c, l) => {
      assert.deepEqual(parseAmount(amountToInput(a, c, l), c, l), ok(a));
    }));
  });

  it('reads back what formatAmount shows (grouped, with its currency), so a copied amount pastes as itself', () => {
    fc.assert(fc.property(amount, currency, lang, (a, c, l) => {
      assert.deepEqual(parseAmount(formatAmount(a, c, l), c, l), ok(a));
    }));
  });

  it('refuses any amount with one decimal more than its currency has', () => {
    fc.assert(fc.property(fc.nat(1_000_000), fc.integer({ min: 1, max: 9 }), currency, lang, (units, digit, c, l) => {
      const places = c === 'EUR' ? 2 : 0;
      const point = l === 'fr' ? ',' : '.';
      const text = `${units}${point}${'0'.repeat(places)}${digit}`;
      assert.deepEqual(parseAmount(text, c, l), refused('too_many_decimals'));
    }));
  });
});
