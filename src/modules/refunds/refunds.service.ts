// Refunds of a captured payment (rules in docs/payments.md, Lifecycle), in three steps, never holding a transaction
// across the acquirer call:
//   1. a short transaction locks the payment, checks what is left to refund and writes a pending refund row plus its
//      amount in `refund_reserved`, so the refunds done and under way never exceed what was captured;
//   2. the acquirer refunds under the refund's own id as idempotency reference, with no transaction open;
//   3. a second short transaction records the outcome once (conditional on the refund still pending): a success moves
//      the payment through the payment transitions (its event and ledger postings), a refusal releases the reservation.
// A refund left pending by a stopped process is finished by the scheduler's recover-refunds job from the acquirer's
// record of the reference.
import type { Acquirers } from '../../acquirer/acquirers.js';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, notFound, validationError } from '../../shared/errors.js';
import { idForKeyUse, idFromKey, keyUseParts, newTimeOrderedId } from '../../shared/ids.js';
import type { Owner } from '../merchants/principal.js';
import * as transitions from '../payment-transitions/transitions.js';
import { lockOwnedPayment, ownedPayment } from '../payments/payments.repository.js';
import type { PaymentRow } from '../payments/payments.table.js';
import type { RefundRow } from './refunds.table.js';
import { reserveOnPayment } from './refunds.repository.js';
import { refundView } from './refunds.views.js';
import { releaseShares, reserveShares, type GivenShare } from '../splits/split-payments.js';

// A fully refunded payment stays refundable in status: a refund of it is one beyond what is left (REFUND_EXCEEDS_CAPTURED).
const REFUNDABLE = transitions.REFUNDABLE;

export interface RefundInput {
  amountCents?: number;
  amount?: number;
  reason?: string;
  /** A split payment: what each seller gives back (src/modules/splits/split-payments.ts). */
  distribution?: GivenShare[];
}

export class RefundsService {
  constructor(private readonly db: Database, private readonly clock: Clock, private readonly acquirers: Acquirers) {}

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
    await this.acquirers.requireLive(owner); // 503 before anything is reserved when live mode has no connector
    return this.db.transaction(async (trx) => {
      const p = await lockOwnedPayment(this.db, trx, owner, id);
      let refundId = newTimeOrderedId('re');
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
      // What open or lost chargebacks took back is the cardholder's already: a refund may not reach into it.
      const undisputed = refundable - p.disputed_amount;
      const amount = requested ?? undisputed;
      if (p.disputed_amount > 0 && amount > undisputed && amount <= refundable || (requested === undefined && undisputed < 1 && refundable > 0)) {
        throw new AppError('PAYMENT_DISPUTED', `Cannot refund ${amount} ${p.currency}: ${p.disputed_amount} ${p.currency} of it is disputed, ${Math.max(0, undisputed)} ${p.currency} can be refunded`, {
          requested: amount, refundable: Math.max(0, undisputed), disputedAmount: p.disputed_amount, currency: p.currency,
        });
      }
      if (amount < 1 || amount > refundable) {
        throw new AppError('REFUND_EXCEEDS_CAPTURED', `Cannot refund ${amount} ${p.currency}: ${refundable} ${p.currency} is left to refund`, {
          requested: amount, refundable, capturedAmount: p.captured_amount, refundedAmount: p.refunded_amount, currency: p.currency,
        });
      }
      const refund = await reserveOnPayment(trx, p, { id: refundId, amount, reason: input.reason ?? null, at: this.clock.now() });
      await reserveShares(trx, p, refund, input.distribution);
      return { payment: p, refund };
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
      const now = this.clock.now().toISOString();
      const claimed = await trx.updateTable('refunds')
        .set(failure ? { status: 'failed', failure_reason: failure, updated_at: now } : { status: 'succeeded', updated_at: now })
        .where('id', '=', refund.id).where('status', '=', 'pending').executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) {
        return trx.selectFrom('refunds').selectAll().where('id', '=', refund.id).executeTakeFirstOrThrow();
      }
      if (failure) {
        await trx.updateTable('payments').set((eb) => ({ refund_reserved: eb('refund_reserved', '-', refund.amount) })).where('id', '=', refund.payment_id).execute();
        await releaseShares(trx, refund.id);
        return trx.selectFrom('refunds').selectAll().where('id', '=', refund.id).executeTakeFirstOrThrow();
      }
      await transitions.refundApplied(trx, { paymentId: refund.payment_id, refundId: refund.id, amount: refund.amount, at: this.clock.now() });
      return trx.selectFrom('refunds').selectAll().where('id', '=', refund.id).executeTakeFirstOrThrow();
    });
  }

  async listRefunds(owner: Owner, id: string) {
    if (!(await ownedPayment(this.db.kysely, owner, id).executeTakeFirst())) throw notFound('payment', id);
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
