// Where the customer goes back to: the reserved names status, paymentId and reference are
// replaced, every other parameter of the merchant's URL is kept, and the refusal code is never added.
export type ReturnStatus = 'success' | 'failed' | 'cancelled';

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
