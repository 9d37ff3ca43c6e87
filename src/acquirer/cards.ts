// Card number rules shared by the simulator and the secure fields: Luhn, brand detection, co-badging.
// The same rules run in the browser (fields/number-field.ts carries a copy in plain JS).
import type { CardBrand, CardNetwork } from './acquirer.js';

export function digitsOnly(value: string): string {
  return value.replace(/[\s-]/g, '');
}

export function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  let double = false;
  for (let i = number.length - 1; i >= 0; i--) {
    let d = number.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

export function detectBrand(number: string): CardBrand {
  if (/^4/.test(number)) return 'VISA';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(number)) return 'MASTERCARD';
  if (/^3[47]/.test(number)) return 'AMEX';
  return 'UNKNOWN';
}

/** Ranges the simulator treats as co-badged with Cartes Bancaires (test BINs of DESIGN.md section 5). */
const CB_BINS = ['497010', '513100'];

export function networksOf(number: string, brand: CardBrand): CardNetwork[] {
  const own: CardNetwork[] = brand === 'VISA' ? ['VISA'] : brand === 'MASTERCARD' ? ['MASTERCARD'] : brand === 'AMEX' ? ['AMEX'] : ['VISA'];
  return CB_BINS.some((bin) => number.startsWith(bin)) ? ['CB', ...own] : own;
}
