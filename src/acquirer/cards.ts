// Card number rules shared by the simulator and the secure fields: Luhn, brand detection, co-badging.
// The browser runs the same tables: fields/fields-script.ts embeds CARD_RULES (brand patterns and co-badged
// BINs) into the number field's script, so what the field detects while typing is what tokenization decides.
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

/** Brand by leading digits, first match wins (pattern sources, so the browser can build the same RegExps). */
const BRAND_PATTERNS: ReadonlyArray<readonly [Exclude<CardBrand, 'UNKNOWN'>, string]> = [
  ['VISA', '^4'],
  ['MASTERCARD', '^(5[1-5]|2(2[2-9]|[3-6]\\d|7[01]|720))'],
  ['AMEX', '^3[47]'],
];

/** Ranges the simulator treats as co-badged with Cartes Bancaires (the BINs of the co-badged test cards). */
const CB_BINS: readonly string[] = ['497010', '513100'];

/** The tables above as JSON-safe data, for the secure number field's script. */
export const CARD_RULES = { brands: BRAND_PATTERNS, cbBins: CB_BINS } as const;

const BRAND_REGEXPS = BRAND_PATTERNS.map(([brand, source]) => [brand, new RegExp(source)] as const);

export function detectBrand(number: string): CardBrand {
  for (const [brand, re] of BRAND_REGEXPS) if (re.test(number)) return brand;
  return 'UNKNOWN';
}

export function networksOf(number: string, brand: CardBrand): CardNetwork[] {
  const own: CardNetwork[] = brand === 'VISA' ? ['VISA'] : brand === 'MASTERCARD' ? ['MASTERCARD'] : brand === 'AMEX' ? ['AMEX'] : ['VISA'];
  return CB_BINS.some((bin) => number.startsWith(bin)) ? ['CB', ...own] : own;
}

/** The network an operation is routed on: CB for a co-badged card, else the card's own. */
export function chooseNetwork(networks: readonly CardNetwork[]): CardNetwork {
  return networks.includes('CB') ? 'CB' : networks[0] ?? 'VISA';
}
