// The payment receipt as a PDF (pdfkit): merchant, store, amount, card, references, date.
import PDFDocument from 'pdfkit';
import type { CheckoutContext } from '../../modules/checkout/checkout.service.js';
import { TEXT, type Lang } from './checkout.messages.js';
import { money } from './checkout.views.js';
import { displayName } from '../../modules/merchants/branding.js';

export function receiptPdf(ctx: CheckoutContext, lang: Lang): Promise<Buffer> {
  const t = TEXT[lang];
  const { payment, merchant, store } = ctx;
  const doc = new PDFDocument({ size: 'A4', margin: 56, info: { Title: `${t.receiptTitle} ${payment.reference}`, Author: displayName(merchant) } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));

  doc.fontSize(22).text(displayName(merchant));
  if (store) doc.fontSize(12).fillColor('#555555').text(store.name);
  doc.moveDown(1.5).fillColor('#000000').fontSize(16).text(t.receiptTitle);
  doc.moveDown(0.5).fontSize(28).text(money(payment.amount, payment.currency, lang));
  doc.moveDown(1).fontSize(11);
  const order = JSON.parse(payment.order_json) as { reference?: string; items?: Array<{ product?: string; description?: string; unitPrice: number; quantity: number }> };
  for (const item of order.items ?? []) {
    doc.text(`${item.product ?? item.description ?? ''} × ${item.quantity}    ${money(item.unitPrice * item.quantity, payment.currency, lang)}`);
  }
  if (payment.is_incl_tax_amount === 0) doc.text(`${t.taxes}    ${money(payment.tax_amount, payment.currency, lang)}`);
  doc.moveDown(1);
  const when = payment.captured_at ?? payment.authorized_at ?? payment.updated_at;
  const rows: Array<[string, string]> = [
    [t.date, new Date(when).toLocaleString(lang === 'fr' ? 'fr-FR' : 'en-GB', { timeZone: 'UTC', dateStyle: 'long', timeStyle: 'short' }) + ' UTC'],
    [t.card, payment.card_brand ? `${payment.card_brand} •••• ${payment.card_last4}` : '-'],
    [t.paymentRef, payment.reference],
  ];
  if (order.reference) rows.push([t.reference, order.reference]);
  for (const [label, value] of rows) doc.fillColor('#555555').text(label, { continued: true }).fillColor('#000000').text(`   ${value}`);
  doc.moveDown(2).fontSize(9).fillColor('#777777').text(t.poweredBy);
  doc.end();
  return done;
}
