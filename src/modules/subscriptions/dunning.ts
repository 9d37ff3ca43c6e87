// A past-due subscription comes back when its unpaid due date is paid: by a retry of the charge (the engine), or by its
// invoice paid another way (its page's card payment, a payment recorded by hand). Then it is active again from the next
// due date after now; the due dates it missed while past due are listed as skipped.
import type { Trx } from '../../db/database.js';
import { timeOn } from '../test-clocks/clock-time.js';
import { dueDate } from './due-dates.js';
import type { DueDateStatus, SubscriptionRow } from './subscriptions.table.js';

/**
 * The due dates a subscription passed while it opened none (past due, or waiting for a mandate), written with the
 * given status, up to `now`; returns the index of the next due date to open.
 */
export async function writeMissedDueDates(trx: Trx, sub: SubscriptionRow, now: Date, status: DueDateStatus, nextAttemptAt: string | null): Promise<number> {
  const start = new Date(sub.start_date);
  let n = sub.due_count;
  for (; (sub.end_after === null || n < sub.end_after) && dueDate(start, sub.interval, sub.interval_count, n) <= now; n++) {
    await trx.insertInto('subscription_due_dates').values({
      subscription_id: sub.id, due_date: dueDate(start, sub.interval, sub.interval_count, n).toISOString(), status, attempts: 0,
      next_attempt_at: nextAttemptAt, claimed_at: null, test_clock_id: sub.test_clock_id, created_at: now.toISOString(),
    }).onConflict((oc) => oc.columns(['subscription_id', 'due_date']).doNothing()).execute();
  }
  return n;
}

export async function backToActive(trx: Trx, sub: SubscriptionRow, now: Date): Promise<void> {
  const n = await writeMissedDueDates(trx, sub, now, 'skipped', null);
  await trx.updateTable('subscriptions')
    .set({ status: 'active', due_count: n, next_due_date: dueDate(new Date(sub.start_date), sub.interval, sub.interval_count, n).toISOString(), updated_at: now.toISOString() })
    .where('id', '=', sub.id).where('status', '=', 'past_due').execute();
}

/** A due date's invoice paid: the due date is paid, and a past-due subscription it held back is active again. */
export async function dueDateInvoicePaid(trx: Trx, invoiceId: string, at: Date): Promise<void> {
  const due = await trx.selectFrom('subscription_due_dates').select(['subscription_id', 'due_date', 'status']).where('invoice_id', '=', invoiceId).executeTakeFirst();
  if (!due || due.status === 'paid') return;
  await trx.updateTable('subscription_due_dates').set({ status: 'paid', next_attempt_at: null, claimed_at: null })
    .where('subscription_id', '=', due.subscription_id).where('due_date', '=', due.due_date).where('status', 'in', ['unpaid', 'retrying', 'scheduled', 'skipped']).execute();
  const sub = await trx.selectFrom('subscriptions').selectAll().where('id', '=', due.subscription_id).executeTakeFirstOrThrow();
  if (sub.status === 'past_due') await backToActive(trx, sub, await timeOn(trx, sub.test_clock_id, at));
}
