// Money: integers of minor units with their currency, converted and rounded here and nowhere else.
// XPF has no minor unit (1 XPF = 1); EUR counts cents. XPF is pegged: 1,000 XPF = 8.38 EUR exactly.
// Every rounding is half up on exact integers (BigInt), never floating point: a cent is never lost or invented.

export const CURRENCIES = ['XPF', 'EUR'] as const;
export type Currency = (typeof CURRENCIES)[number];

export function isCurrency(value: unknown): value is Currency {
  return value === 'XPF' || value === 'EUR';
}

/**
 * Largest amount a merchant can give or grow, in minor units of either currency (9,999,999.99 EUR, 999,999,999 XPF):
 * a payment, a subscription's amount, an invoice line and an invoice's total with its taxes. It fits a signed 32-bit
 * column with room to add tax and sum refunds; sums across payments (balances, payouts) are 64-bit.
 */
export const MAX_AMOUNT = 999_999_999;

/** Digits after the decimal point of each currency's major unit. */
export const MINOR_DIGITS: Record<Currency, number> = { XPF: 0, EUR: 2 };

/** EUR cents per 1,000 XPF: the peg. */
const EUR_CENTS_PER_1000_XPF = 838n;

type IntLike = number | bigint;

function big(value: IntLike, name: string): bigint {
  if (typeof value === 'bigint') return value;
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be a safe integer, got ${value}`);
  return BigInt(value);
}

function toSafeNumber(value: bigint): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`Result ${value} is outside the safe integer range`);
  return n;
}

/**
 * numerator / denominator rounded half up, exactly. "Up" is away from zero, so a negative value
 * rounds to the opposite of its absolute value's rounding (a refund mirrors its charge):
 * 5/2 → 3, 7/2 → 4, 4/3 → 1, 5/3 → 2, −5/2 → −3.
 */
export function roundHalfUp(numerator: IntLike, denominator: IntLike): number {
  const n = big(numerator, 'numerator');
  const d = big(denominator, 'denominator');
  if (d === 0n) throw new RangeError('denominator must not be zero');
  const negative = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  // floor((2·|n| + |d|) / (2·|d|)) is |n|/|d| rounded half up.
  const q = (2n * an + ad) / (2n * ad);
  return toSafeNumber(negative ? -q : q);
}

/** XPF → EUR cents: round_half_up(xpf × 838 / 1000). */
export function xpfToEurCents(xpf: IntLike): number {
  return roundHalfUp(big(xpf, 'xpf') * EUR_CENTS_PER_1000_XPF, 1000n);
}

/** EUR cents → XPF: round_half_up(cents × 1000 / 838). */
export function eurCentsToXpf(cents: IntLike): number {
  return roundHalfUp(big(cents, 'cents') * 1000n, EUR_CENTS_PER_1000_XPF);
}

/** An amount of the given currency in EUR cents (identity for EUR). */
export function toEurCents(amount: IntLike, currency: Currency): number {
  return currency === 'EUR' ? toSafeNumber(big(amount, 'amount')) : xpfToEurCents(amount);
}

/** EUR cents in the given currency's minor unit (identity for EUR). */
export function fromEurCents(cents: IntLike, currency: Currency): number {
  return currency === 'EUR' ? toSafeNumber(big(cents, 'cents')) : eurCentsToXpf(cents);
}

/** `basisPoints` hundredths of a percent of `amount`, rounded half up: percentOf(1999, 250) = 50 (49.975). */
export function percentOf(amount: IntLike, basisPoints: IntLike): number {
  return roundHalfUp(big(amount, 'amount') * big(basisPoints, 'basisPoints'), 10_000n);
}

const NBSP = '\u00a0';

function group(digits: string, separator: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, separator);
}

/**
 * A human amount. French (any locale starting with `fr`, the default): `1 000 XPF`, `10,00 €`,
 * `1 234,56 €`. English (anything else): `XPF 1,000`, `€10.00`, `€1,234.56`. The spaces are
 * no-break spaces (U+00A0) so an amount never wraps across two lines; a negative amount starts with `-`.
 */
export function formatAmount(amount: IntLike, currency: Currency, locale = 'fr'): string {
  const value = big(amount, 'amount');
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const digits = MINOR_DIGITS[currency];
  const divisor = 10n ** BigInt(digits);
  const major = (abs / divisor).toString();
  const minor = digits > 0 ? (abs % divisor).toString().padStart(digits, '0') : '';
  const french = locale.toLowerCase().startsWith('fr');
  const sign = negative ? '-' : '';
  if (french) {
    const number = group(major, NBSP) + (minor ? `,${minor}` : '');
    return `${sign}${number}${NBSP}${currency === 'EUR' ? '€' : 'XPF'}`;
  }
  const number = group(major, ',') + (minor ? `.${minor}` : '');
  return currency === 'EUR' ? `${sign}€${number}` : `${sign}XPF${NBSP}${number}`;
}
