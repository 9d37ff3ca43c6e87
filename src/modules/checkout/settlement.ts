// The `settlement` block of payment events (interface 6.1 rule 8, DESIGN.md section 7), as known when the
// hosted checkout authorizes or captures. Each line is exact in EUR cents (its tax rounded separately), then
// converted to the original currency line by line; the commission is the exact EUR total converted once.
// The payment lifecycle work (capture, refunds, settlement) owns fees from there on.
import type { Contract } from '../merchants/merchants.table.js';
import type { FeeLine, Settlement } from '../../events/payloads.js';
import { fromEurCents, isCurrency, percentOf, toEurCents, type Currency } from '../../shared/money.js';

export interface SettlementInput {
  currency: string;
  /** Amount the commission is computed on (captured, or authorized as a projection), original currency. */
  basisAmount: number;
  capturedAmount: number;
  /** Authorization attempts made for this payment (authorization_result is charged per attempt). */
  attempts: number;
  settled: boolean;
}

function line(id: string, label: string, eurAmount: number, taxRate: number, currency: Currency, extra: Partial<FeeLine> = {}): FeeLine {
  const taxEur = percentOf(eurAmount, taxRate);
  const totalEur = eurAmount + taxEur;
  return {
    id, label, ...extra,
    amount: fromEurCents(eurAmount, currency), amountEur: eurAmount,
    taxAmount: fromEurCents(taxEur, currency), taxAmountEur: taxEur,
    taxes: [{ id: 'tva', type: 'PERCENTAGE', value: taxRate, amount: fromEurCents(taxEur, currency), amountEur: taxEur }],
    totalAmount: fromEurCents(totalEur, currency), totalAmountEur: totalEur,
  };
}

export function settlementBlock(input: SettlementInput, contract: Pick<Contract, 'commission_rate' | 'fixed_fee' | 'authorization_fee' | 'tax_rate'>): Settlement {
  const currency: Currency = isCurrency(input.currency) ? input.currency : 'EUR';
  const basisEur = toEurCents(input.basisAmount, currency);
  const lines: FeeLine[] = [
    line('spirit_commission', 'Commission', percentOf(basisEur, contract.commission_rate), contract.tax_rate, currency,
      { type: 'PERCENTAGE', rate: contract.commission_rate }),
    line('spirit_fixed_fee', 'Fixed fee', contract.fixed_fee, contract.tax_rate, currency),
  ];
  if (contract.authorization_fee > 0) {
    lines.push(line('authorization_result', 'Authorization', contract.authorization_fee * Math.max(1, input.attempts), contract.tax_rate, currency));
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
