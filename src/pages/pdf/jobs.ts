// What a PDF is drawn from: plain data (it crosses to a worker thread by structured clone), picked from the rows so
// that it holds only what the document shows. Its JSON is hashed: a kept PDF is served while that digest is the same.
import type { Merchant } from '../../modules/merchants/merchants.table.js';
import type { CreditNoteRow, InvoiceRow } from '../../modules/invoices/invoices.table.js';
import type { CheckoutContext } from '../../modules/checkout/checkout.service.js';
import type { ReceiptFacts } from '../../modules/checkout/receipt-facts.js';
import type { Lang } from '../../shared/lang.js';
import {
  CREDIT_NOTE_FIELDS, CREDITED_INVOICE_FIELDS, INVOICE_FIELDS, MERCHANT_FIELDS, creditNotePdf, invoicePdf,
  type CreditedInvoiceDoc, type CreditNoteDoc, type InvoiceDoc, type Party,
} from '../invoices/invoice-pdf.js';
import { RECEIPT_PAYMENT_FIELDS, receiptPdf, type ReceiptDoc } from '../checkout/receipt.js';

export type PdfJob =
  | { kind: 'invoice'; lang: Lang; invoice: InvoiceDoc; party: Party }
  | { kind: 'credit_note'; lang: Lang; note: CreditNoteDoc; invoice: CreditedInvoiceDoc; party: Party }
  | { kind: 'receipt'; lang: Lang; receipt: ReceiptDoc; facts: ReceiptFacts };

export type PdfKind = PdfJob['kind'];

interface PartyRows { merchant: Merchant; customerName: string | null; customerEmail: string | null }

function pick<T extends object, K extends keyof T>(row: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) out[key] = row[key];
  return out;
}

function party(rows: PartyRows): Party {
  return { merchant: pick(rows.merchant, MERCHANT_FIELDS), customerName: rows.customerName, customerEmail: rows.customerEmail };
}

export function invoiceJob(invoice: InvoiceRow, rows: PartyRows, lang: Lang): PdfJob {
  return { kind: 'invoice', lang, invoice: pick(invoice, INVOICE_FIELDS), party: party(rows) };
}

export function creditNoteJob(note: CreditNoteRow, invoice: InvoiceRow, rows: PartyRows, lang: Lang): PdfJob {
  return { kind: 'credit_note', lang, note: pick(note, CREDIT_NOTE_FIELDS), invoice: pick(invoice, CREDITED_INVOICE_FIELDS), party: party(rows) };
}

export function receiptJob(ctx: Pick<CheckoutContext, 'session' | 'payment' | 'merchant' | 'store'>, facts: ReceiptFacts, lang: Lang): PdfJob {
  return {
    kind: 'receipt', lang, facts: { timezone: facts.timezone, statementLabel: facts.statementLabel },
    receipt: {
      session: { mode: ctx.session.mode }, payment: pick(ctx.payment, RECEIPT_PAYMENT_FIELDS),
      merchant: { name: ctx.merchant.name, display_name: ctx.merchant.display_name }, store: ctx.store ? { name: ctx.store.name } : null,
    },
  };
}

/** Draws the document (CPU-bound: seconds for the largest invoice). Run on a worker thread (pool.ts), not the event loop. */
export function drawDocument(job: PdfJob): Promise<Buffer> {
  switch (job.kind) {
    case 'invoice': return invoicePdf(job.invoice, job.party, job.lang);
    case 'credit_note': return creditNotePdf(job.note, job.invoice, job.party, job.lang);
    case 'receipt': return receiptPdf(job.receipt, job.lang, job.facts);
  }
}
