// A payment session with `order.invoicing.enabled` gets one invoice for its sale, issued and paid by card when the
// payment is captured, on the capture's transaction: the payment's id is unique among invoices, so retries, recoveries
// and concurrent captures never make two. The invoice's lines are the order's items when they add up to what was
// captured, else one line for the order (a partial capture, or an order given by its amount alone).
import type { Trx } from '../../db/database.js';
import type { PaymentRow } from '../payments/payments.table.js';
import { timeOn } from '../test-clocks/clock-time.js';
import type { InvoiceLine } from './invoices.table.js';
import { issueInvoice, payByCard } from './issue.js';

interface OrderItem { product?: string; description?: string; unitPrice?: number; quantity?: number; discount?: number }
interface Order { reference?: string; items?: OrderItem[]; invoicing?: { enabled?: boolean; daysUntilDue?: number } }

function linesOf(order: Order, captured: number): InvoiceLine[] {
  const items = (order.items ?? []).filter((i) => Number.isSafeInteger(i.unitPrice) && Number.isSafeInteger(i.quantity) && !i.discount);
  const sum = items.reduce((s, i) => s + i.unitPrice! * i.quantity!, 0);
  if (items.length > 0 && items.length === (order.items ?? []).length && sum === captured) {
    return items.map((i) => ({ description: (i.product ?? i.description ?? '-').slice(0, 500), quantity: i.quantity!, unitPrice: i.unitPrice!, taxRate: 0 }));
  }
  return [{ description: order.reference ? `Commande ${order.reference}` : 'Commande', quantity: 1, unitPrice: captured, taxRate: 0 }];
}

/** The order of a sale whose capture issues an invoice (order.invoicing.enabled, a customer, an amount), else null. */
function invoicedOrder(payment: PaymentRow): (Order & Required<Pick<Order, 'invoicing'>>) | null {
  if (!payment.order_json.includes('"invoicing"') || !payment.customer_id || payment.captured_amount <= 0) return null;
  const order = JSON.parse(payment.order_json) as Order;
  return order.invoicing?.enabled ? order as Order & Required<Pick<Order, 'invoicing'>> : null;
}

/** Whether the capture of `payment` issues an invoice for its sale. */
export function invoicesSale(payment: PaymentRow): boolean {
  return invoicedOrder(payment) !== null;
}

export async function invoiceSale(trx: Trx, payment: PaymentRow, at: Date): Promise<void> {
  const order = invoicedOrder(payment);
  if (!order) return;
  const already = await trx.selectFrom('invoices').select('id').where('payment_id', '=', payment.id).executeTakeFirst();
  if (already) return;
  const now = await timeOn(trx, payment.test_clock_id, at);
  const invoice = await issueInvoice(trx, {
    merchantId: payment.merchant_id, mode: payment.mode, customerId: payment.customer_id!, currency: payment.currency,
    lines: linesOf(order, payment.captured_amount), daysUntilDue: order.invoicing.daysUntilDue ?? 0, paymentId: payment.id,
    testClockId: payment.test_clock_id, now, at,
  });
  if (invoice) await payByCard(trx, invoice.id, payment.captured_amount, payment.id, now, at);
}
