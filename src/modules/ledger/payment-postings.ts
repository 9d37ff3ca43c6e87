// The ledger side of a payment's transitions, called by the payment-transitions module on its transaction, with the
// settlement block its event carries: what the ledger writes is exactly what the event announces.
//
// - capture: `payment` (+ the captured amount) and `payment_fee` (− the block's commission), both pending until the
//   payment settles;
// - settlement: those become available (a release, no new transaction);
// - refund: `refund` (− its amount), available at once (it may take the balance below zero; later payments make it up);
// - chargeback: `dispute` and `dispute_fee`, available at once; a won one `dispute_reversal` (inquiries move nothing);
// - cancellation of an uncaptured payment: `payment_fee` (− the authorization fees its event announces), available at
//   once, since nothing will settle. An expired or failed payment's events carry no fee, and nothing is charged.
import type { Trx } from '../../db/database.js';
import type { Settlement } from '../../events/payloads.js';
import type { PaymentRow } from '../payments/payments.table.js';
import { fromEurCents, type Currency } from '../../shared/money.js';
import { post, postMany, releasePayment, type PostInput } from './postings.js';

function ownerOf(payment: PaymentRow) {
  return { merchantId: payment.merchant_id, mode: payment.mode, storeId: payment.store_id };
}

/** The exact EUR total of Motu's fee lines (each line's total, tax included, as the event shows it). */
function feeEur(settlement: Settlement): number {
  return settlement.detailedFees.reduce((sum, line) => sum + line.totalAmountEur, 0);
}

/** The `payment_fee` transaction of the settlement block's commission; none when it is 0. */
function feeInput(payment: PaymentRow, settlement: Settlement, pending: boolean, at: Date): PostInput | null {
  if (settlement.mobupayCommission === 0) return null;
  return {
    owner: ownerOf(payment), type: 'payment_fee', amount: -settlement.mobupayCommission, amountEur: -feeEur(settlement),
    currency: payment.currency, pending, source: { type: 'payment', id: payment.id }, paymentId: payment.id,
    description: 'Motu fees', at,
  };
}

async function fee(trx: Trx, payment: PaymentRow, settlement: Settlement, pending: boolean, at: Date): Promise<void> {
  const input = feeInput(payment, settlement, pending, at);
  if (input) await post(trx, input);
}

/**
 * Both of a capture's transactions, and `also` (a split payment's shares, src/modules/splits), in one postMany: a few
 * statements per table on SQLite (one for a single payment), one in all on PostgreSQL, one addition per running balance.
 */
export async function onCapture(trx: Trx, payment: PaymentRow, settlement: Settlement, at: Date, also: readonly PostInput[] = []): Promise<void> {
  const inputs: PostInput[] = [];
  if (payment.captured_amount > 0) {
    inputs.push({
      owner: ownerOf(payment), type: 'payment', amount: payment.captured_amount, currency: payment.currency, pending: true,
      source: { type: 'payment', id: payment.id }, paymentId: payment.id, description: payment.reference, at,
    });
  }
  const fees = feeInput(payment, settlement, true, at);
  if (fees) inputs.push(fees);
  await postMany(trx, [...inputs, ...also]);
}

export async function onSettle(trx: Trx, payment: PaymentRow, at: Date): Promise<void> {
  await releasePayment(trx, payment.id, at);
}

export async function onRefund(trx: Trx, payment: PaymentRow, refund: { id: string; amount: number }, at: Date): Promise<void> {
  await post(trx, {
    owner: ownerOf(payment), type: 'refund', amount: -refund.amount, currency: payment.currency,
    source: { type: 'refund', id: refund.id }, paymentId: payment.id, description: payment.reference, at,
  });
}

export async function onCancelUncaptured(trx: Trx, payment: PaymentRow, settlement: Settlement, at: Date): Promise<void> {
  if (payment.captured_amount === 0) await fee(trx, payment, settlement, false, at);
}

/**
 * A chargeback opened: `dispute` (− its amount) and `dispute_fee` (− the contract's fee, EUR cents converted to the
 * payment's currency; no tax on it), both available at once. An inquiry moves no money and never comes here.
 */
export async function onDisputeOpened(trx: Trx, payment: PaymentRow, dispute: { id: string; amount: number; amountEur: number; feeEur: number }, at: Date): Promise<void> {
  const source = { type: 'dispute', id: dispute.id };
  await post(trx, {
    owner: ownerOf(payment), type: 'dispute', amount: -dispute.amount, amountEur: -dispute.amountEur, currency: payment.currency,
    source, paymentId: payment.id, description: `Chargeback on ${payment.reference}`, at,
  });
  const fee = fromEurCents(dispute.feeEur, payment.currency as Currency);
  if (fee > 0) {
    await post(trx, {
      owner: ownerOf(payment), type: 'dispute_fee', amount: -fee, amountEur: -dispute.feeEur, currency: payment.currency,
      source, paymentId: payment.id, description: 'Chargeback fee', at,
    });
  }
}

/** A chargeback won: `dispute_reversal` (+ its amount); the fee stays. */
export async function onDisputeWon(trx: Trx, payment: PaymentRow, dispute: { id: string; amount: number; amountEur: number }, at: Date): Promise<void> {
  await post(trx, {
    owner: ownerOf(payment), type: 'dispute_reversal', amount: dispute.amount, amountEur: dispute.amountEur, currency: payment.currency,
    source: { type: 'dispute', id: dispute.id }, paymentId: payment.id, description: `Chargeback won on ${payment.reference}`, at,
  });
}
