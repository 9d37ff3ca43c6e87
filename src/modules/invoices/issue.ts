// Issuing and paying invoices on the caller's transaction: the merchant API's finalization, and the invoices Motu
// makes itself (one per subscription due date, one per sale), issued and paid by card in the same transactions as
// the due date's opening and the payment's capture.
import { createHash } from 'node:crypto';
import type { Trx } from '../../db/database.js';
import { recordEvent } from '../../events/outbox.js';
import { payloads, type BuiltEvent, type InvoiceData } from '../../events/payloads.js';
import { addSeconds } from '../../shared/clock.js';
import { AppError, invalidField, validationError } from '../../shared/errors.js';
import { MAX_AMOUNT } from '../../shared/money.js';
import { newId, newTimeOrderedId } from '../../shared/ids.js';
import { percentOf } from '../../shared/money.js';
import { missingIdentity } from './identity.js';
import type { InvoiceLine, InvoiceRow, InvoiceStatus, TaxLine } from './invoices.table.js';
import { nextNumber } from './numbering.js';
import { dueDateInvoicePaid } from '../subscriptions/dunning.js';
import { AWAITING_CARD, cancel } from '../payment-transitions/transitions.js';
import { reserveOnPayment } from '../refunds/refunds.repository.js';

export const DEFAULT_DAYS_UNTIL_DUE = 30;

/** Subtotal, taxes per rate (each rounded half up, in minor units: the franc for XPF) and total. */
export function totals(lines: readonly InvoiceLine[]): { subtotal: number; taxes: TaxLine[]; total: number } {
  const bases = new Map<number, number>();
  let subtotal = 0;
  for (const line of lines) {
    const amount = line.quantity * line.unitPrice;
    const rate = line.taxRate ?? 0;
    subtotal += amount;
    bases.set(rate, (bases.get(rate) ?? 0) + amount);
  }
  const taxes = [...bases.entries()].sort(([a], [b]) => a - b).map(([rate, base]) => ({ rate, base, amount: percentOf(base, rate) }));
  return { subtotal, taxes, total: subtotal + taxes.reduce((sum, t) => sum + t.amount, 0) };
}

/**
 * totals() of lines a merchant gives, within the bound every amount of Motu keeps: a line's quantity × unit price and
 * the total, taxes included, at most MAX_AMOUNT minor units (what one card payment can take, so an invoice can always be
 * paid in one). Beyond: 400 VALIDATION_ERROR naming the line, or `lines` for the total.
 */
export function boundedTotals(lines: readonly InvoiceLine[]): { subtotal: number; taxes: TaxLine[]; total: number } {
  const problems = lines.flatMap((l, i) => l.quantity * l.unitPrice > MAX_AMOUNT
    ? [{ field: `lines[${i}].unitPrice`, message: `quantity × unitPrice must not exceed ${MAX_AMOUNT}` }] : []);
  if (problems.length > 0) throw validationError(problems);
  const sums = totals(lines);
  if (sums.total > MAX_AMOUNT) throw invalidField('lines', `the total with taxes (${sums.total}) must not exceed ${MAX_AMOUNT}`);
  return sums;
}

export function remaining(row: Pick<InvoiceRow, 'total' | 'amount_paid' | 'amount_credited'>): number {
  return Math.max(0, row.total - row.amount_paid - row.amount_credited);
}

export function invoiceEventData(row: InvoiceRow): InvoiceData {
  return {
    invoiceId: row.id, number: row.number, status: row.status, currency: row.currency, total: row.total, amountPaid: row.amount_paid,
    amountRemaining: remaining(row), dueDate: row.due_date, ...(row.subscription_id ? { subscriptionId: row.subscription_id } : {}),
  };
}

export async function emitInvoice(trx: Trx, row: InvoiceRow, build: (data: InvoiceData) => BuiltEvent, at: Date): Promise<void> {
  await recordEvent(trx, { merchantId: row.merchant_id, mode: row.mode, at, ...build(invoiceEventData(row)) });
}

function reload(trx: Trx, id: string): Promise<InvoiceRow> {
  return trx.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/**
 * Draft → open (or paid, for nothing due): the next number of the year's series, the content frozen and hashed,
 * `invoice.issued`. `now` is the invoice's time (its customer's clock), `at` the event's.
 */
export async function finalizeDraft(trx: Trx, current: InvoiceRow, now: Date, at: Date): Promise<InvoiceRow> {
  const merchant = await trx.selectFrom('merchants').selectAll().where('id', '=', current.merchant_id).executeTakeFirstOrThrow();
  const missing = missingIdentity(merchant);
  if (missing.length > 0) {
    throw new AppError('INVOICING_NOT_ACTIVATED', `Invoicing is not open: the legal identity lacks ${missing.map((f) => f.field).join(', ')}`, { missing });
  }
  // A draft written before totals were bounded is finalized only within the bound.
  if (current.total > MAX_AMOUNT) throw invalidField('lines', `the total with taxes (${current.total}) must not exceed ${MAX_AMOUNT}`);
  const number = await nextNumber(trx, { merchantId: current.merchant_id, mode: current.mode }, 'F', now.getUTCFullYear());
  const dueDate = current.due_date ?? addSeconds(now, (current.days_until_due ?? DEFAULT_DAYS_UNTIL_DUE) * 86_400).toISOString();
  const content = {
    number, merchantId: current.merchant_id, customerId: current.customer_id, currency: current.currency, lines: JSON.parse(current.lines),
    memo: current.memo, subtotal: current.subtotal, taxes: JSON.parse(current.taxes), total: current.total, dueDate, issuedAt: now.toISOString(),
  };
  const hash = createHash('sha256').update(JSON.stringify(content)).digest('hex');
  const status: InvoiceStatus = current.total === 0 ? 'paid' : 'open';
  const res = await trx.updateTable('invoices')
    .set({ status, number, due_date: dueDate, content_hash: hash, finalized_at: now.toISOString(), updated_at: now.toISOString(), ...(status === 'paid' ? { paid_at: now.toISOString() } : {}) })
    .where('id', '=', current.id).where('status', '=', 'draft').executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) {
    throw new AppError('INVOICING_INVOICE_FINALIZED', `Invoice ${current.id} is finalized already`, { status: current.status });
  }
  const row = await reload(trx, current.id);
  await emitInvoice(trx, row, payloads.invoiceIssued, at);
  if (status === 'paid') await emitInvoice(trx, row, payloads.invoicePaid, at);
  return row;
}

export interface IssueInput {
  merchantId: string;
  mode: InvoiceRow['mode'];
  customerId: string;
  currency: string;
  lines: InvoiceLine[];
  daysUntilDue?: number;
  subscriptionId?: string | null;
  /** The sale it invoices (a payment captured): at most one invoice per payment. */
  paymentId?: string | null;
  testClockId: string | null;
  /** The invoice's time (its customer's clock). */
  now: Date;
  at: Date;
}

/** An invoice Motu issues itself; null when the merchant's invoicing is not open (no legal identity): none is made. */
export async function issueInvoice(trx: Trx, input: IssueInput): Promise<InvoiceRow | null> {
  const merchant = await trx.selectFrom('merchants').selectAll().where('id', '=', input.merchantId).executeTakeFirstOrThrow();
  if (missingIdentity(merchant).length > 0) return null;
  const sums = totals(input.lines);
  const now = input.now.toISOString();
  const draft: InvoiceRow = {
    id: newId('inv'), merchant_id: input.merchantId, mode: input.mode, customer_id: input.customerId, subscription_id: input.subscriptionId ?? null,
    payment_id: input.paymentId ?? null, currency: input.currency, status: 'draft', number: null, lines: JSON.stringify(input.lines), taxes: JSON.stringify(sums.taxes),
    memo: null, days_until_due: input.daysUntilDue ?? DEFAULT_DAYS_UNTIL_DUE, due_date: null, subtotal: sums.subtotal, total: sums.total, amount_paid: 0,
    amount_credited: 0, content_hash: null, overdue: 0, finalized_at: null, paid_at: null, sent_at: null, page_token: null, pay_payment_id: null, test_clock_id: input.testClockId, created_at: now, updated_at: now,
  };
  await trx.insertInto('invoices').values(draft).execute();
  return finalizeDraft(trx, draft, input.now, input.at);
}

/** The statuses in which an invoice takes a payment. */
export const PAYABLE: readonly InvoiceStatus[] = ['open', 'partially_paid', 'uncollectible', 'disputed'];

/** The reason on the refund of what a card payment paid beyond what its invoice owed (refunded at once by a job). */
export const OVERPAYMENT_REASON = 'invoice_overpayment';

/**
 * The invoice after a change of what it owes (a payment, a credit note, a chargeback, uncollectible): the card payment
 * its hosted page offered is for an amount no longer due, so it is cancelled (`payment.cancelled`) if nobody is paying
 * it yet, and forgotten; the page's next visit makes one for what is due then. One already authorized goes on: its
 * capture pays what is due and gives the rest back (payByCard).
 */
export async function closeCheckout(trx: Trx, invoice: InvoiceRow, at: Date): Promise<void> {
  if (!invoice.pay_payment_id) return;
  await cancel(trx, { paymentId: invoice.pay_payment_id, from: AWAITING_CARD, by: 'merchant_api', at });
  await trx.updateTable('invoices').set({ pay_payment_id: null }).where('id', '=', invoice.id).where('pay_payment_id', '=', invoice.pay_payment_id).execute();
}

/**
 * One change of an invoice's amounts, conditional on the values `change` read: concurrent changes (a capture, a
 * credit note, a payment recorded by hand) never both apply to the same reading. `change` returns the columns to set
 * from the fresh row, or null for nothing to do; a reading overtaken meanwhile is read again (PostgreSQL: the
 * update waits for the other transaction's commit, then finds the values changed).
 */
async function changeAmounts(trx: Trx, invoiceId: string, change: (row: InvoiceRow) => Partial<InvoiceRow> | null): Promise<{ before: InvoiceRow; after: InvoiceRow } | null> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const before = await reload(trx, invoiceId);
    const set = change(before);
    if (!set) return null;
    const res = await trx.updateTable('invoices').set(set).where('id', '=', invoiceId).where('status', '=', before.status)
      .where('amount_paid', '=', before.amount_paid).where('amount_credited', '=', before.amount_credited).executeTakeFirst();
    if (Number(res.numUpdatedRows) === 1) return { before, after: await reload(trx, invoiceId) };
  }
  throw new AppError('SERVICE_UNAVAILABLE', `Invoice ${invoiceId} kept changing; try again`, { id: invoiceId, retryAfterSeconds: 1 });
}

/**
 * A card payment of an invoice (its page's, its due date's charge, its sale's capture), on the capture's transaction:
 * paid or partially paid, with its event, for at most what the invoice owes now. What the capture took beyond that (the
 * invoice was paid or credited while the card was being charged) is given back: a refund of it reserved here and
 * completed at once by the refund-invoice-overpayments job, announced by `invoice.overpayment_refunded`.
 */
export async function payByCard(trx: Trx, invoiceId: string, amount: number, paymentId: string, now: Date, at: Date): Promise<InvoiceRow | null> {
  let part = 0;
  const changed = await changeAmounts(trx, invoiceId, (current) => {
    part = PAYABLE.includes(current.status) ? Math.min(amount, remaining(current)) : 0;
    if (part <= 0) return null;
    const paid = current.amount_paid + part;
    const status: InvoiceStatus = paid + current.amount_credited >= current.total ? 'paid' : 'partially_paid';
    return { amount_paid: paid, status, updated_at: now.toISOString(), ...(status === 'paid' ? { paid_at: now.toISOString() } : {}) };
  });
  let row = changed?.after ?? await reload(trx, invoiceId);
  if (changed) {
    await trx.insertInto('invoice_payments').values({ id: newId('ipy'), invoice_id: invoiceId, amount: part, method: 'card', note: null, payment_id: paymentId, created_at: now.toISOString() }).execute();
    await emitInvoice(trx, row, row.status === 'paid' ? payloads.invoicePaid : payloads.invoicePartiallyPaid, at);
    if (row.status === 'paid' && row.subscription_id) await dueDateInvoicePaid(trx, invoiceId, at);
    await closeCheckout(trx, row, at);
    row = await reload(trx, invoiceId);
  }
  if (amount > part) await refundOverpayment(trx, row, paymentId, amount - part, at);
  return changed ? row : null;
}

/** What a captured card payment paid beyond what its invoice owed: a refund reserved now, completed by a job. */
async function refundOverpayment(trx: Trx, invoice: InvoiceRow, paymentId: string, excess: number, at: Date): Promise<void> {
  const payment = await trx.selectFrom('payments').selectAll().where('id', '=', paymentId).executeTakeFirstOrThrow();
  const refundable = payment.captured_amount - payment.refunded_amount - payment.refund_reserved - payment.disputed_amount;
  const amount = Math.min(excess, refundable);
  if (amount < 1 || !payment.acquirer_authorization_id) return;
  const refund = await reserveOnPayment(trx, payment, { id: newTimeOrderedId('re'), amount, reason: OVERPAYMENT_REASON, at });
  await recordEvent(trx, {
    merchantId: invoice.merchant_id, mode: invoice.mode, at,
    ...payloads.invoiceOverpaymentRefunded({ ...invoiceEventData(invoice), paymentId, refundId: refund.id, refundAmount: amount }),
  });
}

/** The invoice a card payment paid, if any. */
async function invoicePaidBy(trx: Trx, paymentId: string): Promise<InvoiceRow | undefined> {
  const link = await trx.selectFrom('invoice_payments').select('invoice_id').where('payment_id', '=', paymentId).executeTakeFirst();
  return link ? reload(trx, link.invoice_id) : undefined;
}

/** A chargeback on a payment that paid an invoice reopens it: `disputed`, the amount due again, `invoice.disputed`. */
export async function onInvoiceChargeback(trx: Trx, paymentId: string, amount: number, at: Date): Promise<void> {
  const invoice = await invoicePaidBy(trx, paymentId);
  if (!invoice) return;
  const changed = await changeAmounts(trx, invoice.id, (current) => ({
    status: 'disputed', amount_paid: current.amount_paid - Math.min(amount, current.amount_paid), paid_at: null, updated_at: at.toISOString(),
  }));
  await emitInvoice(trx, changed!.after, payloads.invoiceDisputed, at);
  await closeCheckout(trx, changed!.after, at);
}

/**
 * The chargeback won: the amount is the merchant's again, and pays the invoice for what it still owes (`invoice.paid`,
 * or `invoice.partially_paid`). What it no longer owes (paid again meanwhile, by its page's new checkout or by hand, or
 * credited) would be the customer's money twice: it is refunded at once on that payment, as a capture's excess is.
 */
export async function onInvoiceChargebackWon(trx: Trx, paymentId: string, amount: number, at: Date): Promise<void> {
  const invoice = await invoicePaidBy(trx, paymentId);
  if (!invoice) return;
  let back = 0;
  const changed = await changeAmounts(trx, invoice.id, (current) => {
    back = PAYABLE.includes(current.status) ? Math.min(amount, remaining(current)) : 0;
    if (back <= 0) return null;
    const paid = current.amount_paid + back;
    const status: InvoiceStatus = paid + current.amount_credited >= current.total ? 'paid' : 'partially_paid';
    return { status, amount_paid: paid, updated_at: at.toISOString(), ...(status === 'paid' ? { paid_at: at.toISOString() } : {}) };
  });
  if (changed) {
    await emitInvoice(trx, changed.after, changed.after.status === 'paid' ? payloads.invoicePaid : payloads.invoicePartiallyPaid, at);
    await closeCheckout(trx, changed.after, at);
  }
  if (amount > back) await refundOverpayment(trx, await reload(trx, invoice.id), paymentId, amount - back, at);
}
