// Amounts as people type them ("25", "25.50", "25,50" in French, "1 000" francs) read into integer minor units, and
// minor units written back the way they are typed. The string is read digit by digit into a BigInt: no floating
// point, so "0.29" is 29 cents and never 28.999…. More decimals than the currency has are refused, not rounded.
import { MINOR_DIGITS, type Currency } from './money.js';

export type AmountInputError = 'empty' | 'invalid' | 'too_many_decimals' | 'too_large';

export type AmountInput = { ok: true; amount: number } | { ok: false; error: AmountInputError };

/** Spaces people and formatters put between groups of thousands: space, no-break, narrow no-break, thin. */
const SPACES = /[\u0020\u00a0\u202f\u2009]/;

interface Separators { decimal: readonly string[]; group: readonly string[] }

/**
 * French writes `1 234,56` (and people type `1234.56` too); English writes `1,234.56`. A space groups thousands in
 * both. So in French `.` and `,` are both decimal points; in English `,` only groups thousands.
 */
function separators(lang: string): Separators {
  return lang.toLowerCase().startsWith('fr') ? { decimal: [',', '.'], group: [' '] } : { decimal: ['.'], group: [',', ' '] };
}

const SYMBOLS: Record<Currency, readonly string[]> = { EUR: ['€', 'eur'], XPF: ['xpf', 'f cfp', 'cfp', 'f'] };

/** The text without a currency sign or code written before or after it ("25,50 €", "€25.50", "2 500 XPF"). */
function withoutSymbol(text: string, currency: Currency): string {
  const lower = text.toLowerCase();
  for (const symbol of SYMBOLS[currency]) {
    if (lower.endsWith(symbol)) return text.slice(0, text.length - symbol.length).trim();
    if (lower.startsWith(symbol)) return text.slice(symbol.length).trim();
  }
  return text;
}

/**
 * Reads what a person typed as an amount of `currency` in minor units: `parseAmount("25,50", "EUR", "fr")` is
 * 2550, `parseAmount("25", "EUR", "en")` is 2500, `parseAmount("2 500", "XPF", "fr")` is 2500. Groups of thousands
 * must be groups of three digits ("1,000" in English; "25,50" in English is refused rather than guessed). A sign is
 * refused: every amount typed in the back-office is positive.
 */
export function parseAmount(text: string, currency: Currency, lang: string): AmountInput {
  const trimmed = withoutSymbol(text.trim(), currency).replace(new RegExp(SPACES.source, 'g'), ' ');
  if (trimmed === '') return { ok: false, error: 'empty' };
  if (trimmed.length > 40) return { ok: false, error: 'too_large' };
  const { decimal, group } = separators(lang);
  // The decimal point is the last character that may be one; what is before it is the integer part.
  let integer = trimmed;
  let fraction: string | null = null;
  const at = Math.max(...decimal.map((d) => trimmed.lastIndexOf(d)));
  if (at >= 0) {
    integer = trimmed.slice(0, at);
    fraction = trimmed.slice(at + 1);
  }
  if (fraction !== null && !/^\d*$/.test(fraction)) return { ok: false, error: 'invalid' };
  const digits = readInteger(integer, group);
  if (digits === null) return { ok: false, error: 'invalid' };
  if (digits === '' && !fraction) return { ok: false, error: 'invalid' };
  const places = MINOR_DIGITS[currency];
  const decimals = fraction ?? '';
  if (decimals.length > places) return { ok: false, error: 'too_many_decimals' };
  const minor = BigInt(digits || '0') * 10n ** BigInt(places) + BigInt(decimals.padEnd(places, '0') || '0');
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, error: 'too_large' };
  return { ok: true, amount: Number(minor) };
}

/** The digits of an integer part, plain ("1234") or grouped by threes with one of `group` ("1 234", "1,234"). */
function readInteger(text: string, group: readonly string[]): string | null {
  if (/^\d*$/.test(text)) return text;
  for (const separator of group) {
    const parts = text.split(separator);
    if (parts.length < 2) continue;
    const [head, ...tail] = parts;
    if (/^\d{1,3}$/.test(head!) && tail.every((p) => /^\d{3}$/.test(p))) return parts.join('');
  }
  return null;
}

/**
 * Minor units written as a person types them, without grouping: 2550 EUR is "25,50" in French and "25.50" in
 * English; 2500 XPF is "2500". `parseAmount` reads it back to the same amount.
 */
export function amountToInput(amount: number, currency: Currency, lang: string): string {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`amount must be a non-negative safe integer, got ${amount}`);
  const places = MINOR_DIGITS[currency];
  if (places === 0) return String(amount);
  const text = String(amount).padStart(places + 1, '0');
  const point = lang.toLowerCase().startsWith('fr') ? ',' : '.';
  return `${text.slice(0, -places)}${point}${text.slice(-places)}`;
}
