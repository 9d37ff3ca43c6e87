// Refund rows written on the caller's transaction: plain functions that take it, shared by the refunds service and the
// invoices' capture of an overpayment (which may not import the service: it runs inside the payment transitions).
import type { Trx } from '../../db/database.js';
import { isCurrency, toEurCents } from '../../shared/money.js';
import type { PaymentRow } from '../payments/payments.table.js';
import type { RefundRow } from './refunds.table.js';

/**
 * Step 1's write, on the caller's transaction, once the caller checked `amount` against what is left to refund: a
 * `pending` refund row and its amount reserved on the payment. Completed by `completeRefund`, or by a job.
 */
export async function reserveOnPayment(trx: Trx, p: PaymentRow, input: { id: string; amount: number; reason: string | null; at: Date }): Promise<RefundRow> {
  const now = input.at.toISOString();
  const row: RefundRow = {
    id: input.id, payment_id: p.id, merchant_id: p.merchant_id, mode: p.mode, status: 'pending', amount: input.amount,
    currency: p.currency, amount_eur_cents: isCurrency(p.currency) ? toEurCents(input.amount, p.currency) : input.amount,
    reason: input.reason, failure_reason: null, created_at: now, updated_at: now,
  };
  await trx.insertInto('refunds').values(row).execute();
  await trx.updateTable('payments').set((eb) => ({ refund_reserved: eb('refund_reserved', '+', input.amount) })).where('id', '=', p.id).execute();
  return row;
}

