// Amounts in the bank files: minor units written as the decimal text banks read ("1234.05" for 123405 cents), and read
// back, with integer arithmetic only (never a float between the ledger and the bank).
import { MINOR_DIGITS, type Currency } from '../../../shared/money.js';

export function decimalText(minor: number, currency: Currency): string {
  const digits = MINOR_DIGITS[currency];
  if (!Number.isSafeInteger(minor) || minor < 0) throw new RangeError(`A transfer amount is a non-negative integer, got ${minor}`);
  if (digits === 0) return String(minor);
  const text = String(minor).padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** "1234.5" or "1234.05" in `currency` → minor units; null when it is not an amount in that currency's precision. */
export function minorUnits(text: string, currency: Currency): number | null {
  const match = /^(\d{1,15})(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return null;
  const digits = MINOR_DIGITS[currency];
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > digits) return null;
  return Number(match[1]) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
}
