// A dispute's transitions, written like the payment's (transitions.ts): each on the caller's transaction, a conditional
// update first (of two writers racing, one moves it), then the money (the payment's disputed amount, the ledger), then
// the event. A dispute does not change the payment's status; it takes back part of what was captured.
import { sql } from 'kysely';
import type { Trx } from '../../db/database.js';
import { recordEvent } from '../../events/outbox.js';
import { payloads, type DisputeData } from '../../events/payloads.js';
import { addSeconds } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { toEurCents, type Currency } from '../../shared/money.js';
import type { DisputeKind, DisputeRow, DisputeStatus } from '../disputes/disputes.table.js';
import * as ledger from '../ledger/payment-postings.js';
import type { PaymentRow } from '../payments/payments.table.js';
import { timeOn } from '../test-clocks/clock-time.js';
import { onInvoiceChargeback, onInvoiceChargebackWon } from '../invoices/issue.js';
import { REFUNDABLE } from './transitions.js';

/** The evidence deadline: 7 days after opening, on the payment's clock. */
export const EVIDENCE_DAYS = 7;

export function disputeEventData(row: DisputeRow): DisputeData {
  return {
    disputeId: row.id, paymentId: row.payment_id, kind: row.kind, reason: row.reason, amount: row.amount,
    currency: row.currency, status: row.status, evidenceDueBy: row.evidence_due_by,
  };
}

export interface OpenDisputeInput {
  paymentId: string;
  kind: DisputeKind;
  reason: string;
  /** Minor units; absent: what is left of the captured amount (captured − refunded − refunding − disputed). */
  amount?: number;
  /** The acquirer's notification it comes from: a second notice of the same one opens nothing. */
  acquirerNotice?: string;
  at: Date;
}

/**
 * Opens a dispute on a captured payment, with `dispute.created`. A chargeback adds its amount to the payment's
 * disputed amount (conditionally: never beyond what is left of the capture) and writes its ledger entries. Null when
 * the payment cannot be disputed for that amount (not captured, nothing left, or more than is left).
 */
export async function openDispute(trx: Trx, input: OpenDisputeInput): Promise<DisputeRow | null> {
  const payment = await trx.selectFrom('payments').selectAll().where('id', '=', input.paymentId).executeTakeFirst();
  if (!payment || !REFUNDABLE.includes(payment.status)) return null;
  const left = payment.captured_amount - payment.refunded_amount - payment.refund_reserved - payment.disputed_amount;
  const amount = input.amount ?? left;
  if (amount < 1 || amount > left) return null;
  if (input.kind === 'chargeback') {
    const res = await trx.updateTable('payments').set((eb) => ({ disputed_amount: eb('disputed_amount', '+', amount) }))
      .where('id', '=', payment.id).where('status', 'in', REFUNDABLE)
      .where(sql<boolean>`captured_amount - refunded_amount - refund_reserved - disputed_amount >= ${amount}`).executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return null;
  }
  const opened = await timeOn(trx, payment.test_clock_id, input.at);
  const contract = await trx.selectFrom('contracts').select('dispute_fee').where('id', '=', payment.contract_id).executeTakeFirst();
  const row: DisputeRow = {
    id: newId('dp'), merchant_id: payment.merchant_id, mode: payment.mode, store_id: payment.store_id, payment_id: payment.id,
    kind: input.kind, reason: input.reason, amount, currency: payment.currency,
    amount_eur: toEurCents(amount, payment.currency as Currency),
    status: input.kind === 'chargeback' ? 'needs_response' : 'warning_needs_response',
    evidence: null, evidence_submitted_at: null, evidence_due_by: addSeconds(opened, EVIDENCE_DAYS * 86_400).toISOString(),
    test_outcome: null, test_outcome_at: null, acquirer_notice: input.acquirerNotice ?? null, test_clock_id: payment.test_clock_id,
    created_at: opened.toISOString(), closed_at: null, updated_at: opened.toISOString(),
  };
  await trx.insertInto('disputes').values(row).execute();
  if (input.kind === 'chargeback') {
    await ledger.onDisputeOpened(trx, payment, { id: row.id, amount, amountEur: row.amount_eur, feeEur: contract?.dispute_fee ?? 1500 }, input.at);
    // The invoice this payment paid is due again (invoice.disputed).
    await onInvoiceChargeback(trx, payment.id, amount, input.at);
  }
  await emit(trx, payment, input.at, payloads.disputeCreated(disputeEventData(row)));
  return row;
}

const CLOSED: readonly DisputeStatus[] = ['won', 'lost', 'warning_closed'];

export interface MoveDisputeInput {
  disputeId: string;
  /** The statuses it may move from. */
  from: readonly DisputeStatus[];
  to: DisputeStatus;
  /** Written with the move (evidence submitted, the test bank's decision). */
  set?: Partial<Pick<DisputeRow, 'evidence' | 'evidence_submitted_at' | 'test_outcome' | 'test_outcome_at'>>;
  at: Date;
}

/**
 * Moves a dispute on, with `dispute.updated` and its `previousStatus`. A chargeback won gives its amount back
 * (`dispute_reversal`, the payment's disputed amount lowered); lost, the money stays with the cardholder. Null when the
 * dispute was no longer in `from`.
 */
export async function moveDispute(trx: Trx, input: MoveDisputeInput): Promise<DisputeRow | null> {
  const before = await trx.selectFrom('disputes').selectAll().where('id', '=', input.disputeId).executeTakeFirst();
  if (!before || !input.from.includes(before.status)) return null;
  const at = (await timeOn(trx, before.test_clock_id, input.at)).toISOString();
  const res = await trx.updateTable('disputes')
    .set({ ...input.set, status: input.to, updated_at: at, ...(CLOSED.includes(input.to) ? { closed_at: at } : {}) })
    .where('id', '=', before.id).where('status', '=', before.status).executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return null;
  const row = await trx.selectFrom('disputes').selectAll().where('id', '=', before.id).executeTakeFirstOrThrow();
  const payment = await trx.selectFrom('payments').selectAll().where('id', '=', row.payment_id).executeTakeFirstOrThrow();
  if (row.kind === 'chargeback' && input.to === 'won') {
    await trx.updateTable('payments').set((eb) => ({ disputed_amount: eb('disputed_amount', '-', row.amount) })).where('id', '=', payment.id).execute();
    await ledger.onDisputeWon(trx, payment, { id: row.id, amount: row.amount, amountEur: row.amount_eur }, input.at);
    await onInvoiceChargebackWon(trx, payment.id, row.amount, input.at);
  }
  await emit(trx, payment, input.at, payloads.disputeUpdated({ ...disputeEventData(row), previousStatus: before.status }));
  return row;
}

async function emit(trx: Trx, payment: PaymentRow, at: Date, event: ReturnType<typeof payloads.disputeCreated> | ReturnType<typeof payloads.disputeUpdated>) {
  await recordEvent(trx, {
    merchantId: payment.merchant_id, mode: payment.mode, paymentId: payment.id, notificationUrl: payment.notification_url, at, ...event,
  });
}
