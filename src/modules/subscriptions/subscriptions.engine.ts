// Charging subscriptions, for one clock scope at a time (the worker's real time, or a test clock's advance):
// 1. open the due dates reached: an active subscription whose next due date has come gets a due-date row (or, first,
//    its cancellation at the period's end, or its end after `endAfter` due dates);
// 2. charge the due dates whose attempt has come: a merchant-initiated payment of the subscription's card, whose id is
//    derived from the subscription, the due date and the attempt's number. The due date is claimed first; a worker
//    that dies mid-charge leaves the claim, and whoever takes it over charges under the same id, which finishes that
//    payment from the acquirer's record instead of making another: a due date is never charged twice.
// 3. record the outcome: paid; or refused, retried on the retry schedule, then unpaid and the subscription past due;
//    a card the acquirer no longer knows revokes the mandate (the wallet does, src/modules/subscriptions/mandates.ts).
import type { Database, Trx } from '../../db/database.js';
import { recordEvent } from '../../events/outbox.js';
import { payloads, type BuiltEvent } from '../../events/payloads.js';
import { addSeconds, type Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { idFromKey } from '../../shared/ids.js';
import type { MerchantPaymentsService } from '../merchant-payments/merchant-payments.service.js';
import type { TimeRule } from '../test-clocks/advance.js';
import { onClock, timeOn, type ClockScope } from '../test-clocks/clock-time.js';
import { dueDate } from './due-dates.js';
import { backToActive } from './dunning.js';
import { issueInvoice, payByCard } from '../invoices/issue.js';
import { cancelNow } from './subscriptions.service.js';
import type { DueDateRow, SubscriptionRow } from './subscriptions.table.js';

const BATCH = 100;
/** Due dates charged side by side in one run. */
const CHARGE_LANES = 16;

/** The id of a due date's charge: the same for every run of the same attempt. */
export function chargeIdFor(subscriptionId: string, due: string, attempt: number): string {
  return idFromKey('pay', ['subscription-charge', subscriptionId, due, String(attempt)]);
}

export class SubscriptionsEngine {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly merchantPayments: MerchantPaymentsService,
    private readonly claimSeconds: number,
    /** Sends a due date's invoice with its payment link (the invoices module's), when its subscription goes past due. */
    private readonly sendInvoice?: (owner: { merchantId: string; mode: SubscriptionRow['mode']; storeId: null }, invoiceId: string) => Promise<unknown>,
  ) {}

  /** Step 1 for the scope's subscriptions. */
  async openDue(scope: ClockScope): Promise<number> {
    const due = await this.db.kysely.selectFrom('subscriptions').select('id')
      .where('status', '=', 'active').where('next_due_date', '<=', scope.now.toISOString()).where(onClock(scope))
      .orderBy('next_due_date').limit(BATCH).execute();
    if (due.length === 0) return 0;
    // One transaction for the batch: each opening is conditional on its row, so a batch rerun or a concurrent worker
    // opens each due date once.
    return this.db.transaction(async (trx) => {
      let opened = 0;
      for (const { id } of due) if (await this.openIn(trx, id, scope.now)) opened += 1;
      return opened;
    });
  }

  private openOne(id: string, now: Date): Promise<boolean> {
    return this.db.transaction((trx) => this.openIn(trx, id, now));
  }

  private async openIn(trx: Trx, id: string, now: Date): Promise<boolean> {
    const sub = await trx.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
    if (!sub || sub.status !== 'active' || sub.next_due_date > now.toISOString()) return false;
    const due = sub.next_due_date;
    // Cancelled at the period's end: before charging the due date that ends it.
    if (sub.cancel_at !== null && due >= sub.cancel_at) return cancelNow(trx, sub, this.clock.now());
    if (sub.end_after !== null && sub.due_count >= sub.end_after) {
      const res = await trx.updateTable('subscriptions').set({ status: 'ended', updated_at: due }).where('id', '=', id).where('status', '=', 'active').executeTakeFirst();
      return Number(res.numUpdatedRows) === 1;
    }
    const next = dueDate(new Date(sub.start_date), sub.interval, sub.interval_count, sub.due_count + 1).toISOString();
    const res = await trx.updateTable('subscriptions').set({ next_due_date: next, due_count: sub.due_count + 1 })
      .where('id', '=', id).where('next_due_date', '=', due).executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    // With invoicing: the due date's invoice, issued before it is charged (and paid by the charge).
    const invoicing = sub.invoicing ? (JSON.parse(sub.invoicing) as { enabled?: boolean; daysUntilDue?: number }) : null;
    const invoice = invoicing?.enabled
      ? await issueInvoice(trx, {
        merchantId: sub.merchant_id, mode: sub.mode, customerId: sub.customer_id, currency: sub.currency, subscriptionId: sub.id,
        lines: [{ description: (sub.description ?? `Abonnement ${sub.id}`).slice(0, 500), quantity: 1, unitPrice: sub.amount, taxRate: 0 }],
        daysUntilDue: invoicing.daysUntilDue ?? 0, testClockId: sub.test_clock_id, now: new Date(due), at: this.clock.now(),
      })
      : null;
    await trx.insertInto('subscription_due_dates').values({
      subscription_id: id, due_date: due, status: 'scheduled', attempts: 0, next_attempt_at: due, claimed_at: null,
      test_clock_id: sub.test_clock_id, invoice_id: invoice?.id ?? null, created_at: due,
    }).onConflict((oc) => oc.columns(['subscription_id', 'due_date']).doNothing()).execute();
    return true;
  }

  /** Steps 2 and 3 for the scope's due dates whose attempt has come (and charges a stopped worker left claimed). */
  async chargeDue(scope: ClockScope): Promise<number> {
    const stale = addSeconds(this.clock.now(), -this.claimSeconds).toISOString();
    const rows = await this.db.kysely.selectFrom('subscription_due_dates').selectAll()
      .where(onClock(scope))
      .where((eb) => eb.or([
        eb.and([eb('status', 'in', ['scheduled', 'retrying']), eb('next_attempt_at', '<=', scope.now.toISOString())]),
        eb.and([eb('status', '=', 'charging'), eb('claimed_at', '<', stale)]),
      ]))
      .orderBy('next_attempt_at').limit(BATCH).execute();
    return this.chargeRows(rows, scope.now, stale);
  }

  /** Claims the rows (one transaction for all), then charges those it got, several at a time. */
  private async chargeRows(rows: DueDateRow[], now: Date, stale: string): Promise<number> {
    if (rows.length === 0) return 0;
    const subs = new Map((await this.db.kysely.selectFrom('subscriptions').selectAll()
      .where('id', 'in', [...new Set(rows.map((r) => r.subscription_id))]).execute()).map((sub) => [sub.id, sub]));
    const claimedAt = this.clock.now().toISOString();
    const claimed = await this.db.transaction(async (trx) => {
      const mine: Array<{ row: DueDateRow; sub: SubscriptionRow }> = [];
      for (const row of rows) {
        const sub = subs.get(row.subscription_id)!;
        const key = trx.updateTable('subscription_due_dates').where('subscription_id', '=', row.subscription_id).where('due_date', '=', row.due_date);
        if (sub.status !== 'active' && sub.status !== 'past_due') {
          // No card to charge (the mandate was revoked), or over: the due date is left as missed.
          await key.set({ status: sub.status === 'waiting_mandate' ? 'skipped' : 'unpaid', next_attempt_at: null, claimed_at: null })
            .where('status', 'in', ['scheduled', 'retrying', 'charging']).execute();
          continue;
        }
        const res = await key.set({ status: 'charging', claimed_at: claimedAt })
          .where((eb) => eb.or([eb('status', 'in', ['scheduled', 'retrying']), eb.and([eb('status', '=', 'charging'), eb('claimed_at', '<', stale)])]))
          .executeTakeFirst();
        if (Number(res.numUpdatedRows) === 1) mine.push({ row, sub });
      }
      return mine;
    });
    // Several at a time: each charge waits on the acquirer and its own commits; the claims keep lanes and workers apart.
    let charged = 0;
    let next = 0;
    const lane = async () => {
      while (next < claimed.length) {
        const { row, sub } = claimed[next++]!;
        const done = await this.chargeClaimed(sub, row, now);
        if (done) charged += 1;
      }
    };
    await Promise.all(Array.from({ length: CHARGE_LANES }, lane));
    return charged;
  }

  private async chargeClaimed(sub: SubscriptionRow, due: DueDateRow, now: Date): Promise<boolean> {
    const attempt = due.attempts + 1;
    const paymentId = chargeIdFor(sub.id, due.due_date, attempt);
    let payment: { status: string; refusalCode: string | null };
    try {
      payment = await this.merchantPayments.chargeAs(
        { merchantId: sub.merchant_id, mode: sub.mode, storeId: null },
        {
          paymentMethodId: sub.payment_method_id!, order: { reference: `SUB-${sub.id.slice(4, 14)}-${due.due_date.slice(0, 10)}`, amount: sub.amount, currency: sub.currency as 'EUR' | 'XPF' },
          captureMode: 'AUTO', notificationUrl: '', storeId: sub.store_id ?? undefined, subscription: { id: sub.id, dueDate: due.due_date },
          ...(sub.private_data ? { privateData: JSON.parse(sub.private_data) as Record<string, unknown> } : {}),
        },
        paymentId,
      );
    } catch (err) {
      // The card is gone (removed between the reading and the charge): the due date is missed. Otherwise (the acquirer
      // cannot be asked) the claim is left to lapse and the due date is tried again then, under the same id.
      if (err instanceof AppError && err.code === 'VALIDATION_ERROR') {
        await this.db.transaction((trx) => trx.updateTable('subscription_due_dates').set({ status: 'skipped', next_attempt_at: null, claimed_at: null })
          .where('subscription_id', '=', due.subscription_id).where('due_date', '=', due.due_date).where('status', '=', 'charging').execute());
      }
      return false;
    }
    if (payment.status === 'pending' || payment.status === 'transit') return false; // finished by whoever takes the claim over
    await this.record(sub, due, attempt, paymentId, payment, now);
    return true;
  }

  private async record(sub: SubscriptionRow, due: DueDateRow, attempt: number, paymentId: string, payment: { status: string; refusalCode: string | null }, now: Date) {
    const at = this.clock.now();
    let pastDue = false;
    await this.db.transaction(async (trx) => {
      const current = await trx.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow();
      /** The due date's row moved from `charging` (the claim this run holds) to its outcome. */
      const settle = (set: Partial<Pick<DueDateRow, 'status' | 'attempts' | 'next_attempt_at' | 'claimed_at'>>) => trx.updateTable('subscription_due_dates').set(set)
        .where('subscription_id', '=', due.subscription_id).where('due_date', '=', due.due_date).where('status', '=', 'charging').executeTakeFirst();
      const base = { subscriptionId: sub.id, dueDate: due.due_date, paymentId, amount: sub.amount, currency: sub.currency, attempt };
      const emit = (event: BuiltEvent) => recordEvent(trx, { merchantId: sub.merchant_id, mode: sub.mode, at, ...event });
      if (payment.status !== 'failed') {
        const res = await settle({ status: 'paid', attempts: attempt, next_attempt_at: null, claimed_at: null });
        if (Number(res.numUpdatedRows) !== 1) return;
        await emit(payloads.subscriptionPaymentSucceeded(base));
        if (due.invoice_id) await payByCard(trx, due.invoice_id, sub.amount, paymentId, now, at);
        if (current.status === 'past_due') await backToActive(trx, current, now);
        return;
      }
      const retries = JSON.parse(current.retry_schedule) as number[];
      if (current.status === 'waiting_mandate') {
        // Its card is gone (unknown at the acquirer): no retry on it; a card attached again with collectMissed charges it.
        const res = await settle({ status: 'skipped', attempts: attempt, next_attempt_at: null, claimed_at: null });
        if (Number(res.numUpdatedRows) === 1) await emit(payloads.subscriptionPaymentFailed({ ...base, refusalCode: payment.refusalCode, nextAttemptAt: null }));
        return;
      }
      if (attempt <= retries.length) {
        const nextAttemptAt = addSeconds(now, retries[attempt - 1]! * 86_400).toISOString();
        const res = await settle({ status: 'retrying', attempts: attempt, next_attempt_at: nextAttemptAt, claimed_at: null });
        if (Number(res.numUpdatedRows) === 1) await emit(payloads.subscriptionPaymentFailed({ ...base, refusalCode: payment.refusalCode, nextAttemptAt }));
        return;
      }
      const res = await settle({ status: 'unpaid', attempts: attempt, next_attempt_at: null, claimed_at: null });
      if (Number(res.numUpdatedRows) !== 1) return;
      await emit(payloads.subscriptionPaymentFailed({ ...base, refusalCode: payment.refusalCode, nextAttemptAt: null }));
      await trx.updateTable('subscriptions').set({ status: 'past_due', updated_at: now.toISOString() }).where('id', '=', sub.id).where('status', '=', 'active').execute();
      await emit(payloads.subscriptionPastDue({ subscriptionId: sub.id, dueDate: due.due_date, paymentId, amountDue: sub.amount }));
      pastDue = true;
    });
    // Dunning goes on through the invoice: sent with its payment link, for the customer to pay by card.
    if (pastDue && due.invoice_id && this.sendInvoice) {
      try {
        await this.sendInvoice({ merchantId: sub.merchant_id, mode: sub.mode, storeId: null }, due.invoice_id);
      } catch {
        // Sent by hand then (POST /api/v1/billing/invoices/{id}/send); the subscription is past due either way.
      }
    }
  }


  /** Opens and charges what is due for one subscription now (its clock's now), as a change of it asks. */
  async runFor(subscriptionId: string): Promise<void> {
    for (let round = 0; round < 50; round++) {
      const sub = await this.db.kysely.selectFrom('subscriptions').select(['id', 'test_clock_id']).where('id', '=', subscriptionId).executeTakeFirst();
      if (!sub) return;
      const now = await timeOn(this.db.kysely, sub.test_clock_id, this.clock.now());
      let moved = (await this.openOne(subscriptionId, now)) ? 1 : 0;
      const stale = addSeconds(this.clock.now(), -this.claimSeconds).toISOString();
      const rows = await this.db.kysely.selectFrom('subscription_due_dates').selectAll().where('subscription_id', '=', subscriptionId)
        .where('status', 'in', ['scheduled', 'retrying']).where('next_attempt_at', '<=', now.toISOString()).execute();
      moved += await this.chargeRows(rows, now, stale);
      if (moved === 0) return;
    }
  }

  /** What a test clock's advance runs for subscriptions (src/modules/test-clocks/advance.ts). */
  timeRules(): TimeRule[] {
    return [
      {
        name: 'subscription due dates',
        nextDue: async (db, clockId, after) => {
          const row = await db.selectFrom('subscriptions').select((eb) => eb.fn.min('next_due_date').as('at'))
            .where('test_clock_id', '=', clockId).where('status', '=', 'active').where('next_due_date', '>', after.toISOString()).executeTakeFirst();
          return row?.at ? new Date(row.at) : null;
        },
        run: (scope) => this.openDue(scope),
      },
      {
        name: 'subscription charges',
        nextDue: async (db, clockId, after) => {
          const row = await db.selectFrom('subscription_due_dates').select((eb) => eb.fn.min('next_attempt_at').as('at'))
            .where('test_clock_id', '=', clockId).where('status', 'in', ['scheduled', 'retrying']).where('next_attempt_at', '>', after.toISOString()).executeTakeFirst();
          return row?.at ? new Date(row.at) : null;
        },
        run: (scope) => this.chargeDue(scope),
      },
    ];
  }
}
