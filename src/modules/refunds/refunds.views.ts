// A refund as the API shows it (the refund endpoints, and the refunds listed in a payment's view).
import type { RefundRow } from './refunds.table.js';

export function refundView(refund: RefundRow) {
  return {
    id: refund.id,
    object: 'refund' as const,
    paymentId: refund.payment_id,
    status: refund.status,
    amount: refund.amount,
    currency: refund.currency,
    originalAmount: refund.amount,
    originalCurrency: refund.currency,
    amountCents: refund.amount_eur_cents,
    reason: refund.reason,
    failureReason: refund.failure_reason,
    createdAt: refund.created_at,
  };
}
