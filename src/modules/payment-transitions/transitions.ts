// Every change of a payment's status, and every `payment.*` event, happens here (docs/payments.md, "Where a payment's
// status changes"). One function per transition, each on the caller's transaction, each doing in order:
//   1. the conditional update: applied only while the payment is in one of the statuses the caller expects, so of two
//      writers racing for the same payment exactly one moves it (the other gets null and records nothing);
//   2. the session change that goes with it;
//   3. the ledger postings (src/modules/ledger/payment-postings.ts), from the same settlement block as the event;
//   4. the event, through the outbox, built from the row as just written (settlement block included).
// The acquirer is never called here: the caller asks it before or after, with no transaction open, and passes its answer
// (the simulator, whose records are rows of this database, writes them on the caller's transaction: LocalRecords).
import { sql } from 'kysely';
import type { AuthorizationView, CardInfo, LocalRecords } from '../../acquirer/acquirer.js';
import { alongside, compiledQuery, type CompiledStatement } from '../../db/compiled.js';
import type { Trx } from '../../db/database.js';
import { recordEvent, type RecordEventInput } from '../../events/outbox.js';
import { payloads, type EventType } from '../../events/payloads.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { PaymentRow, PaymentStatus } from '../payments/payments.table.js';
import * as ledger from '../ledger/payment-postings.js';
import { paymentBase, settlementOf, storeOf, type FeeTermsOf } from './payment-events.js';
import { timeOn } from '../test-clocks/clock-time.js';
import { invoiceSale, invoicesSale } from '../invoices/sales.js';
import { payByCard } from '../invoices/issue.js';
import { distributionOf, isSplit, onSplitRefund, splitCapturePostings } from '../splits/split-payments.js';
import { addCapture } from '../back-office/capture-volume.js';

/** A payment still waiting for a card: the checkout may authorize it, the cardholder or the merchant cancel it. */
export const AWAITING_CARD: readonly PaymentStatus[] = ['pending', 'failed'];
/** Captured, in whole or after refunds: a refund may apply. */
export const REFUNDABLE: readonly PaymentStatus[] = ['captured', 'partially_refunded', 'refunded'];

// The statements every payment runs, compiled once (src/db/compiled.ts).
const paymentById = compiledQuery((db, p: { id: string }) => db.selectFrom('payments').selectAll().where('id', '=', p.id));
const captureTransit = compiledQuery((db, p: { id: string; amount: number; at: string }) => db.updateTable('payments')
  .set({ status: 'captured', captured_amount: p.amount, captured_at: p.at, operation: null, operation_at: null, updated_at: p.at })
  .where('id', '=', p.id).where('status', '=', 'transit').returningAll());
const completeSession = compiledQuery((db, p: { id: string; at: string }) =>
  db.updateTable('payment_sessions').set({ status: 'complete', completed_at: p.at }).where('id', '=', p.id));
const completeOpenSession = compiledQuery((db, p: { id: string; at: string }) =>
  db.updateTable('payment_sessions').set({ status: 'complete', completed_at: p.at }).where('id', '=', p.id).where('status', '=', 'open'));

interface AuthorizeValues {
  id: string;
  now: string;
  authorizationId: string;
  cardBrand?: string;
  cardLast4?: string;
  cardNetwork?: string;
  operation: string | null;
  operationAt: string | null;
  [from: `from${number}`]: PaymentStatus;
}

/** authorize's update, compiled once per shape: with the card's columns or not, counting an attempt or not, from n statuses. */
const authorizeUpdates = new Map<string, CompiledStatement<AuthorizeValues, PaymentRow>>();
function authorizeUpdate(withCard: boolean, newAttempt: boolean, statuses: number): CompiledStatement<AuthorizeValues, PaymentRow> {
  const key = `${withCard}:${newAttempt}:${statuses}`;
  let statement = authorizeUpdates.get(key);
  if (statement === undefined) {
    statement = compiledQuery((db, p: AuthorizeValues) => db.updateTable('payments').set((eb) => ({
      status: 'transit', authorized_amount: eb.ref('amount'), authorized_at: p.now, refusal_code: null, refusal_message: null,
      acquirer_authorization_id: p.authorizationId,
      ...(withCard ? { card_brand: p.cardBrand, card_last4: p.cardLast4, card_network: p.cardNetwork } : {}), updated_at: p.now,
      operation: p.operation, operation_at: p.operationAt,
      ...(newAttempt ? { authorization_attempts: eb('authorization_attempts', '+', 1) } : {}),
    })).where('id', '=', p.id).where('status', 'in', Array.from({ length: statuses }, (_, i) => p[`from${i}`])).returningAll());
    authorizeUpdates.set(key, statement);
  }
  return statement;
}

function reload(trx: Trx, paymentId: string): Promise<PaymentRow> {
  return paymentById.executeTakeFirstOrThrow(trx, { id: paymentId });
}

/**
 * A payment of a customer on a test clock keeps its dates in the clock's time, so the rules that read them (the
 * authorization's 7 days, settlement) run when the clock moves. The update above wrote the real time; this rewrites
 * those columns. Payments on no clock (all live ones) pay nothing for it.
 */
async function onItsClock(trx: Trx, row: PaymentRow, column: 'authorized_at' | 'captured_at'): Promise<PaymentRow> {
  if (!row.test_clock_id) return row;
  const at = (await timeOn(trx, row.test_clock_id, new Date(row.updated_at))).toISOString();
  await trx.updateTable('payments').set({ [column]: at, updated_at: at }).where('id', '=', row.id).execute();
  return reload(trx, row.id);
}

function applied(res: { numUpdatedRows: bigint }): boolean {
  return Number(res.numUpdatedRows) === 1;
}

async function emit<T extends EventType>(trx: Trx, row: PaymentRow, at: Date, event: Pick<RecordEventInput<T>, 'type' | 'data'>): Promise<void> {
  // A split payment's events carry its platformDistribution (src/modules/splits); others pay one string test for it.
  if (isSplit(row)) event = await withDistribution(trx, row, event);
  await recordEvent(trx, {
    merchantId: row.merchant_id, mode: row.mode, paymentId: row.id, notificationUrl: row.notification_url, at, ...event,
  });
}

async function withDistribution<E extends { data: unknown }>(trx: Trx, row: PaymentRow, event: E): Promise<E> {
  const data = event.data as { settlement?: { mobupayCommission: number } };
  const fees = (data.settlement ?? await settlementOf(trx, row)).mobupayCommission;
  return { ...event, data: { ...data, platformDistribution: await distributionOf(trx, row, fees) } };
}

function cardColumns(card: CardInfo | null | undefined) {
  return card ? { card_brand: card.brand, card_last4: card.last4, card_network: card.network } : {};
}

/**
 * One more authorization asked of the acquirer for this payment (the fee lines bill each). `authorize` and `fail` count
 * the answer they record; a caller counts here a new authorization that moves nothing (a 3-D Secure challenge, or an
 * answer that lost to a concurrent attempt: a transition that returns null counted nothing).
 */
export async function countAttempt(trx: Trx, paymentId: string): Promise<void> {
  await trx.updateTable('payments').set((eb) => ({ authorization_attempts: eb('authorization_attempts', '+', 1) }))
    .where('id', '=', paymentId).execute();
}

export interface AuthorizeInput {
  paymentId: string;
  /** The statuses it may be authorized from. */
  from: readonly PaymentStatus[];
  authorizationId: string;
  card: CardInfo | null;
  at: Date;
  /** The answer is a new authorization at the acquirer (false: the end of a 3-D Secure challenge, counted already). */
  newAttempt: boolean;
  /** Takes the capture claim in the same write: a capture of the whole amount follows at once (AUTO). */
  claimCapture?: boolean;
  /**
   * Runs on the transaction after the update and before the event (the checkout attaches the customer and card);
   * returns whether it wrote the payment (then read again for the event).
   */
  beforeEvent?: (row: PaymentRow) => Promise<boolean>;
  /** The contract's fee terms from the caller's ReferenceCache; read on the transaction without it. */
  feeTerms?: FeeTermsOf;
}

/** pending/failed → transit, with `payment.authorized`. Null when the payment was no longer in `from`. */
export async function authorize(trx: Trx, input: AuthorizeInput): Promise<PaymentRow | null> {
  const now = input.at.toISOString();
  const { card } = input;
  const from = Object.fromEntries(input.from.map((status, i) => [`from${i}`, status]));
  const updated = await authorizeUpdate(Boolean(card), input.newAttempt, input.from.length).executeTakeFirst(trx, {
    ...from, id: input.paymentId, now, authorizationId: input.authorizationId,
    ...(card ? { cardBrand: card.brand, cardLast4: card.last4, cardNetwork: card.network } : {}),
    operation: input.claimCapture ? 'capture' : null, operationAt: input.claimCapture ? now : null,
  });
  if (!updated) return null;
  // The row as written (RETURNING: no read of it back), read again only when beforeEvent wrote it.
  let written: PaymentRow = updated;
  if (input.beforeEvent && await input.beforeEvent(written)) written = await reload(trx, input.paymentId);
  const row = await onItsClock(trx, written, 'authorized_at');
  // An authorization moves no money yet: the ledger writes at capture, or at cancellation for its fees.
  await emit(trx, row, input.at, payloads.paymentAuthorized({
    ...paymentBase(row, await storeOf(trx, row)), status: 'transit', customerId: row.customer_id, customerCreated: row.customer_created === 1,
    paymentMethodId: row.payment_method_id, cardBrand: row.card_brand, cardLast4: row.card_last4,
    grossAmount: row.amount, originalCurrency: row.currency, settlement: await settlementOf(trx, row, undefined, await input.feeTerms?.(trx, row.contract_id)),
  }));
  // A MANUAL payment's session is done once authorized; an AUTO one's once captured.
  if (row.session_id && row.capture_mode === 'MANUAL') {
    // No answer read: on PostgreSQL it goes with the COMMIT (deferWrite).
    await completeSession.defer(trx, { id: row.session_id, at: now });
  }
  return row;
}

export interface FailInput {
  paymentId: string;
  from: readonly PaymentStatus[];
  refusalCode: string;
  refusalMessage: string;
  /** The card the acquirer refused, when it said. */
  card?: CardInfo | null;
  /** The refused authorization, kept on the payment when given. */
  authorizationId?: string;
  /** A claim left on the failed payment (a watch for a late authorization); none when absent. */
  operation?: string | null;
  at: Date;
  /** The refusal is a new authorization at the acquirer (false: none was made, or a 3-D Secure challenge counted already). */
  newAttempt: boolean;
}

/** → failed with its refusal code, and `payment.failed`. Null when the payment was no longer in `from`. */
export async function fail(trx: Trx, input: FailInput): Promise<PaymentRow | null> {
  const now = input.at.toISOString();
  const res = await trx.updateTable('payments').set((eb) => ({
    status: 'failed', refusal_code: input.refusalCode, refusal_message: input.refusalMessage, ...cardColumns(input.card), updated_at: now,
    operation: input.operation ?? null, operation_at: input.operation ? now : null,
    ...(input.authorizationId !== undefined ? { acquirer_authorization_id: input.authorizationId } : {}),
    ...(input.newAttempt ? { authorization_attempts: eb('authorization_attempts', '+', 1) } : {}),
  })).where('id', '=', input.paymentId).where('status', 'in', input.from).executeTakeFirst();
  if (!applied(res)) return null;
  const row = await reload(trx, input.paymentId);
  // A failure moves no money.
  await emit(trx, row, input.at, payloads.paymentFailed({
    ...paymentBase(row, await storeOf(trx, row)), refusalCode: input.refusalCode, refusalMessage: input.refusalMessage,
  }));
  return row;
}

export interface CaptureInput {
  paymentId: string;
  /** What the acquirer captured (original currency). */
  amount: number;
  /** The claim the capture ran under, released whether or not this call moved the payment; null: none. */
  operation: string | null;
  at: Date;
  /** As AuthorizeInput's. */
  feeTerms?: FeeTermsOf;
}

/**
 * Whether the row `capture` returned is all its transaction wrote of the payment's detail (GET /payments/{id}): the
 * payment's row as committed, no refund of it (none can exist while it is in transit). Not so when the capture paid an
 * invoice (the payment's own, or the sale it issues): what the card paid beyond what the invoice owed is refunded on
 * the payment in the same transaction (a refund row, and refund_reserved on the payment after the row was returned).
 */
export function capturedRowIsWhole(row: PaymentRow): boolean {
  return row.invoice_id === null && !invoicesSale(row);
}

/**
 * The capture of an acquirer whose records are rows of this database (LocalRecords) and `capture`'s record of it, on
 * `trx`, sent together (alongside: on PostgreSQL one round trip). `refused`: the acquirer's statement changed nothing,
 * and the caller undoes the transaction; otherwise `capture`'s answer. `withAttempts`: the payment's attempts too, as
 * the transaction leaves them (what the merchant's capture answers), read right after the acquirer's capture in the
 * same message: no round trip of their own after the commit.
 */
export async function captureWithLocal(
  trx: Trx, local: LocalRecords, input: CaptureInput & { mode: Mode; authorizationId: string; withAttempts?: boolean },
): Promise<{ refused: true } | { refused: false; row: PaymentRow | null; attempts?: AuthorizationView[] }> {
  const { statement, answer } = local.captureStatement(trx, { mode: input.mode, authorizationId: input.authorizationId, amount: input.amount });
  if (!input.withAttempts) {
    const [changed, row] = await alongside(trx, statement, () => capture(trx, input));
    return answer(changed.changed).ok ? { refused: false, row } : { refused: true };
  }
  const read = local.attemptsIn(trx, input.mode, input.paymentId);
  const [changed, [attempts, row]] = await alongside(trx, statement, () => alongside(trx, read.statement, () => capture(trx, input)));
  return answer(changed.changed).ok ? { refused: false, row, attempts: read.answer(attempts.rows) } : { refused: true };
}

/**
 * transit → captured, its session complete, and `payment.captured`, once whoever observed the capture (the request,
 * the recovery job, the expiry job, the settlement report). Null when it was no longer in transit.
 */
export async function capture(trx: Trx, input: CaptureInput): Promise<PaymentRow | null> {
  const now = input.at.toISOString();
  const captured = await captureTransit.executeTakeFirst(trx, { id: input.paymentId, amount: input.amount, at: now });
  // Applied, the update released every claim already (operation null); otherwise the caller's claim is released here.
  if (!captured) {
    if (input.operation) await releaseClaim(trx, input.paymentId, input.operation);
    return null;
  }
  const row = await onItsClock(trx, captured, 'captured_at');
  // A MANUAL payment's session was completed with its authorization (authorize, above): only an AUTO one's is left.
  if (row.session_id && row.capture_mode !== 'MANUAL') {
    await completeOpenSession.run(trx, { id: row.session_id, at: now });
  }
  const settlement = await settlementOf(trx, row, undefined, await input.feeTerms?.(trx, row.contract_id));
  // A split payment's shares (its platform's and sellers' postings) go with the capture's own.
  await ledger.onCapture(trx, row, settlement, input.at, splitCapturePostings(row, input.at));
  // The home's volume: this capture added to its hour (after the running balances, so on the same slot, in the same order).
  await addCapture(trx, row);
  // A sale to invoice (order.invoicing.enabled): issued and paid with the capture. A payment from an invoice's page
  // pays that invoice.
  await invoiceSale(trx, row, input.at);
  if (row.invoice_id) await payByCard(trx, row.invoice_id, row.captured_amount, row.id, new Date(row.captured_at ?? now), input.at);
  await emit(trx, row, input.at, payloads.paymentCaptured({
    ...paymentBase(row, await storeOf(trx, row), row.captured_amount),
    grossAmount: row.captured_amount, originalCurrency: row.currency, settlement,
  }));
  return row;
}

export interface CancelInput {
  paymentId: string;
  from: readonly PaymentStatus[];
  /** 'merchant_api': the merchant's cancel; 'porteur': the cardholder's cancel link on the hosted page. */
  by: 'merchant_api' | 'porteur';
  at: Date;
}

/** → cancelled (any claim released), its open session cancelled, and `payment.cancelled`. Null when no longer in `from`. */
export async function cancel(trx: Trx, input: CancelInput): Promise<PaymentRow | null> {
  const now = input.at.toISOString();
  const res = await trx.updateTable('payments').set({ status: 'cancelled', operation: null, operation_at: null, updated_at: now })
    .where('id', '=', input.paymentId).where('status', 'in', input.from).executeTakeFirst();
  if (!applied(res)) return null;
  const row = await reload(trx, input.paymentId);
  if (row.session_id) {
    await trx.updateTable('payment_sessions').set({ status: 'cancelled', completed_at: now }).where('id', '=', row.session_id).where('status', '=', 'open').execute();
  }
  const settlement = await settlementOf(trx, row);
  await ledger.onCancelUncaptured(trx, row, settlement, input.at);
  await emit(trx, row, input.at, payloads.paymentCancelled({
    ...paymentBase(row, await storeOf(trx, row)), cancelledBy: input.by, settlement,
  }));
  return row;
}

export interface ExpireInput {
  paymentId: string;
  from: readonly PaymentStatus[];
  /** The expiry's claim: the update applies only under it, and releases it. */
  operation?: string;
  at: Date;
}

/**
 * → expired, and `payment.expired`: a session that ran out (the caller expired the session first), or an authorization
 * left uncaptured too long. Null when no longer in `from` (or the claim was lost).
 */
export async function expire(trx: Trx, input: ExpireInput): Promise<PaymentRow | null> {
  const now = input.at.toISOString();
  let q = trx.updateTable('payments')
    .set(input.operation ? { status: 'expired', operation: null, operation_at: null, updated_at: now } : { status: 'expired', updated_at: now })
    .where('id', '=', input.paymentId).where('status', 'in', input.from);
  if (input.operation) q = q.where('operation', '=', input.operation);
  if (!applied(await q.executeTakeFirst())) return null;
  const row = await reload(trx, input.paymentId);
  // An expiry moves no money: its event announces no fee, and the ledger charges none.
  await emit(trx, row, input.at, payloads.paymentExpired(paymentBase(row, await storeOf(trx, row))));
  return row;
}

export interface SettleInput {
  paymentId: string;
  /** When the acquirer settled it (its report). */
  settledAt: string;
  at: Date;
}

/**
 * Settled by the acquirer, and `payment.settled` (commission final). The status does not change: a settled payment
 * stays `captured` (or refunded), `settled` says the rest. Null when it was settled already.
 */
export async function settle(trx: Trx, input: SettleInput): Promise<PaymentRow | null> {
  const res = await trx.updateTable('payments').set({ settled: 1, settled_at: input.settledAt, updated_at: input.at.toISOString() })
    .where('id', '=', input.paymentId).where('settled', '=', 0).executeTakeFirst();
  if (!applied(res)) return null;
  const row = await reload(trx, input.paymentId);
  await ledger.onSettle(trx, row, input.at);
  await emit(trx, row, input.at, payloads.paymentSettled({
    ...paymentBase(row, await storeOf(trx, row), row.captured_amount), settlement: await settlementOf(trx, row),
  }));
  return row;
}

export interface RefundAppliedInput {
  paymentId: string;
  /** The refund the acquirer made, already recorded as succeeded on this transaction. */
  refundId: string;
  amount: number;
  at: Date;
}

/**
 * A refund the acquirer made: its reservation becomes refunded, the payment partially_refunded or refunded, and the
 * event of that name. One arithmetic update, so concurrent refunds add up without reading the row first. Null when the
 * payment was not refundable (cannot happen once a refund was reserved).
 */
export async function refundApplied(trx: Trx, input: RefundAppliedInput): Promise<PaymentRow | null> {
  const res = await trx.updateTable('payments').set((eb) => ({
    refunded_amount: eb('refunded_amount', '+', input.amount),
    refund_reserved: eb('refund_reserved', '-', input.amount),
    status: sql<PaymentStatus>`case when captured_amount = refunded_amount + ${input.amount} then 'refunded' else 'partially_refunded' end`,
    updated_at: input.at.toISOString(),
  })).where('id', '=', input.paymentId).where('status', 'in', REFUNDABLE).executeTakeFirst();
  if (!applied(res)) return null;
  const row = await reload(trx, input.paymentId);
  const remaining = row.captured_amount - row.refunded_amount;
  const data = {
    ...paymentBase(row, await storeOf(trx, row)),
    refundId: input.refundId,
    refundOriginalAmount: input.amount,
    totalRefundedOriginalAmount: row.refunded_amount,
    remainingOriginalAmount: remaining,
    originalCurrency: row.currency,
    settlement: await settlementOf(trx, row),
  };
  await ledger.onRefund(trx, row, { id: input.refundId, amount: input.amount }, input.at);
  const shares = await onSplitRefund(trx, row, input.refundId, input.at);
  if (shares) Object.assign(data, { refundDistribution: shares });
  await emit(trx, row, input.at, remaining === 0 ? payloads.paymentRefunded(data) : payloads.paymentPartiallyRefunded(data));
  return row;
}

// Disputes (chargebacks) will be one more transition here, written the same way.

/** Releases a capture, cancel or expiry claim held under `operation` (the acquirer refused, or the caller is done). */
export async function releaseClaim(trx: Trx, paymentId: string, operation: string): Promise<void> {
  await trx.updateTable('payments').set({ operation: null, operation_at: null })
    .where('id', '=', paymentId).where('operation', '=', operation).execute();
}
