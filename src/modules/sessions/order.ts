// The order's arithmetic: given items must add up to `amount` (Σ(unitPrice × quantity − item discount) − discount,
// else ORDER_AMOUNT_MISMATCH), and taxes added on top (isInclTaxAmount false).
import { AppError, type FieldError } from '../../shared/errors.js';
import { percentOf } from '../../shared/money.js';
import { MAX_AMOUNT, type OrderInput } from './sessions.schemas.js';

/** Item discounts larger than their line, and a total out of range: reported with the other invalid fields. */
export function orderFieldProblems(order: OrderInput): FieldError[] {
  const problems: FieldError[] = [];
  (order.items ?? []).forEach((item, i) => {
    if ((item.discount ?? 0) > item.unitPrice * item.quantity) {
      problems.push({ field: `order.items[${i}].discount`, message: 'must not exceed unitPrice × quantity' });
    }
    if (item.unitPrice * item.quantity > MAX_AMOUNT) {
      problems.push({ field: `order.items[${i}].unitPrice`, message: `unitPrice × quantity must not exceed ${MAX_AMOUNT}` });
    }
  });
  return problems;
}

/**
 * When items are given, Σ(unitPrice × quantity − item discount) − discount must equal amount exactly.
 * Amounts are bounded (MAX_AMOUNT × 500 items < 2^53), so plain integer sums are exact.
 */
export function checkOrderAmount(order: OrderInput): void {
  if (!order.items || order.items.length === 0) return;
  const lines = order.items.reduce((sum, item) => sum + item.unitPrice * item.quantity - (item.discount ?? 0), 0);
  const expected = lines - (order.discount ?? 0);
  if (expected !== order.amount) {
    throw new AppError(
      'ORDER_AMOUNT_MISMATCH',
      `The items add up to ${expected} (Σ unitPrice × quantity − item discounts − discount) but order.amount is ${order.amount}`,
      { field: 'order.amount', amount: order.amount, itemsTotal: expected },
      [{ field: 'order.amount', message: `must equal the items total, ${expected}` }],
    );
  }
}

export interface TaxOutcome {
  /** Tax added on top of order.amount (0 when the amount already includes taxes). */
  tax: number;
  problems: FieldError[];
}

/**
 * isInclTaxAmount true: the amount is what the customer pays. False: the tax is added on top, computed from
 * order.taxDetail.rate (basis points, rounded half up); without a rate, order.taxAmount is taken as the tax;
 * with neither, the request is refused: guessing a tax rate would charge the wrong amount.
 */
export function taxOnTop(order: OrderInput, isInclTaxAmount: boolean): TaxOutcome {
  if (isInclTaxAmount) return { tax: 0, problems: [] };
  const rate = order.taxDetail?.rate;
  if (rate !== undefined) {
    const tax = percentOf(order.amount, rate);
    if (order.taxAmount !== undefined && order.taxAmount !== tax) {
      return {
        tax,
        problems: [{ field: 'order.taxAmount', message: `must be ${tax} (order.amount × taxDetail.rate / 10000), or be left out` }],
      };
    }
    return { tax, problems: [] };
  }
  if (order.taxAmount !== undefined) return { tax: order.taxAmount, problems: [] };
  return {
    tax: 0,
    problems: [{ field: 'order.taxDetail.rate', message: 'is required when isInclTaxAmount is false (or give order.taxAmount)' }],
  };
}
