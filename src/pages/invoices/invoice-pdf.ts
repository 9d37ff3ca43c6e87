// Invoices and credit notes as PDFs (pdfkit, DejaVu Sans embedded): the merchant's legal identity (its country by
// name), the number and dates, the customer, the lines, the totals per tax rate adding up to the total, what was paid
// and credited, and what is due; the mentions a French business invoice carries (payment terms, early-payment
// discount, late-payment penalties, the 40 € recovery indemnity) and the merchant's footer; a credit note's amount
// split by VAT rate as its invoice's was. DRAFT across a draft and TEST on a test-mode document. French or English,
// each with its own punctuation ("Date :" in French, "Date:" in English).
import { catalog, fillText } from '../../i18n/index.js';
import PDFDocument from 'pdfkit';
import type { Merchant } from '../../modules/merchants/merchants.table.js';
import type { CreditNoteRow, InvoiceLine, InvoiceRow, TaxLine } from '../../modules/invoices/invoices.table.js';
import { remaining } from '../../modules/invoices/issue.js';
import { money, percent } from '../format.js';
import { BOLD_FONT, REGULAR_FONT } from '../pdf-fonts.js';

export type DocLang = 'fr' | 'en';

const TEXT = { fr: catalog.fr.invoicePdf, en: catalog.en.invoicePdf };

const LEFT = 50;
const WIDTH = 595.28 - 2 * LEFT;

/** The merchant's legal identity and the customer, as the documents print them. */
export interface Party {
  merchant: Pick<Merchant, 'name' | 'legal_name' | 'address' | 'registration_number' | 'tax_id' | 'invoice_footer' | 'late_payment_terms'
    | 'early_payment_discount'>;
  customerName: string | null;
  customerEmail: string | null;
}

/** What an invoice's PDF is drawn from (and nothing else: its digest decides whether a kept PDF still holds). */
export type InvoiceDoc = Pick<InvoiceRow, 'mode' | 'number' | 'status' | 'currency' | 'lines' | 'taxes' | 'subtotal' | 'total'
  | 'amount_paid' | 'amount_credited' | 'memo' | 'finalized_at' | 'due_date'>;
export type CreditNoteDoc = Pick<CreditNoteRow, 'mode' | 'number' | 'amount' | 'reason' | 'created_at'>;
export type CreditedInvoiceDoc = Pick<InvoiceRow, 'currency' | 'number' | 'finalized_at' | 'taxes' | 'total'>;

export const INVOICE_FIELDS = ['mode', 'number', 'status', 'currency', 'lines', 'taxes', 'subtotal', 'total', 'amount_paid', 'amount_credited',
  'memo', 'finalized_at', 'due_date'] as const satisfies ReadonlyArray<keyof InvoiceDoc>;
export const CREDIT_NOTE_FIELDS = ['mode', 'number', 'amount', 'reason', 'created_at'] as const satisfies ReadonlyArray<keyof CreditNoteDoc>;
export const CREDITED_INVOICE_FIELDS = ['currency', 'number', 'finalized_at', 'taxes', 'total'] as const satisfies ReadonlyArray<keyof CreditedInvoiceDoc>;
export const MERCHANT_FIELDS = ['name', 'legal_name', 'address', 'registration_number', 'tax_id', 'invoice_footer', 'late_payment_terms',
  'early_payment_discount'] as const satisfies ReadonlyArray<keyof Party['merchant']>;

/** "Label : value" in French, "Label: value" in English. */
function labelled(t: (typeof TEXT)['fr'], label: string, value: string): string {
  return `${label}${t.colon}${value}`;
}

/** The country's name in the document's language (PF → Polynésie française, French Polynesia); the code if unknown. */
export function countryName(code: string, lang: DocLang): string {
  try {
    return new Intl.DisplayNames([lang], { type: 'region', fallback: 'code' }).of(code) ?? code;
  } catch {
    return code;
  }
}

function start(title: string, author: string) {
  const doc = new PDFDocument({ size: 'A4', margin: LEFT, font: REGULAR_FONT, info: { Title: title, Author: author } });
  doc.registerFont('regular', REGULAR_FONT);
  doc.registerFont('bold', BOLD_FONT);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  return { doc, done };
}

function header(doc: PDFKit.PDFDocument, lang: DocLang, party: Party, test: boolean) {
  const t = TEXT[lang];
  const m = party.merchant;
  if (test) doc.font('bold').fontSize(11).fillColor('#92400e').text(t.test).moveDown(0.5);
  doc.font('bold').fontSize(16).fillColor('#000000').text(m.legal_name ?? m.name);
  doc.font('regular').fontSize(10).fillColor('#374151');
  const address = m.address ? (JSON.parse(m.address) as { line1: string; line2?: string; postalCode: string; city: string; country: string }) : null;
  if (address) {
    doc.text(address.line1);
    if (address.line2) doc.text(address.line2);
    doc.text(`${address.postalCode} ${address.city}`);
    doc.text(countryName(address.country, lang));
  }
  if (m.registration_number) doc.text(labelled(t, t.registration, m.registration_number));
  if (m.tax_id) doc.text(labelled(t, t.taxId, m.tax_id));
  doc.moveDown(1);
  if (party.customerName || party.customerEmail) {
    doc.font('bold').fillColor('#000000').text(t.customer);
    doc.font('regular');
    if (party.customerName) doc.text(party.customerName);
    if (party.customerEmail) doc.text(party.customerEmail);
    doc.moveDown(1);
  }
}

/** A label and its value right-aligned on one line. */
function row(doc: PDFKit.PDFDocument, label: string, value: string, bold = false) {
  const y = doc.y;
  doc.font(bold ? 'bold' : 'regular').fillColor('#000000').text(label, LEFT + WIDTH / 2, y, { width: WIDTH / 4 });
  doc.text(value, LEFT + (3 * WIDTH) / 4, y, { width: WIDTH / 4, align: 'right' });
  doc.x = LEFT;
  doc.y = Math.max(doc.y, y + 14);
}

/** Whole days from one date to another, by their calendar days in UTC. */
function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(to.slice(0, 10)) - Date.parse(from.slice(0, 10))) / 86_400_000);
}

/** The small print at the foot of a document: the invoice's mentions when given, then the merchant's footer. */
function footer(doc: PDFKit.PDFDocument, mentions: string[], text: string | null) {
  const lines = [...mentions, ...(text ? [text] : [])];
  if (lines.length === 0) return;
  doc.moveDown(2).font('regular').fontSize(8).fillColor('#374151');
  for (const l of lines) doc.text(l, LEFT, doc.y, { width: WIDTH }).moveDown(0.3);
  doc.fontSize(10).fillColor('#000000');
}

/** What a French business invoice must say besides its figures: terms, discount, penalties and the indemnity. */
function invoiceMentions(invoice: InvoiceDoc, party: Party, lang: DocLang): string[] {
  const t = TEXT[lang];
  const m = party.merchant;
  const mentions: string[] = [];
  if (invoice.due_date) {
    const days = invoice.finalized_at ? daysBetween(invoice.finalized_at, invoice.due_date) : null;
    const terms = days === 0 ? t.termsOnReceipt : fillText(days === null ? t.termsBy : t.termsDays, { days: String(days), date: day(invoice.due_date, lang) });
    mentions.push(labelled(t, t.paymentTerms, terms));
  }
  mentions.push(m.early_payment_discount ? labelled(t, t.earlyPayment, m.early_payment_discount) : t.noEarlyDiscount);
  mentions.push(labelled(t, t.latePenalties, m.late_payment_terms ?? t.statutoryPenalties));
  mentions.push(t.recoveryIndemnity);
  return mentions;
}

/**
 * A credit note's amount split by VAT rate as its invoice's total was, then the VAT within each rate's share, half
 * up. The shares are differences of rounded running totals, so none is negative and they add up to the amount.
 */
export function creditTaxes(amount: number, invoice: Pick<CreditedInvoiceDoc, 'taxes' | 'total'>): TaxLine[] {
  const taxes = JSON.parse(invoice.taxes) as TaxLine[];
  const total = BigInt(invoice.total);
  if (taxes.length === 0 || total <= 0n) return [{ rate: 0, base: amount, amount: 0 }];
  const halfUp = (n: bigint, d: bigint) => (2n * n + d) / (2n * d);
  let gross = 0n;
  let before = 0n;
  return taxes.map((tax) => {
    gross += BigInt(tax.base + tax.amount);
    const upTo = halfUp(BigInt(amount) * gross, total);
    const share = upTo - before;
    before = upTo;
    const vat = halfUp(share * BigInt(tax.rate), 10_000n + BigInt(tax.rate));
    return { rate: tax.rate, base: Number(share - vat), amount: Number(vat) };
  });
}

function day(iso: string | null, lang: DocLang): string {
  return iso ? new Date(iso).toLocaleDateString(lang === 'fr' ? 'fr-FR' : 'en-GB', { timeZone: 'UTC', dateStyle: 'long' }) : '-';
}

export function invoicePdf(invoice: InvoiceDoc, party: Party, lang: DocLang): Promise<Buffer> {
  const t = TEXT[lang];
  const amount = (v: number) => money(v, invoice.currency, lang);
  const { doc, done } = start(`${t.invoice} ${invoice.number ?? t.draft}`, party.merchant.legal_name ?? party.merchant.name);
  header(doc, lang, party, invoice.mode === 'test');
  doc.font('bold').fontSize(18).fillColor('#000000').text(`${t.invoice} ${invoice.number ?? `(${t.draft})`}`);
  doc.font('regular').fontSize(10).text(`${labelled(t, t.issued, day(invoice.finalized_at, lang))}    ${labelled(t, t.due, day(invoice.due_date, lang))}`).moveDown(1);

  // The lines: description, quantity, unit price and amount before tax.
  const columns = [LEFT, LEFT + WIDTH * 0.5, LEFT + WIDTH * 0.6, LEFT + WIDTH * 0.8];
  const widths = [WIDTH * 0.5 - 8, WIDTH * 0.1, WIDTH * 0.2, WIDTH * 0.2];
  const line = (cells: string[], bold = false) => {
    const y = doc.y;
    let bottom = y;
    cells.forEach((cell, i) => {
      doc.font(bold ? 'bold' : 'regular').text(cell, columns[i]!, y, { width: widths[i]!, align: i === 0 ? 'left' : 'right' });
      bottom = Math.max(bottom, doc.y);
    });
    doc.x = LEFT;
    doc.y = bottom + 4;
  };
  line([t.description, t.quantity, t.unitPrice, t.amount], true);
  for (const l of JSON.parse(invoice.lines) as InvoiceLine[]) line([l.description, String(l.quantity), amount(l.unitPrice), amount(l.quantity * l.unitPrice)]);
  doc.moveDown(1);

  row(doc, t.subtotal, amount(invoice.subtotal));
  for (const tax of JSON.parse(invoice.taxes) as TaxLine[]) row(doc, fillText(t.tax, { rate: percent(tax.rate, lang) }), amount(tax.amount));
  row(doc, t.total, amount(invoice.total), true);
  if (invoice.amount_paid > 0) row(doc, t.paid, amount(-invoice.amount_paid));
  if (invoice.amount_credited > 0) row(doc, t.credited, amount(-invoice.amount_credited));
  if (invoice.status !== 'draft') row(doc, t.remaining, amount(remaining(invoice)), true);
  if (invoice.memo) doc.moveDown(1).font('regular').text(invoice.memo, LEFT, doc.y, { width: WIDTH });
  footer(doc, invoiceMentions(invoice, party, lang), party.merchant.invoice_footer);
  if (invoice.status === 'draft') {
    doc.save().rotate(-30, { origin: [300, 420] }).font('bold').fontSize(72).fillColor('#d1d5db', 0.5).text(t.draft, 100, 380).restore();
  }
  doc.end();
  return done;
}

export function creditNotePdf(note: CreditNoteDoc, invoice: CreditedInvoiceDoc, party: Party, lang: DocLang): Promise<Buffer> {
  const t = TEXT[lang];
  const amount = (v: number) => money(v, invoice.currency, lang);
  const { doc, done } = start(`${t.creditNote} ${note.number}`, party.merchant.legal_name ?? party.merchant.name);
  header(doc, lang, party, note.mode === 'test');
  doc.font('bold').fontSize(18).fillColor('#000000').text(`${t.creditNote} ${note.number}`);
  doc.font('regular').fontSize(10).text(labelled(t, t.issued, day(note.created_at, lang)));
  doc.text(`${t.forInvoice} ${invoice.number} (${day(invoice.finalized_at, lang)})`);
  doc.text(labelled(t, t.reason, t.reasons[note.reason] ?? note.reason)).moveDown(1);
  const taxes = creditTaxes(note.amount, invoice);
  row(doc, t.subtotal, amount(taxes.reduce((sum, tax) => sum + tax.base, 0)));
  for (const tax of taxes) row(doc, fillText(t.taxOn, { rate: percent(tax.rate, lang), base: amount(tax.base) }), amount(tax.amount));
  row(doc, t.total, amount(note.amount), true);
  footer(doc, [], party.merchant.invoice_footer);
  doc.end();
  return done;
}
