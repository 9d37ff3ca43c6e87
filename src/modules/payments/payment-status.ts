// The one answer to "has the customer paid this payment?": authorized or captured, whatever happened after
// (settled, which is a flag and not a status, or refunded in part or in whole). Pages, the component, receipts and the checkout flow all ask here.
import type { PaymentStatus } from './payments.table.js';

const PAID: ReadonlySet<PaymentStatus> = new Set<PaymentStatus>(['transit', 'captured', 'partially_refunded', 'refunded']);

export function isPaid(status: PaymentStatus): boolean {
  return PAID.has(status);
}
