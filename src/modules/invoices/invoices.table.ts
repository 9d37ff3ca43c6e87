import type { Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

export type InvoiceStatus = 'draft' | 'open' | 'partially_paid' | 'paid' | 'disputed' | 'credited' | 'uncollectible';

export interface InvoiceLine {
  description: string;
  quantity: number;
  /** Minor units, before tax. */
  unitPrice: number;
  /** Basis points (1600 = 16 %). */
  taxRate: number;
}

export interface TaxLine {
  rate: number;
  base: number;
  amount: number;
}

export interface InvoicesTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  customer_id: string;
  subscription_id: string | null;
  payment_id: string | null;
  currency: string;
  status: InvoiceStatus;
  number: string | null;
  lines: string;
  taxes: string;
  memo: string | null;
  days_until_due: number | null;
  due_date: string | null;
  subtotal: number;
  total: number;
  amount_paid: number;
  amount_credited: number;
  content_hash: string | null;
  overdue: number;
  finalized_at: string | null;
  paid_at: string | null;
  sent_at: string | null;
  page_token: string | null;
  pay_payment_id: string | null;
  test_clock_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface InvoicePaymentsTable {
  id: string;
  invoice_id: string;
  amount: number;
  method: string;
  note: string | null;
  payment_id: string | null;
  created_at: string;
}

export interface CreditNotesTable {
  id: string;
  invoice_id: string;
  merchant_id: string;
  mode: Mode;
  number: string;
  amount: number;
  reason: string;
  refund: number;
  created_at: string;
}

export interface BillingSequencesTable {
  merchant_id: string;
  mode: Mode;
  series: 'F' | 'A';
  year: number;
  last: number;
}

export type InvoiceRow = Selectable<InvoicesTable>;
export type CreditNoteRow = Selectable<CreditNotesTable>;
