// Invoices and credit notes through the merchant API (/api/v1/billing): drafts, finalization with the legal number,
// payments recorded by hand, credit notes, uncollectible; and the time rule that marks them overdue once.
// Numbers: `F-YYYY-NNNNNN` (credit notes `A-…`), one continuous series per merchant, mode and year (numbering.ts).
import type { Database, Trx } from '../../db/database.js';
import { payloads, type BuiltEvent, type InvoiceData } from '../../events/payloads.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import { newId, randomToken } from '../../shared/ids.js';
import { paginate, type PageRequest } from '../../shared/pagination.js';
import type { Owner } from '../merchants/principal.js';
import { ownedBy } from '../merchants/scope.js';
import type { TimeRule } from '../test-clocks/advance.js';
import { onClock, timeOn, type ClockScope } from '../test-clocks/clock-time.js';
import { billingSettings } from './identity.js';
import { boundedTotals, closeCheckout, DEFAULT_DAYS_UNTIL_DUE, emitInvoice, finalizeDraft, PAYABLE, remaining } from './issue.js';
import { AWAITING_CARD, cancel } from '../payment-transitions/transitions.js';
import { nextNumber } from './numbering.js';
import { dueDateInvoicePaid } from '../subscriptions/dunning.js';
import { mailable, type MailOutbox } from '../../mail/outbox.js';
import type { CreditNoteRow, InvoiceLine, InvoiceRow, InvoiceStatus, TaxLine } from './invoices.table.js';

export { remaining, totals } from './issue.js';

export interface InvoiceInput {
  customerId: string;
  currency: 'EUR' | 'XPF';
  lines: InvoiceLine[];
  dueDate?: string;
  daysUntilDue?: number;
  memo?: string;
}

export function invoiceView(row: InvoiceRow, now: Date) {
  const lines = JSON.parse(row.lines) as InvoiceLine[];
  return {
    id: row.id,
    number: row.number,
    status: row.status,
    customerId: row.customer_id,
    subscriptionId: row.subscription_id,
    currency: row.currency,
    lines: lines.map((l) => ({ ...l, amount: l.quantity * l.unitPrice })),
    memo: row.memo,
    subtotal: row.subtotal,
    taxes: JSON.parse(row.taxes) as TaxLine[],
    total: row.total,
    amountPaid: row.amount_paid,
    amountCredited: row.amount_credited,
    amountRemaining: row.status === 'draft' ? row.total : remaining(row),
    dueDate: row.due_date,
    overdue: row.overdue === 1 || (row.due_date !== null && (row.status === 'open' || row.status === 'partially_paid') && row.due_date <= now.toISOString()),
    contentHash: row.content_hash,
    finalizedAt: row.finalized_at,
    sentAt: row.sent_at,
    paidAt: row.paid_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function creditNoteView(row: CreditNoteRow) {
  return { id: row.id, invoiceId: row.invoice_id, number: row.number, amount: row.amount, reason: row.reason, refund: row.refund === 1, createdAt: row.created_at };
}

function finalized(row: InvoiceRow): AppError {
  return new AppError('INVOICING_INVOICE_FINALIZED', `Invoice ${row.number ?? row.id} is finalized (${row.status}); its content can no longer change`, { status: row.status });
}

export class InvoicesService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly publicUrl: string,
    /** Makes the payment link an invoice's page pays through (the sessions module's). */
    private readonly paymentLink: (owner: Owner, input: { reference: string; amount: number; currency: 'EUR' | 'XPF'; customerId: string; returnUrl: string }) => Promise<{ paymentId: string }>,
    /** Refunds part of a card payment through the refund machinery (the refunds module's). */
    private readonly refund: (owner: Owner, paymentId: string, amount: number, reason: string) => Promise<void>,
    /** Queues mails (present when a mailer is configured). */
    private readonly mail: MailOutbox | null = null,
    /** MOTU_TEST_MAIL_ALLOWLIST: the only addresses and domains a test-mode invoice is mailed to. */
    private readonly testAllowlist: readonly string[] = [],
  ) {}

  private mails(mode: string, address: string): boolean {
    if (mode !== 'test') return true;
    const lower = address.toLowerCase();
    return this.testAllowlist.some((entry) => entry === lower || entry === lower.slice(lower.lastIndexOf('@') + 1));
  }

  /** The hosted invoice page's address. */
  pageUrl(token: string): string {
    return `${this.publicUrl}/invoices/${token}`;
  }

  /**
   * Sends a finalized invoice: its hosted page (an unguessable address showing the invoice, its PDF and a card payment
   * of what is due), `sentAt` and `invoice.sent`. The page's card payment is a payment link for what is due now
   * (checkoutFor); its capture pays the invoice.
   */
  async send(owner: Owner, id: string) {
    const current = await this.find(this.db.kysely, owner, id);
    this.payable(current, 'is sent');
    // Its page's address first, then its checkout: a checkout that cannot be made (no live acquirer) fails the send
    // before anything is sent.
    if (!current.page_token) {
      await this.db.kysely.updateTable('invoices').set({ page_token: randomToken(32) }).where('id', '=', id).where('page_token', 'is', null).execute();
    }
    await this.checkoutFor(await this.find(this.db.kysely, owner, id));
    const row = await this.db.transaction(async (trx) => {
      const locked = await this.lock(trx, owner, id);
      this.payable(locked, 'is sent');
      const now = (await timeOn(trx, locked.test_clock_id, this.clock.now())).toISOString();
      await trx.updateTable('invoices').set({ sent_at: now, updated_at: now }).where('id', '=', id).execute();
      const row = await this.find(trx, owner, id);
      await this.emit(trx, row, payloads.invoiceSent);
      // The page's address and the PDF by mail to the customer, when a mailer is set and the customer has an address
      // (once per invoice; the API's answer carries the address for the merchant to send it otherwise).
      const customer = await trx.selectFrom('customers').select(['email']).where('id', '=', row.customer_id).executeTakeFirst();
      if (this.mail && mailable(customer?.email) && this.mails(row.mode, customer.email)) {
        await this.mail.enqueue(trx, { merchantId: row.merchant_id, mode: row.mode, kind: 'invoice', subjectId: row.id, recipient: customer!.email!, locale: 'fr' });
      }
      return row;
    });
    return { ...this.view(row), url: this.pageUrl(row.page_token!) };
  }

  private payable(row: InvoiceRow, action: string): void {
    if (PAYABLE.includes(row.status)) return;
    throw new AppError('INVOICING_INVOICE_NOT_PAYABLE', `Invoice ${row.number ?? row.id} is ${row.status}; only a finalized invoice with an amount due ${action}`, { status: row.status });
  }

  /** What the hosted invoice page shows, by its token; undefined for an unknown one. */
  async page(token: string) {
    if (!/^[0-9A-Za-z]{32}$/.test(token)) return undefined;
    const byToken = () => this.db.kysely.selectFrom('invoices').selectAll().where('page_token', '=', token).executeTakeFirst();
    const found = await byToken();
    if (!found) return undefined;
    // A checkout that cannot be made now (the live acquirer unavailable) leaves the page without its card payment.
    const checkoutUrl = await this.checkoutFor(found).catch((err: unknown) => {
      if (err instanceof AppError && err.status === 503) return null;
      throw err;
    });
    const invoice = (await byToken())!;
    return { invoice, party: await this.party(invoice), checkoutUrl: PAYABLE.includes(invoice.status) && remaining(invoice) > 0 ? checkoutUrl : null };
  }

  /**
   * The hosted checkout of the invoice's page, for exactly what is due now; null when nothing is due. The open one is
   * kept while it is for that amount. Otherwise a new payment link is made (outside any transaction: the sessions
   * module opens its own), then kept in one transaction that takes the invoice row and reads it again: the stale
   * checkout is cancelled then, and a link made for an amount no longer due (the invoice changed meanwhile, or a
   * concurrent visit kept its own) is cancelled instead of kept.
   */
  private async checkoutFor(invoice: InvoiceRow): Promise<string | null> {
    if (!PAYABLE.includes(invoice.status) || !invoice.page_token) return null;
    const due = remaining(invoice);
    if (due <= 0) return null;
    const open = await this.openCheckout(this.db.kysely, invoice, due);
    if (open) return open;
    const owner: Owner = { merchantId: invoice.merchant_id, mode: invoice.mode, storeId: null };
    const link = await this.paymentLink(owner, {
      reference: invoice.number!, amount: due, currency: invoice.currency as 'EUR' | 'XPF', customerId: invoice.customer_id, returnUrl: this.pageUrl(invoice.page_token),
    });
    return this.db.transaction(async (trx) => {
      const at = this.clock.now();
      const fresh = await this.lock(trx, owner, invoice.id);
      const kept = PAYABLE.includes(fresh.status) && remaining(fresh) === due ? await this.openCheckout(trx, fresh, due) : null;
      if (kept !== null || !PAYABLE.includes(fresh.status) || remaining(fresh) !== due) {
        await cancel(trx, { paymentId: link.paymentId, from: AWAITING_CARD, by: 'merchant_api', at });
        return kept;
      }
      await closeCheckout(trx, fresh, at);
      await trx.updateTable('payments').set({ invoice_id: fresh.id }).where('id', '=', link.paymentId).execute();
      await trx.updateTable('invoices').set({ pay_payment_id: link.paymentId }).where('id', '=', fresh.id).execute();
      return this.openCheckout(trx, { ...fresh, pay_payment_id: link.paymentId }, due);
    });
  }

  /** The page's checkout while it can still be paid, for `due`: its address, else null. */
  private async openCheckout(q: Database['kysely'] | Trx, invoice: InvoiceRow, due: number): Promise<string | null> {
    if (!invoice.pay_payment_id) return null;
    const open = await q.selectFrom('payments as p').innerJoin('payment_sessions as s', 's.id', 'p.session_id').select('s.id')
      .where('p.id', '=', invoice.pay_payment_id).where('p.invoice_id', '=', invoice.id).where('p.amount', '=', due).where('p.status', 'in', AWAITING_CARD)
      .where('s.status', '=', 'open').where('s.expires_at', '>', this.clock.now().toISOString()).executeTakeFirst();
    return open ? `${this.publicUrl}/checkout/${open.id}` : null;
  }

  /** GET /api/v1/billing/settings: whether invoicing is open for the merchant, and what its identity lacks. */
  async settings(owner: Owner) {
    const merchant = await this.db.kysely.selectFrom('merchants').selectAll().where('id', '=', owner.merchantId).executeTakeFirstOrThrow();
    return billingSettings(merchant, this.publicUrl);
  }

  private mine(q: Database['kysely'] | Trx, owner: Owner) {
    return q.selectFrom('invoices').selectAll().where(ownedBy(owner));
  }

  private async find(q: Database['kysely'] | Trx, owner: Owner, id: string): Promise<InvoiceRow> {
    const row = await this.mine(q, owner).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('invoice', id);
    return row;
  }

  /**
   * The invoice's row, taken until the transaction ends (PostgreSQL: FOR UPDATE; SQLite: the one write transaction),
   * read fresh: every change of an invoice starts here, so concurrent changes apply one after the other, each to what
   * the previous one left.
   *
   * The card payment its page offers is taken first, then the invoice: the order of a capture, which holds its payment
   * and then pays the invoice (payByCard). A change that ends by cancelling that checkout (closeCheckout) and took the
   * invoice first would wait for a capture in flight while the capture waits for the invoice: a deadlock, which
   * PostgreSQL breaks after a second by failing one of them (a payment recorded by hand while the page's card was being
   * captured answered 500). Where transactions run one at a time (SQLite) both reads are plain reads.
   */
  private async lock(trx: Trx, owner: Owner, id: string): Promise<InvoiceRow> {
    await this.db.lockForUpdate(trx.selectFrom('payments').select('id')
      .where('id', '=', (eb) => eb.selectFrom('invoices').select('pay_payment_id').where('id', '=', id).where(ownedBy(owner)))).execute();
    const row = await this.db.lockForUpdate(this.mine(trx, owner).where('id', '=', id)).executeTakeFirst();
    if (!row) throw notFound('invoice', id);
    return row;
  }

  private async emit(trx: Trx, row: InvoiceRow, build: (data: InvoiceData) => BuiltEvent) {
    await emitInvoice(trx, row, build, this.clock.now());
  }

  private view(row: InvoiceRow) {
    return invoiceView(row, this.clock.now());
  }

  async create(owner: Owner, input: InvoiceInput) {
    if (input.dueDate !== undefined && input.daysUntilDue !== undefined) throw invalidField('dueDate', 'give dueDate or daysUntilDue, not both');
    checkDrawable(input.lines, input.memo ?? null);
    boundedTotals(input.lines);
    const row = await this.db.transaction(async (trx) => {
      const customer = await trx.selectFrom('customers').select(['id', 'test_clock_id']).where('id', '=', input.customerId).where(ownedBy(owner)).executeTakeFirst();
      if (!customer) throw new AppError('NOT_FOUND', `No customer with id ${input.customerId}`, { field: 'customerId', id: input.customerId });
      const now = (await timeOn(trx, customer.test_clock_id, this.clock.now())).toISOString();
      const sums = boundedTotals(input.lines);
      const row: InvoiceRow = {
        id: newId('inv'), merchant_id: owner.merchantId, mode: owner.mode, customer_id: customer.id, subscription_id: null, payment_id: null, currency: input.currency,
        status: 'draft', number: null, lines: JSON.stringify(input.lines.map((l) => ({ ...l, taxRate: l.taxRate ?? 0 }))), taxes: JSON.stringify(sums.taxes),
        memo: input.memo ?? null, days_until_due: input.dueDate ? null : input.daysUntilDue ?? DEFAULT_DAYS_UNTIL_DUE,
        due_date: input.dueDate ? new Date(input.dueDate).toISOString() : null, subtotal: sums.subtotal, total: sums.total, amount_paid: 0, amount_credited: 0,
        content_hash: null, overdue: 0, finalized_at: null, paid_at: null, sent_at: null, page_token: null, pay_payment_id: null, test_clock_id: customer.test_clock_id, created_at: now, updated_at: now,
      };
      await trx.insertInto('invoices').values(row).execute();
      return row;
    });
    return this.view(row);
  }

  async get(owner: Owner, id: string) {
    return this.view(await this.find(this.db.kysely, owner, id));
  }

  /** What an invoice's or a credit note's document shows besides itself: the merchant and the customer. */
  private async party(invoice: InvoiceRow) {
    const merchant = await this.db.kysely.selectFrom('merchants').selectAll().where('id', '=', invoice.merchant_id).executeTakeFirstOrThrow();
    const customer = await this.db.kysely.selectFrom('customers').select(['name', 'email']).where('id', '=', invoice.customer_id).executeTakeFirst();
    return { merchant, customerName: customer?.name ?? null, customerEmail: customer?.email ?? null };
  }

  async document(owner: Owner, id: string) {
    const invoice = await this.find(this.db.kysely, owner, id);
    return { invoice, party: await this.party(invoice) };
  }

  async creditNoteDocument(owner: Owner, id: string) {
    const note = await this.findCreditNote(owner, id);
    const invoice = await this.find(this.db.kysely, owner, note.invoice_id);
    return { note, invoice, party: await this.party(invoice) };
  }

  private creditNotes(owner: Owner) {
    return this.db.kysely.selectFrom('credit_notes').selectAll().where(ownedBy(owner));
  }

  private async findCreditNote(owner: Owner, id: string): Promise<CreditNoteRow> {
    const note = await this.creditNotes(owner).where('id', '=', id).executeTakeFirst();
    if (!note) throw notFound('credit note', id);
    return note;
  }

  async getCreditNote(owner: Owner, id: string) {
    return creditNoteView(await this.findCreditNote(owner, id));
  }

  /** The credit notes, newest first; `invoiceId`: those of one invoice. */
  async listCreditNotes(owner: Owner, query: PageRequest & { invoiceId?: string }) {
    let q = this.creditNotes(owner);
    if (query.invoiceId) q = q.where('invoice_id', '=', query.invoiceId);
    const page = await paginate(q, query, (cursor) => this.creditNotes(owner).where('id', '=', cursor).executeTakeFirst());
    return { data: page.data.map(creditNoteView), hasMore: page.hasMore };
  }

  async list(owner: Owner, query: PageRequest & { customerId?: string; status?: InvoiceStatus; subscriptionId?: string }) {
    let q = this.mine(this.db.kysely, owner);
    if (query.customerId) q = q.where('customer_id', '=', query.customerId);
    if (query.status) q = q.where('status', '=', query.status);
    if (query.subscriptionId) q = q.where('subscription_id', '=', query.subscriptionId);
    const page = await paginate(q, query, (cursor) => this.mine(this.db.kysely, owner).where('id', '=', cursor).executeTakeFirst());
    return { data: page.data.map((r) => this.view(r)), hasMore: page.hasMore };
  }

  async update(owner: Owner, id: string, patch: Partial<Omit<InvoiceInput, 'customerId'>>) {
    if (patch.lines) boundedTotals(patch.lines);
    const row = await this.db.transaction(async (trx) => {
      const current = await this.lock(trx, owner, id);
      if (current.status !== 'draft') throw finalized(current);
      const lines = patch.lines ?? (JSON.parse(current.lines) as InvoiceLine[]);
      checkDrawable(lines, patch.memo !== undefined ? patch.memo : current.memo);
      const sums = boundedTotals(lines);
      const set: Partial<InvoiceRow> = {
        lines: JSON.stringify(lines.map((l) => ({ ...l, taxRate: l.taxRate ?? 0 }))), taxes: JSON.stringify(sums.taxes), subtotal: sums.subtotal, total: sums.total,
        updated_at: this.clock.now().toISOString(),
        ...(patch.currency ? { currency: patch.currency } : {}), ...(patch.memo !== undefined ? { memo: patch.memo } : {}),
        ...(patch.dueDate !== undefined ? { due_date: new Date(patch.dueDate).toISOString(), days_until_due: null } : {}),
        ...(patch.daysUntilDue !== undefined ? { days_until_due: patch.daysUntilDue, due_date: null } : {}),
      };
      const res = await trx.updateTable('invoices').set(set).where('id', '=', id).where('status', '=', 'draft').executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw finalized(await this.find(trx, owner, id));
      return this.find(trx, owner, id);
    });
    return this.view(row);
  }

  async remove(owner: Owner, id: string) {
    await this.db.transaction(async (trx) => {
      const current = await this.lock(trx, owner, id);
      if (current.status !== 'draft') throw finalized(current);
      await trx.deleteFrom('invoices').where('id', '=', id).where('status', '=', 'draft').execute();
    });
    return { id, deleted: true };
  }

  /** Draft → open: the next number of the year's series, the content frozen and hashed, `invoice.issued`. */
  async finalize(owner: Owner, id: string) {
    const row = await this.db.transaction(async (trx) => {
      // The row taken and read here is the content hashed: a change of the draft waits for it, or came before it.
      const current = await this.lock(trx, owner, id);
      if (current.status !== 'draft') throw finalized(current);
      const now = await timeOn(trx, current.test_clock_id, this.clock.now());
      return finalizeDraft(trx, current, now, this.clock.now());
    });
    return this.view(row);
  }

  /** A payment received outside Motu (transfer, cash): partially paid, or paid. */
  async recordPayment(owner: Owner, id: string, input: { amount: number; method: string; note?: string }) {
    const row = await this.db.transaction(async (trx) => {
      const current = await this.lock(trx, owner, id);
      if (!PAYABLE.includes(current.status)) {
        throw new AppError('INVOICING_INVOICE_NOT_PAYABLE', `Invoice ${current.number ?? current.id} is ${current.status}; only a finalized invoice with an amount due takes a payment`, { status: current.status });
      }
      const due = remaining(current);
      if (input.amount > due) throw new AppError('INVOICING_AMOUNT_EXCEEDS_REMAINING', `Invoice ${current.number} has ${due} ${current.currency} left to pay`, { amountRemaining: due });
      const now = (await timeOn(trx, current.test_clock_id, this.clock.now())).toISOString();
      await trx.insertInto('invoice_payments').values({ id: newId('ipy'), invoice_id: id, amount: input.amount, method: input.method, note: input.note ?? null, payment_id: null, created_at: now }).execute();
      const paid = current.amount_paid + input.amount;
      const status: InvoiceStatus = paid + current.amount_credited >= current.total ? 'paid' : 'partially_paid';
      const res = await trx.updateTable('invoices').set({ amount_paid: paid, status, updated_at: now, ...(status === 'paid' ? { paid_at: now } : {}) })
        .where('id', '=', id).where('amount_paid', '=', current.amount_paid).executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw new AppError('IDEMPOTENCY_KEY_IN_USE', `Invoice ${id} changed meanwhile; try again`, { id });
      const row = await this.find(trx, owner, id);
      await this.emit(trx, row, status === 'paid' ? payloads.invoicePaid : payloads.invoicePartiallyPaid);
      if (status === 'paid' && row.subscription_id) await dueDateInvoicePaid(trx, id, this.clock.now());
      await closeCheckout(trx, row, this.clock.now());
      return this.find(trx, owner, id);
    });
    return this.view(row);
  }

  async markUncollectible(owner: Owner, id: string) {
    const row = await this.db.transaction(async (trx) => {
      const current = await this.lock(trx, owner, id);
      if (current.status !== 'open' && current.status !== 'partially_paid') {
        throw new AppError('INVOICING_INVOICE_NOT_PAYABLE', `Invoice ${current.number ?? current.id} is ${current.status}; only an open invoice can be marked uncollectible`, { status: current.status });
      }
      await trx.updateTable('invoices').set({ status: 'uncollectible', updated_at: this.clock.now().toISOString() }).where('id', '=', id).where('status', '=', current.status).execute();
      const row = await this.find(trx, owner, id);
      await this.emit(trx, row, payloads.invoiceUncollectible);
      await closeCheckout(trx, row, this.clock.now());
      return this.find(trx, owner, id);
    });
    return this.view(row);
  }

  /**
   * A credit note in its own series. Before payment it lowers what is due; credited in full, the invoice is `credited`.
   * With `refund: true` it would refund the invoice's card payments: none exist until invoices are paid by card.
   */
  async creditNote(owner: Owner, id: string, input: { amount?: number; reason: string; refund?: boolean }) {
    if (input.refund) return this.refundingCreditNote(owner, id, input);
    return this.db.transaction(async (trx) => {
      const current = await this.lock(trx, owner, id);
      if (current.status === 'draft') throw new AppError('INVOICING_INVOICE_NOT_PAYABLE', `Invoice ${current.id} is a draft: change or delete it instead`, { status: current.status });
      // Without a refund, only what is still due can be credited.
      const creditable = current.total - current.amount_credited - current.amount_paid;
      const amount = input.amount ?? creditable;
      if (amount < 1 || amount > creditable) {
        throw new AppError('INVOICING_CREDIT_EXCEEDS_CREDITABLE', `Invoice ${current.number} has ${creditable} ${current.currency} left to credit`, { creditable });
      }
      const now = await timeOn(trx, current.test_clock_id, this.clock.now());
      const number = await nextNumber(trx, owner, 'A', now.getUTCFullYear());
      const note: CreditNoteRow = {
        id: newId('cn'), invoice_id: id, merchant_id: owner.merchantId, mode: owner.mode, number, amount, reason: input.reason, refund: input.refund ? 1 : 0, created_at: now.toISOString(),
      };
      await trx.insertInto('credit_notes').values(note).execute();
      const credited = current.amount_credited + amount;
      const status: InvoiceStatus = credited >= current.total ? 'credited' : current.amount_paid + credited >= current.total ? 'paid' : current.status;
      await trx.updateTable('invoices').set({ amount_credited: credited, status, updated_at: now.toISOString() }).where('id', '=', id).execute();
      const row = await this.find(trx, owner, id);
      if (status === 'credited') await this.emit(trx, row, payloads.invoiceCredited);
      else if (status === 'paid' && current.status !== 'paid') await this.emit(trx, row, payloads.invoicePaid);
      await closeCheckout(trx, row, now);
      return creditNoteView(note);
    });
  }

  /**
   * A credit note that gives paid money back: the invoice's card payments refunded (newest first) through the refund
   * machinery, outside any transaction, for the credit's amount; then the credit note, the invoice's paid amount lowered
   * and its credited amount raised, in one transaction. What cards paid and is not refunded yet bounds it.
   */
  private async refundingCreditNote(owner: Owner, id: string, input: { amount?: number; reason: string }) {
    const current = await this.find(this.db.kysely, owner, id);
    if (current.status === 'draft') throw new AppError('INVOICING_INVOICE_NOT_PAYABLE', `Invoice ${current.id} is a draft: change or delete it instead`, { status: current.status });
    const cards = await this.db.kysely.selectFrom('invoice_payments as i').innerJoin('payments as p', 'p.id', 'i.payment_id')
      .select(['p.id', 'p.captured_amount', 'p.refunded_amount', 'p.refund_reserved', 'p.disputed_amount'])
      .where('i.invoice_id', '=', id).orderBy('i.created_at', 'desc').execute();
    const refundable = cards.map((c) => ({ id: c.id, left: c.captured_amount - c.refunded_amount - c.refund_reserved - c.disputed_amount }));
    const creditable = Math.min(current.amount_paid, refundable.reduce((sum, c) => sum + Math.max(0, c.left), 0));
    if (creditable === 0) {
      throw new AppError('INVOICING_NOTHING_TO_REFUND', `Invoice ${current.number} has no card payment left to refund; record the refund yourself and credit it without refund`, {});
    }
    const amount = input.amount ?? creditable;
    if (amount < 1 || amount > creditable) {
      throw new AppError('INVOICING_CREDIT_EXCEEDS_CREDITABLE', `Invoice ${current.number} has ${creditable} ${current.currency} paid by card left to refund`, { creditable });
    }
    const merchantWide = { merchantId: owner.merchantId, mode: owner.mode, storeId: null };
    let left = amount;
    for (const card of refundable) {
      const part = Math.min(left, card.left);
      if (part <= 0) continue;
      await this.refund(merchantWide, card.id, part, `Credit note on invoice ${current.number}`);
      left -= part;
      if (left === 0) break;
    }
    return this.db.transaction(async (trx) => {
      const fresh = await this.lock(trx, owner, id);
      const now = await timeOn(trx, fresh.test_clock_id, this.clock.now());
      const number = await nextNumber(trx, owner, 'A', now.getUTCFullYear());
      const note: CreditNoteRow = { id: newId('cn'), invoice_id: id, merchant_id: owner.merchantId, mode: owner.mode, number, amount, reason: input.reason, refund: 1, created_at: now.toISOString() };
      await trx.insertInto('credit_notes').values(note).execute();
      const credited = fresh.amount_credited + amount;
      const status: InvoiceStatus = credited >= fresh.total ? 'credited' : fresh.status;
      await trx.updateTable('invoices').set({ amount_credited: credited, amount_paid: Math.max(0, fresh.amount_paid - amount), status, updated_at: now.toISOString() }).where('id', '=', id).execute();
      const row = await this.find(trx, owner, id);
      if (status === 'credited') await this.emit(trx, row, payloads.invoiceCredited);
      await closeCheckout(trx, row, now);
      return creditNoteView(note);
    });
  }

  /** Finalized invoices left unpaid past their due date: `overdue` and `invoice.overdue`, once. */
  async markOverdue(scope: ClockScope): Promise<number> {
    const due = await this.db.kysely.selectFrom('invoices').select('id').where('status', 'in', ['open', 'partially_paid']).where('overdue', '=', 0)
      .where('due_date', '<=', scope.now.toISOString()).where(onClock(scope)).limit(100).execute();
    let marked = 0;
    for (const { id } of due) {
      await this.db.transaction(async (trx) => {
        const res = await trx.updateTable('invoices').set({ overdue: 1 }).where('id', '=', id).where('overdue', '=', 0).where('status', 'in', ['open', 'partially_paid']).executeTakeFirst();
        if (Number(res.numUpdatedRows) !== 1) return;
        const row = await trx.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        await this.emit(trx, row, payloads.invoiceOverdue);
        marked += 1;
      });
    }
    return marked;
  }

  timeRules(): TimeRule[] {
    return [{
      name: 'invoice overdue',
      nextDue: async (db, clockId, after) => {
        const row = await db.selectFrom('invoices').select((eb) => eb.fn.min('due_date').as('at')).where('test_clock_id', '=', clockId)
          .where('status', 'in', ['open', 'partially_paid']).where('overdue', '=', 0).where('due_date', '>', after.toISOString()).executeTakeFirst();
        return row?.at ? new Date(row.at) : null;
      },
      run: (scope) => this.markOverdue(scope),
    }];
  }
}

/**
 * What one invoice may print: its lines' descriptions and its memo together, in characters. Its PDF is drawn in
 * seconds of a CPU at most (200 lines of combining or right-to-left text take about 4 s, on a worker thread); more is
 * 400 VALIDATION_ERROR on `lines` at creation or change, before anything is written.
 */
export const MAX_DRAWN_CHARACTERS = 20_000;

function checkDrawable(lines: Array<Pick<InvoiceLine, 'description'>>, memo: string | null): void {
  let count = memo ? [...memo].length : 0;
  for (const line of lines) count += [...line.description].length;
  if (count > MAX_DRAWN_CHARACTERS) {
    throw invalidField('lines', `descriptions and memo hold ${count} characters together; an invoice prints at most ${MAX_DRAWN_CHARACTERS}`);
  }
}
