// The payment receipt as a PDF (pdfkit): merchant, store, the order's lines adding up to the amount paid, card,
// references, the merchant's local time, the label on the card statement, and TEST on a test-mode receipt.
// Text is set in DejaVu Sans, embedded (subset) in every receipt: the PDF's standard fonts know only Latin-1,
// which garbles Tahitian (ʻokina, macrons) and the amounts sharing their line.
import PDFDocument from 'pdfkit';
import { BOLD_FONT as BOLD, REGULAR_FONT as REGULAR } from '../pdf-fonts.js';
import type { CheckoutContext } from '../../modules/checkout/checkout.service.js';
import type { PaymentRow } from '../../modules/payments/payments.table.js';
import { fill, TEXT, type Lang } from './checkout.messages.js';
import type { ReceiptFacts } from '../../modules/checkout/receipt-facts.js';
import { money } from '../format.js';
import { displayName } from '../../modules/merchants/branding.js';


interface OrderLine { product?: string; description?: string; unitPrice: number; quantity: number; discount?: number }
interface Order { reference?: string; discount?: number; items?: OrderLine[] }

const LEFT = 56;
const WIDTH = 595.28 - 2 * LEFT;
const AMOUNT_WIDTH = 150;
/**
 * Items printed one by one (with their discounts); the others share one line. Bounds what one receipt draws (an order
 * takes up to 500 items of 200 characters), so its PDF takes a fraction of a second.
 */
export const RECEIPT_ITEM_ROWS = 50;

/** The payment's fields a receipt shows (and nothing else: its digest decides whether a kept PDF still holds). */
export const RECEIPT_PAYMENT_FIELDS = ['reference', 'amount', 'currency', 'order_json', 'is_incl_tax_amount', 'tax_amount', 'captured_at',
  'authorized_at', 'updated_at', 'card_brand', 'card_last4'] as const satisfies ReadonlyArray<keyof PaymentRow>;

/** What a receipt is drawn from. */
export interface ReceiptDoc {
  session: Pick<CheckoutContext['session'], 'mode'>;
  payment: Pick<PaymentRow, (typeof RECEIPT_PAYMENT_FIELDS)[number]>;
  merchant: Pick<CheckoutContext['merchant'], 'name' | 'display_name'>;
  store: { name: string } | null;
}

export function receiptPdf(ctx: ReceiptDoc, lang: Lang, facts: ReceiptFacts): Promise<Buffer> {
  const t = TEXT[lang];
  const { payment, merchant, store, session } = ctx;
  const name = displayName(merchant);
  const doc = new PDFDocument({ size: 'A4', margin: LEFT, font: REGULAR, info: { Title: `${t.receiptTitle} ${payment.reference}`, Author: name } });
  doc.registerFont('regular', REGULAR);
  doc.registerFont('bold', BOLD);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  const amount = (value: number) => money(value, payment.currency, lang);
  /** A label on the left and its amount right-aligned on the same baseline. */
  const row = (label: string, value: string, font: 'regular' | 'bold' = 'regular') => {
    const y = doc.y;
    doc.font(font).text(label, LEFT, y, { width: WIDTH - AMOUNT_WIDTH - 12 });
    const after = doc.y;
    doc.text(value, LEFT + WIDTH - AMOUNT_WIDTH, y, { width: AMOUNT_WIDTH, align: 'right' });
    doc.x = LEFT;
    doc.y = Math.max(after, doc.y) + 4;
  };

  if (session.mode === 'test') {
    doc.font('bold').fontSize(12).fillColor('#92400e').text(`TEST · ${t.testMode}`);
    doc.moveDown(0.5);
  }
  doc.font('bold').fontSize(22).fillColor('#000000').text(name);
  if (store) doc.font('regular').fontSize(12).fillColor('#4b5563').text(store.name);
  doc.moveDown(1.5).font('bold').fillColor('#000000').fontSize(16).text(t.receiptTitle);
  doc.moveDown(0.5).fontSize(28).text(amount(payment.amount));
  doc.moveDown(1).font('regular').fontSize(11);

  // The lines add up to the amount: items less their discounts, the order's discount, taxes added on top.
  const order = JSON.parse(payment.order_json) as Order;
  const items = order.items ?? [];
  for (const item of items.slice(0, RECEIPT_ITEM_ROWS)) {
    row(`${item.product ?? item.description ?? ''} × ${item.quantity}`, amount(item.unitPrice * item.quantity));
    if (item.discount) row(`    ${t.discount}`, amount(-item.discount));
  }
  // An order may hold 500 items: past the first ones, one line for the rest (their amounts less their discounts).
  const rest = items.slice(RECEIPT_ITEM_ROWS);
  if (rest.length > 0) {
    row(fill(t.moreItems, { count: String(rest.length), merchant: name }), amount(rest.reduce((sum, i) => sum + i.unitPrice * i.quantity - (i.discount ?? 0), 0)));
  }
  if (order.discount) row(t.orderDiscount, amount(-order.discount));
  if (payment.is_incl_tax_amount === 0) row(t.taxes, amount(payment.tax_amount));
  if ((order.items ?? []).length > 0 || order.discount || payment.is_incl_tax_amount === 0) row(t.total, amount(payment.amount), 'bold');
  doc.moveDown(1);

  const when = payment.captured_at ?? payment.authorized_at ?? payment.updated_at;
  const local = new Date(when).toLocaleString(lang === 'fr' ? 'fr-FR' : 'en-GB', { timeZone: facts.timezone, dateStyle: 'long', timeStyle: 'short' });
  const rows: Array<[string, string]> = [];
  if (order.reference) rows.push([t.reference, order.reference]);
  rows.push(
    [t.date, `${local} (${facts.timezone})`],
    [t.card, payment.card_brand ? `${payment.card_brand} •••• ${payment.card_last4}` : '-'],
    [t.paymentRef, payment.reference],
  );
  for (const [label, value] of rows) {
    doc.font('regular').fillColor('#4b5563').text(label, { continued: true }).fillColor('#000000').text(`   ${value}`);
  }
  if (facts.statementLabel) doc.moveDown(0.5).fillColor('#000000').text(fill(t.statementAs, { label: facts.statementLabel }));
  doc.moveDown(2).fontSize(9).fillColor('#4b5563').text(t.poweredBy);
  doc.end();
  return done;
}
