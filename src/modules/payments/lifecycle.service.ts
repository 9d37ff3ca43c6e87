// The merchant's side of a payment's life: capture, cancel, refund (rules in docs/payments.md, Lifecycle).
//
// Serialization without holding a transaction across the acquirer call (a slow acquirer must never keep rows locked):
//   1. a short transaction locks the payment row (FOR UPDATE where several processes share the database;
//      SQLite runs write transactions one at a time already), checks the state and writes a claim:
//      `operation` for a capture or cancel, a pending refund row plus `refund_reserved` for a refund;
//   2. the acquirer is called with no transaction open;
//   3. a second short transaction writes the outcome and its event (transactional outbox), conditional on the
//      claim still being ours; a refused call releases the claim.
// So two captures never both reach the acquirer, a cancel and a capture exclude each other, and the sum of
// refunds (done and under way) never exceeds what was captured, on both databases. A claim older than
// `claimTtlSeconds` (MOTU_OPERATION_CLAIM_SECONDS, default CLAIM_TTL_SECONDS) is considered abandoned (crash between
// 1 and 3) and may be taken again; the acquirer's own state then tells what happened (see `resolveAbandonedClaim`).
import type { Acquirer } from '../../acquirer/acquirer.js';
import type { Acquirers } from '../../acquirer/acquirers.js';
import type { Database, Trx } from '../../db/database.js';
import type { Owner } from '../merchants/principal.js';
import { addSeconds, type Clock } from '../../shared/clock.js';
import { AppError, notFound, validationError } from '../../shared/errors.js';
import { idForKeyUse, idFromKey, keyUseParts, newId } from '../../shared/ids.js';
import { isCurrency, toEurCents } from '../../shared/money.js';
import * as transitions from '../payment-transitions/transitions.js';
import type { PaymentRow } from './payments.table.js';
import type { RefundRow } from '../refunds/refunds.table.js';

// A key attached to a store acts only on that store's payments (docs/reliability.md, Isolation).

/** Default age after which a capture or cancel claim is abandoned (MOTU_OPERATION_CLAIM_SECONDS). */
export const CLAIM_TTL_SECONDS = 120;
// A fully refunded payment stays here: a refund of it is one beyond what is left (REFUND_EXCEEDS_CAPTURED).
const REFUNDABLE = transitions.REFUNDABLE;
const CANCELLABLE_PENDING = transitions.AWAITING_CARD;

export interface RefundInput {
  amountCents?: number;
  amount?: number;
  reason?: string;
}

export function refundView(refund: RefundRow) {
  return {
    id: refund.id,
    object: 'refund' as const,
    paymentId: refund.payment_id,
    status: refund.status,
    amount: refund.amount,
    currency: refund.currency,
    originalAmount: refund.amount,
    originalCurrency: refund.currency,
    amountCents: refund.amount_eur_cents,
    reason: refund.reason,
    failureReason: refund.failure_reason,
    createdAt: refund.created_at,
  };
}

export class PaymentLifecycleService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly acquirers: Acquirers,
    /** A capture or cancel claim older than this was abandoned by a stopped process (MOTU_OPERATION_CLAIM_SECONDS). */
    readonly claimTtlSeconds: number = CLAIM_TTL_SECONDS,
  ) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** The payment row, locked until the transaction ends where other processes could write it concurrently. */
  /** Payment `id` as `owner` may see it (merchant, mode and, for a store-bound key, store). */
  private owned(db: Trx | Database['kysely'], owner: Owner, id: string) {
    const q = db.selectFrom('payments').selectAll().where('id', '=', id).where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode);
    return owner.storeId ? q.where('store_id', '=', owner.storeId) : q;
  }

  private async lock(trx: Trx, owner: Owner, id: string): Promise<PaymentRow> {
    let q = this.owned(trx, owner, id);
    if (this.db.caps.multiProcess) q = q.forUpdate();
    const row = await q.executeTakeFirst();
    if (!row) throw notFound('payment', id);
    return row;
  }

  /** Another capture, cancel or expiry holds the payment (and its claim is not abandoned). */
  private busy(payment: PaymentRow): boolean {
    return payment.operation !== null && payment.operation_at !== null
      && payment.operation_at > addSeconds(this.clock.now(), -this.claimTtlSeconds).toISOString();
  }

  /**
   * The 422 for a payment another capture, cancel or expiry holds. Not final: that operation may still fail, or its
   * process may have stopped (a request killed mid-way), in which case its claim is abandoned after claimTtlSeconds
   * and the same request succeeds; `retryAfterSeconds` says when (as RATE_LIMITED does).
   */
  private busyError(code: 'PAYMENT_NOT_CAPTURABLE' | 'PAYMENT_NOT_CANCELLABLE', p: PaymentRow): AppError {
    const expires = Date.parse(p.operation_at!) + this.claimTtlSeconds * 1000;
    const retryAfterSeconds = Math.max(1, Math.ceil((expires - this.clock.now().getTime()) / 1000));
    return new AppError(
      code,
      `A ${p.operation} of payment ${p.id} is under way; this is not final: retry in ${retryAfterSeconds} s ` +
        '(if that operation was interrupted, its claim lapses then and the retry proceeds)',
      { status: p.status, operation: p.operation, operationStartedAt: p.operation_at, retryAfterSeconds },
    );
  }

  private async release(paymentId: string, operation: string): Promise<void> {
    await this.db.transaction((trx) => transitions.releaseClaim(trx, paymentId, operation));
  }

  // ---------- capture ----------

  async capture(owner: Owner, id: string, amount?: number): Promise<void> {
    const acquirer = this.acquirers.forMode(owner.mode);
    const payment = await this.claimCapture(owner, id, amount);
    const authorizationId = payment.acquirer_authorization_id!;
    let captured: number;
    try {
      const result = await acquirer.capture({ mode: payment.mode, authorizationId, amount: payment.captureAmount });
      if (result.ok) {
        captured = payment.captureAmount;
      } else {
        // Already captured at the acquirer? A charge made without our capture request is still announced as
        // payment.captured.
        const view = await acquirer.getAuthorization(payment.mode, authorizationId);
        if (view?.status !== 'captured') {
          throw new AppError('PAYMENT_NOT_CAPTURABLE', `The acquirer refused the capture: ${result.reason ?? 'unknown reason'}`, { acquirerStatus: view?.status ?? null });
        }
        captured = view.capturedAmount;
      }
    } catch (err) {
      await this.release(payment.id, 'capture');
      throw err;
    }
    await this.writeCaptured(payment.id, captured, 'capture');
  }

  /** Step 1 of a capture: checks, then the `capture` claim on the payment (one short transaction). */
  async claimCapture(owner: Owner, id: string, amount?: number): Promise<PaymentRow & { captureAmount: number }> {
    return this.db.transaction(async (trx) => {
      const p = await this.lock(trx, owner, id);
      if (p.status !== 'transit' || !p.acquirer_authorization_id) {
        throw new AppError('PAYMENT_NOT_CAPTURABLE', `Payment ${id} is ${p.status}; only an authorized, uncaptured payment can be captured`, { status: p.status });
      }
      if (this.busy(p)) throw this.busyError('PAYMENT_NOT_CAPTURABLE', p);
      const toCapture = amount ?? p.authorized_amount;
      if (toCapture > p.authorized_amount) {
        throw new AppError('PAYMENT_NOT_CAPTURABLE', `Cannot capture ${toCapture}: only ${p.authorized_amount} ${p.currency} was authorized`, {
          requested: toCapture, authorizedAmount: p.authorized_amount,
        });
      }
      await trx.updateTable('payments').set({ operation: 'capture', operation_at: this.now() }).where('id', '=', p.id).execute();
      return { ...p, captureAmount: toCapture };
    });
  }

  /** Writes the capture and its event once, whoever observed it (conditional on status transit). */
  async writeCaptured(paymentId: string, amount: number, operation: string | null): Promise<void> {
    await this.db.transaction((trx) => transitions.capture(trx, { paymentId, amount, operation, at: this.clock.now() }));
  }

  /**
   * Whether payment `id` was captured as asked (`amount`, else all that was authorized) at or after `since`: what a
   * capture request that died after committing, started at `since`, did. Its retry answers the payment instead of
   * 422 (the route asks only when the idempotency layer took over such a dead run's key).
   */
  async capturedSince(owner: Owner, id: string, amount: number | undefined, since: string): Promise<boolean> {
    const p = await this.find(owner, id);
    return !!p && p.captured_at !== null && p.captured_at >= since && p.captured_amount === (amount ?? p.authorized_amount);
  }

  /** Whether payment `id` was cancelled at or after `since` (see capturedSince). */
  async cancelledSince(owner: Owner, id: string, since: string): Promise<boolean> {
    const p = await this.find(owner, id);
    return !!p && p.status === 'cancelled' && p.updated_at >= since;
  }

  private find(owner: Owner, id: string): Promise<PaymentRow | undefined> {
    return this.owned(this.db.kysely, owner, id).executeTakeFirst();
  }

  // ---------- cancel ----------

  async cancel(owner: Owner, id: string): Promise<void> {
    const claimed = await this.claimCancel(owner, id);
    if (!claimed) return;
    const acquirer = this.acquirers.forMode(claimed.mode);
    try {
      await this.voidAuthorization(acquirer, claimed);
    } catch (err) {
      await this.release(claimed.id, 'cancel');
      throw err;
    }
    // The acquirer voided the authorization: the payment is cancelled even if a slow call let the recovery job
    // release our claim meanwhile (conditional on transit: recorded once).
    await this.db.transaction((trx) => this.writeCancelled(trx, claimed.id, 'transit'));
  }

  /**
   * Step 1 of a cancel: a pending/failed payment is cancelled at once (null: nothing left to do); an authorized
   * one gets the `cancel` claim and is returned for the acquirer call.
   */
  async claimCancel(owner: Owner, id: string): Promise<PaymentRow | null> {
    return this.db.transaction(async (trx) => {
      const p = await this.lock(trx, owner, id);
      if (CANCELLABLE_PENDING.includes(p.status)) {
        // Nothing at the acquirer to void: cancelled at once. A checkout attempt finishing later loses its
        // conditional update and voids its own authorization.
        await this.writeCancelled(trx, p.id, p.status);
        return null;
      }
      if (p.status !== 'transit' || !p.acquirer_authorization_id) {
        throw new AppError('PAYMENT_NOT_CANCELLABLE', `Payment ${id} is ${p.status}; only a pending or an authorized, uncaptured payment can be cancelled (refund a captured one)`, { status: p.status });
      }
      if (this.busy(p)) throw this.busyError('PAYMENT_NOT_CANCELLABLE', p);
      await trx.updateTable('payments').set({ operation: 'cancel', operation_at: this.now() }).where('id', '=', p.id).execute();
      return p;
    });
  }

  /**
   * Recovery of a capture or cancel claim abandoned by a stopped process (older than claimTtlSeconds): the
   * acquirer's state decides. Captured → `payment.captured` (once); voided → `payment.cancelled` (once);
   * still authorized → the claim is released (the request never got a 2xx; the merchant may ask again).
   */
  async resolveAbandonedClaim(paymentId: string): Promise<'captured' | 'cancelled' | 'released' | 'skipped'> {
    const now = this.clock.now();
    const stale = addSeconds(now, -this.claimTtlSeconds).toISOString();
    const candidate = await this.db.kysely.selectFrom('payments').select(['id', 'mode', 'operation', 'acquirer_authorization_id'])
      .where('id', '=', paymentId).where('status', '=', 'transit').where('operation', 'in', ['capture', 'cancel'])
      .where('operation_at', '<', stale).executeTakeFirst();
    if (!candidate?.operation || !candidate.acquirer_authorization_id) return 'skipped';
    const operation = candidate.operation;
    // Take the claim over (one recoverer at a time; a live owner would have finished within the TTL).
    const taken = await this.db.transaction((trx) => trx.updateTable('payments').set({ operation_at: now.toISOString() })
      .where('id', '=', paymentId).where('status', '=', 'transit').where('operation', '=', operation).where('operation_at', '<', stale)
      .executeTakeFirst());
    if (Number(taken.numUpdatedRows) !== 1) return 'skipped';
    const view = await this.acquirers.forMode(candidate.mode).getAuthorization(candidate.mode, candidate.acquirer_authorization_id);
    if (view?.status === 'captured') {
      await this.writeCaptured(paymentId, view.capturedAmount, operation);
      return 'captured';
    }
    if (view?.status === 'cancelled') {
      await this.db.transaction((trx) => this.writeCancelled(trx, paymentId, 'transit'));
      return 'cancelled';
    }
    await this.release(paymentId, operation);
    return 'released';
  }

  /** Voids the authorization; fine when the acquirer already shows it voided, refused when it was captured. */
  private async voidAuthorization(acquirer: Acquirer, payment: PaymentRow): Promise<void> {
    const result = await acquirer.cancel({ mode: payment.mode, authorizationId: payment.acquirer_authorization_id! });
    if (result.ok) return;
    const view = await acquirer.getAuthorization(payment.mode, payment.acquirer_authorization_id!);
    if (view?.status === 'cancelled') return;
    throw new AppError('PAYMENT_NOT_CANCELLABLE', `The acquirer refused the cancellation: ${result.reason ?? 'unknown reason'}`, { acquirerStatus: view?.status ?? null });
  }

  /** Cancelled by the merchant, from `from` (someone else moved it first: their event, not a second one). */
  private async writeCancelled(trx: Trx, paymentId: string, from: PaymentRow['status']): Promise<void> {
    await transitions.cancel(trx, { paymentId, from: [from], by: 'merchant_api', at: this.clock.now() });
  }

  // ---------- refunds ----------

  /**
   * A refund: reserve (step 1), the acquirer (step 2), the outcome (step 3). Answers the refund when the acquirer
   * refunded it; 422 when it refused (the reservation is released). When step 2 throws, the refund stays
   * `pending` with its reservation: the acquirer may have refunded it, and `resolvePendingRefund` (the
   * scheduler's recover-refunds job) settles it from the acquirer's own record of the reference.
   * With an Idempotency-Key the refund's id is derived from it (refundIdFor), so a retry that runs again after
   * the first request died mid-way (its in-flight key abandoned) resumes that same refund instead of refunding twice.
   */
  async refund(owner: Owner, id: string, input: RefundInput, idempotencyKey?: string) {
    const { payment, refund } = await this.reserveRefund(owner, id, input, idempotencyKey);
    const done = refund.status === 'pending' ? await this.completeRefund(payment, refund) : refund;
    if (done.status === 'failed') {
      throw new AppError('PAYMENT_NOT_REFUNDABLE', `The acquirer refused the refund: ${done.failure_reason ?? 'refused'}`, { refundId: refund.id });
    }
    return refundView(done);
  }

  /**
   * Step 1: checks, then a `pending` refund row and its amount reserved on the payment, in one short transaction.
   * Under an Idempotency-Key whose refund already exists (an earlier run of the same request), that refund is
   * answered as it stands: nothing new is reserved.
   */
  async reserveRefund(owner: Owner, id: string, input: RefundInput, idempotencyKey?: string): Promise<{ payment: PaymentRow; refund: RefundRow }> {
    if (input.amountCents !== undefined && input.amount !== undefined && input.amountCents !== input.amount) {
      throw validationError([{ field: 'amount', message: `differs from amountCents (${input.amountCents}); give one of them, or the same value` }]);
    }
    const requested = input.amountCents ?? input.amount;
    this.acquirers.forMode(owner.mode); // 503 before anything is reserved when live mode has no connector
    return this.db.transaction(async (trx) => {
      const p = await this.lock(trx, owner, id);
      let refundId = newId('re');
      if (idempotencyKey !== undefined) {
        const keyed = await idForKeyUse(
          (use) => refundIdFor(p.id, idempotencyKey, use),
          (rid) => trx.selectFrom('refunds').selectAll().where('id', '=', rid).executeTakeFirst(),
          this.clock.now(),
        );
        if (keyed.earlier) return { payment: p, refund: keyed.earlier };
        refundId = keyed.id;
      }
      if (!REFUNDABLE.includes(p.status) || !p.acquirer_authorization_id) {
        throw new AppError('PAYMENT_NOT_REFUNDABLE', `Payment ${id} is ${p.status}; only a captured payment can be refunded`, { status: p.status });
      }
      const refundable = p.captured_amount - p.refunded_amount - p.refund_reserved;
      const amount = requested ?? refundable;
      if (amount < 1 || amount > refundable) {
        throw new AppError('REFUND_EXCEEDS_CAPTURED', `Cannot refund ${amount} ${p.currency}: ${refundable} ${p.currency} is left to refund`, {
          requested: amount, refundable, capturedAmount: p.captured_amount, refundedAmount: p.refunded_amount, currency: p.currency,
        });
      }
      const now = this.now();
      const row: RefundRow = {
        id: refundId, payment_id: p.id, merchant_id: p.merchant_id, mode: p.mode, status: 'pending', amount,
        currency: p.currency, amount_eur_cents: isCurrency(p.currency) ? toEurCents(amount, p.currency) : amount,
        reason: input.reason ?? null, failure_reason: null, created_at: now, updated_at: now,
      };
      await trx.insertInto('refunds').values(row).execute();
      await trx.updateTable('payments').set((eb) => ({ refund_reserved: eb('refund_reserved', '+', amount) })).where('id', '=', p.id).execute();
      return { payment: p, refund: row };
    });
  }

  /**
   * Steps 2 and 3: the acquirer refunds under the refund's own id as idempotency reference, then the outcome is
   * recorded. Throws (leaving the refund pending) only when the acquirer cannot be asked.
   */
  async completeRefund(payment: Pick<PaymentRow, 'id' | 'mode' | 'acquirer_authorization_id'>, refund: RefundRow): Promise<RefundRow> {
    const acquirer = this.acquirers.forMode(payment.mode);
    const result = await acquirer.refund({
      mode: payment.mode, authorizationId: payment.acquirer_authorization_id!, amount: refund.amount, reference: refund.id,
    });
    const failure = result.ok ? null : result.reason ?? 'refused by the acquirer';
    return this.finishRefund(refund, failure);
  }

  /**
   * Recovery of a refund left `pending` (the process stopped between steps 1 and 3, or the acquirer could not be
   * reached): the acquirer's record of the reference decides. Refunded → success and its one event; refused →
   * the reservation is released; never received → refunded now under the same reference (never twice).
   */
  async resolvePendingRefund(refund: RefundRow): Promise<RefundRow> {
    const payment = await this.db.kysely.selectFrom('payments').select(['id', 'mode', 'acquirer_authorization_id'])
      .where('id', '=', refund.payment_id).executeTakeFirstOrThrow();
    const acquirer = this.acquirers.forMode(payment.mode);
    const known = await acquirer.getRefund(payment.mode, refund.id);
    if (!known) return this.completeRefund(payment, refund);
    const failure = known.status === 'succeeded' ? null : known.reason ?? 'refused by the acquirer';
    return this.finishRefund(refund, failure);
  }

  /**
   * Releases the reservation and records the outcome; a success also moves the payment and emits one event.
   * Conditional on the refund still being pending: whoever records it first (the request or the recovery job)
   * does it once; the other gets the recorded row.
   */
  private async finishRefund(refund: RefundRow, failure: string | null): Promise<RefundRow> {
    return this.db.transaction(async (trx) => {
      const now = this.now();
      const claimed = await trx.updateTable('refunds')
        .set(failure ? { status: 'failed', failure_reason: failure, updated_at: now } : { status: 'succeeded', updated_at: now })
        .where('id', '=', refund.id).where('status', '=', 'pending').executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) {
        return trx.selectFrom('refunds').selectAll().where('id', '=', refund.id).executeTakeFirstOrThrow();
      }
      if (failure) {
        await trx.updateTable('payments').set((eb) => ({ refund_reserved: eb('refund_reserved', '-', refund.amount) })).where('id', '=', refund.payment_id).execute();
        return trx.selectFrom('refunds').selectAll().where('id', '=', refund.id).executeTakeFirstOrThrow();
      }
      await transitions.refundApplied(trx, { paymentId: refund.payment_id, refundId: refund.id, amount: refund.amount, at: this.clock.now() });
      return trx.selectFrom('refunds').selectAll().where('id', '=', refund.id).executeTakeFirstOrThrow();
    });
  }

  async listRefunds(owner: Owner, id: string) {
    if (!(await this.find(owner, id))) throw notFound('payment', id);
    const rows = await this.db.kysely.selectFrom('refunds').selectAll().where('payment_id', '=', id).orderBy('created_at').orderBy('id').execute();
    return { data: rows.map(refundView), hasMore: false };
  }
}

/**
 * The id of the refund asked under `idempotencyKey` on payment `paymentId`: `re_` + 22 base62 digits of a SHA-256
 * of both, as uniform as a random id. The same key on the same payment always names the same refund (within one use
 * of the key: a key used again after its 24 hours names the next `use`'s refund, see idForKeyUse).
 */
export function refundIdFor(paymentId: string, idempotencyKey: string, use = 0): string {
  return idFromKey('re', keyUseParts(['refund', paymentId, idempotencyKey], use));
}
