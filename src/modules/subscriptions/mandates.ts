// A subscription's mandate is its card. When the card can no longer be charged (deleted by the cardholder or the
// merchant, disabled, unknown at the acquirer), every subscription charging it waits for a mandate: it opens no due
// date until a card is attached again (subscriptions.service.ts). Called by the wallet on the transaction that removes
// the card, so the removal and the revocation commit together.
import type { Trx } from '../../db/database.js';
import { recordEvent } from '../../events/outbox.js';
import { payloads } from '../../events/payloads.js';
import { timeOn } from '../test-clocks/clock-time.js';
import { dueDate } from './due-dates.js';
import { writeMissedDueDates } from './dunning.js';
import type { SubscriptionRow } from './subscriptions.table.js';

export async function revokeMandates(trx: Trx, paymentMethodId: string, reason: 'deleted' | 'disabled' | 'unknown_at_acquirer', at: Date): Promise<number> {
  const subscriptions = await trx.selectFrom('subscriptions').select(['id', 'merchant_id', 'mode'])
    .where('payment_method_id', '=', paymentMethodId).where('status', 'in', ['active', 'past_due']).execute();
  for (const s of subscriptions) {
    const res = await trx.updateTable('subscriptions').set({ status: 'waiting_mandate', payment_method_id: null, updated_at: at.toISOString() })
      .where('id', '=', s.id).where('status', 'in', ['active', 'past_due']).executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) continue;
    await recordEvent(trx, { merchantId: s.merchant_id, mode: s.mode, at, ...payloads.subscriptionMandateRevoked({ subscriptionId: s.id, paymentMethodId, reason }) });
  }
  return subscriptions.length;
}

/**
 * A card attached again to a subscription waiting for a mandate: it is active from the next due date after now (its
 * clock's now). The due dates missed while it waited are listed `skipped`, or, with `collectMissed`, opened now to be
 * charged at once (with those that failed for want of a card). Returns the subscription's new columns for the
 * caller's update, and writes `subscription.mandate_restored` with who attached the card.
 */
export async function restoreMandate(
  trx: Trx, row: SubscriptionRow, paymentMethodId: string, reason: 'integration' | 'merchant' | 'cardholder', collectMissed: boolean, at: Date,
): Promise<Pick<SubscriptionRow, 'status' | 'due_count' | 'next_due_date' | 'payment_method_id'>> {
  const now = await timeOn(trx, row.test_clock_id, at);
  const n = await writeMissedDueDates(trx, row, now, collectMissed ? 'scheduled' : 'skipped', collectMissed ? now.toISOString() : null);
  if (collectMissed) {
    await trx.updateTable('subscription_due_dates').set({ status: 'scheduled', next_attempt_at: now.toISOString() })
      .where('subscription_id', '=', row.id).where('status', 'in', ['skipped', 'unpaid']).execute();
  }
  await recordEvent(trx, { merchantId: row.merchant_id, mode: row.mode, at, ...payloads.subscriptionMandateRestored({ subscriptionId: row.id, paymentMethodId, reason }) });
  return { status: 'active', due_count: n, next_due_date: dueDate(new Date(row.start_date), row.interval, row.interval_count, n).toISOString(), payment_method_id: paymentMethodId };
}

/** The cardholder saved a card through a wallet session or card link made for a subscription: it charges that card now. */
export async function attachFromCardholder(trx: Trx, subscriptionId: string, paymentMethodId: string, at: Date): Promise<void> {
  const row = await trx.selectFrom('subscriptions').selectAll().where('id', '=', subscriptionId).executeTakeFirst();
  if (!row || row.status === 'cancelled' || row.status === 'ended') return;
  const set = row.status === 'waiting_mandate'
    ? await restoreMandate(trx, row, paymentMethodId, 'cardholder', false, at)
    : { payment_method_id: paymentMethodId };
  await trx.updateTable('subscriptions').set({ ...set, updated_at: at.toISOString() }).where('id', '=', row.id).where('status', '=', row.status).execute();
}
