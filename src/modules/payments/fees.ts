// The `settlement` block of payment events: Motu's fees on a payment (docs/payments.md, Fees).
//
// The one fee computation of every payment event that carries the block.
//
// Rules, all on exact integers with half-up rounding (src/shared/money.ts):
// - each line is computed exactly in EUR cents, its tax (contract taxRate) rounded separately, and
//   `totalAmountEur` = amount + tax;
//   · spirit_commission (PERCENTAGE, full line with its taxes): commissionRate of the captured amount in EUR cents;
//   · spirit_fixed_fee (simple line): fixedFee, once something was captured;
//   · authorization_result (simple line): authorizationFee per authorization attempt;
//   nothing is billed on an amount not captured: before capture, and for a payment cancelled or expired uncaptured,
//   commission and fixed fee are 0 and only the authorization attempts are billed (netAmount = −that fee);
//   · one `refund` line per refund (simple line, 0: the contract charges nothing for a refund, and the fees
//     already taken are not returned, so the other lines do not change when a refund happens);
// - each line is then converted to the original currency and rounded on its own (amount, tax and total each);
// - mobupayCommission is the exact EUR total converted once: the lines' totalAmount may exceed it by one unit;
// - netAmount = capturedAmount − mobupayCommission.
import type { FeeLine, Settlement } from '../../events/payloads.js';
import { fromEurCents, isCurrency, percentOf, toEurCents, type Currency } from '../../shared/money.js';
import type { Contract } from '../merchants/merchants.table.js';

export type FeeContract = Pick<Contract, 'commission_rate' | 'fixed_fee' | 'authorization_fee' | 'tax_rate'>;

export interface SettlementInput {
  /** The payment's original currency. */
  currency: string;
  /** What was captured (original currency): the commission's basis; 0 before capture. */
  capturedAmount: number;
  /** Authorization attempts made for this payment (authorization_result is charged per attempt). */
  attempts: number;
  settled: boolean;
  /** Refunds done so far, oldest first (original currency). */
  refunds?: ReadonlyArray<{ id: string; amount: number }>;
}

/** A line with its tax: amounts exact in EUR cents, then each converted on its own. */
function taxedLine(id: string, label: string, amountEur: number, taxRate: number, currency: Currency, rate: number): FeeLine {
  const taxEur = percentOf(amountEur, taxRate);
  const totalEur = amountEur + taxEur;
  return {
    id,
    label,
    type: 'PERCENTAGE',
    rate,
    amount: fromEurCents(amountEur, currency),
    amountEur,
    taxAmount: fromEurCents(taxEur, currency),
    taxAmountEur: taxEur,
    taxes: [{ id: 'tva', type: 'PERCENTAGE', value: taxRate, amount: fromEurCents(taxEur, currency), amountEur: taxEur }],
    totalAmount: fromEurCents(totalEur, currency),
    totalAmountEur: totalEur,
  };
}

/** A simple line (id, label, totals): its total still includes its own tax, rounded separately. */
function simpleLine(id: string, label: string, amountEur: number, taxRate: number, currency: Currency): FeeLine {
  const totalEur = amountEur + percentOf(amountEur, taxRate);
  return { id, label, totalAmount: fromEurCents(totalEur, currency), totalAmountEur: totalEur };
}

export function settlementBlock(input: SettlementInput, contract: FeeContract): Settlement {
  if (!isCurrency(input.currency)) throw new RangeError(`Unknown currency ${input.currency}`);
  const currency = input.currency;
  const captured = input.capturedAmount > 0;
  const capturedEur = toEurCents(input.capturedAmount, currency);
  // A capture implies its authorization, even when the acquirer's attempts could not be listed.
  const attempts = captured ? Math.max(1, input.attempts) : input.attempts;
  const lines: FeeLine[] = [
    taxedLine('spirit_commission', 'Commission', percentOf(capturedEur, contract.commission_rate), contract.tax_rate, currency, contract.commission_rate),
    simpleLine('spirit_fixed_fee', 'Fixed fee', captured ? contract.fixed_fee : 0, contract.tax_rate, currency),
    simpleLine('authorization_result', 'Authorization', contract.authorization_fee * attempts, contract.tax_rate, currency),
  ];
  for (const refund of input.refunds ?? []) {
    lines.push({ id: 'refund', label: `Refund ${refund.id} of ${refund.amount} ${currency}: fees already taken are not returned`, totalAmount: 0, totalAmountEur: 0 });
  }
  const totalEur = lines.reduce((sum, l) => sum + l.totalAmountEur, 0);
  const commission = fromEurCents(totalEur, currency);
  return {
    capturedAmount: input.capturedAmount,
    mobupayCommission: commission,
    netAmount: input.capturedAmount - commission,
    currency,
    settled: input.settled,
    detailedFees: lines,
  };
}
