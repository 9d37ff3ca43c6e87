// Where the customer goes back to: the reserved names status, paymentId and reference are
// replaced, every other parameter of the merchant's URL is kept, and the refusal code is never added.
import type { PaymentRow, PaymentSessionRow } from '../payments/payments.table.js';

export type ReturnStatus = 'success' | 'failed' | 'cancelled';

/**
 * The merchant's page a customer goes back to with `status`: after a refusal its failure URL when it gave one, else
 * its return URL; null when it gave none (or one that cannot be followed).
 */
export function returnUrlFor(session: Pick<PaymentSessionRow, 'redirect_url' | 'failure_redirect_url'>, payment: Pick<PaymentRow, 'id' | 'order_reference'>, status: ReturnStatus): string | null {
  const base = status === 'failed' ? session.failure_redirect_url ?? session.redirect_url : session.redirect_url;
  return base ? returnUrl(base, status, payment.id, payment.order_reference) : null;
}

export function returnUrl(base: string, status: ReturnStatus, paymentId: string, reference: string | null): string | null {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return null;
  }
  const scheme = url.protocol.replace(/:$/, '').toLowerCase();
  if (['javascript', 'data', 'vbscript', 'file', 'blob'].includes(scheme)) return null;
  url.searchParams.delete('status');
  url.searchParams.delete('paymentId');
  url.searchParams.delete('reference');
  url.searchParams.append('status', status);
  url.searchParams.append('paymentId', paymentId);
  if (reference !== null) url.searchParams.append('reference', reference);
  return url.toString();
}
