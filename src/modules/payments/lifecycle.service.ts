// The merchant's capture and cancel of a payment (rules in docs/payments.md, Lifecycle); refunds, which follow the
// same three steps, are src/modules/refunds.
//
// Serialization without holding a transaction across the acquirer call (a slow acquirer must never keep rows locked):
//   1. a claim is written on the payment, `operation`, only if its state allows it: for a capture one conditional
//      UPDATE that makes the checks; for a cancel a short transaction that locks the row (FOR UPDATE where several
//      processes share the database; SQLite runs write transactions one at a time already) and checks it first;
//   2. the acquirer is called with no transaction open;
//   3. a second short transaction writes the outcome and its event (transactional outbox), conditional on the
//      claim still being ours; a refused call releases the claim.
// So two captures never both reach the acquirer and a cancel and a capture exclude each other, on both databases. A claim older than
// `claimTtlSeconds` (MOTU_OPERATION_CLAIM_SECONDS, default CLAIM_TTL_SECONDS) is considered abandoned (crash between
// 1 and 3) and may be taken again; the acquirer's own state then tells what happened (see `resolveAbandonedClaim`).
// A capture by an acquirer whose records are rows of this database (the simulator, LocalRecords) takes the three steps
// in one transaction instead (captureLocally): one commit, and nothing abandoned for the recovery to find.
import { AcquirerOutcomeUnknown, localRecords, type Acquirer, type AuthorizationView, type Keep, type LocalRecords } from '../../acquirer/acquirer.js';
import type { Acquirers } from '../../acquirer/acquirers.js';
import type { Database, Trx } from '../../db/database.js';
import { undoable } from '../../db/undo.js';
import type { Owner } from '../merchants/principal.js';
import { addSeconds, type Clock } from '../../shared/clock.js';
import { AppError, notFound, validationError } from '../../shared/errors.js';
import { idForKeyUse, idFromKey, keyUseParts, newId } from '../../shared/ids.js';
import { isCurrency, toEurCents } from '../../shared/money.js';
import { compiledQuery, type CompiledStatement } from '../../db/compiled.js';
import type { Mode } from '../merchants/merchants.table.js';
import * as transitions from '../payment-transitions/transitions.js';
import { cachedFeeTerms, type FeeTermsOf } from '../payment-transitions/payment-events.js';
import { ReferenceCache } from '../../db/reference-cache.js';
import { lockOwnedPayment, ownedPayment } from './payments.repository.js';
import type { PaymentRow } from './payments.table.js';

/**
 * What a capture request wrote, for its answer without reading the payment again: the payment's row as its transaction
 * committed it, and its session's id and expiry (undefined without a session). See PaymentLifecycleService.capture.
 */
export interface Captured {
  row: PaymentRow;
  session: { id: string; expires_at: string } | undefined;
  /** The acquirer's attempts as the capture's transaction committed them, when it read them (LocalRecords); else read after. */
  attempts?: AuthorizationView[];
}

/** Default age after which a capture or cancel claim is abandoned (MOTU_OPERATION_CLAIM_SECONDS). */
export const CLAIM_TTL_SECONDS = 120;
const CANCELLABLE_PENDING = transitions.AWAITING_CARD;

interface ClaimValues { id: string; merchantId: string; mode: Mode; storeId: string; at: string; abandoned: string; amount: number }

/**
 * What a capture reads of the payment it claimed: the acquirer's authorization to capture and how much was
 * authorized, and its session with that session's expiry (null without a session), which the capture's answer shows.
 */
type ClaimedRow = Pick<PaymentRow, 'id' | 'mode' | 'session_id' | 'authorized_amount' | 'acquirer_authorization_id'> & { session_expires_at: string | null };

/**
 * The capture claim's UPDATE, compiled once per shape (src/db/compiled.ts): for a key bound to a store or not, with a
 * partial amount or not. Every capture takes it. It returns only the columns the capture reads, not the whole row (each
 * column returned is read out of the row and made a property of an object: on SQLite the statement took twice as long
 * returning all 48), and the session's expiry (a sub-select in RETURNING, on both databases): a session's expires_at
 * is written once, at its creation, so the capture's answer shows it without reading it again.
 */
const captureClaims = new Map<string, CompiledStatement<ClaimValues, ClaimedRow>>();
function captureClaim(inStore: boolean, withAmount: boolean): CompiledStatement<ClaimValues, ClaimedRow> {
  const key = `${inStore}:${withAmount}`;
  let statement = captureClaims.get(key);
  if (statement === undefined) {
    statement = compiledQuery((db, p: ClaimValues) => db.updateTable('payments').set({ operation: 'capture', operation_at: p.at })
      .where('id', '=', p.id).where('merchant_id', '=', p.merchantId).where('mode', '=', p.mode)
      .$if(inStore, (qb) => qb.where('store_id', '=', p.storeId))
      .where('status', '=', 'transit').where('acquirer_authorization_id', 'is not', null)
      .where((eb) => eb.or([eb('operation', 'is', null), eb('operation_at', 'is', null), eb('operation_at', '<=', p.abandoned)]))
      .$if(withAmount, (qb) => qb.where('authorized_amount', '>=', p.amount))
      .returning(['id', 'mode', 'session_id', 'authorized_amount', 'acquirer_authorization_id'])
      .returning((eb) => eb.selectFrom('payment_sessions').select('payment_sessions.expires_at')
        .whereRef('payment_sessions.id', '=', 'payments.session_id').as('session_expires_at')));
    captureClaims.set(key, statement);
  }
  return statement;
}

export class PaymentLifecycleService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly acquirers: Acquirers,
    /** A capture or cancel claim older than this was abandoned by a stopped process (MOTU_OPERATION_CLAIM_SECONDS). */
    readonly claimTtlSeconds: number = CLAIM_TTL_SECONDS,
  ) {
    this.feeTerms = cachedFeeTerms(new ReferenceCache(db));
  }

  /** Contracts are reference rows: the capture's event finds their fee terms in the process (Database.referenceStamp). */
  private readonly feeTerms: FeeTermsOf;

  private now(): string {
    return this.clock.now().toISOString();
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

  /**
   * Captures `amount` (all that was authorized by default). `retryOf`: the start of an earlier run of the same request
   * (same Idempotency-Key) that died mid-way; if that run captured as asked, this one answers as it would have instead
   * of 422.
   *
   * Returns what this call's capture wrote, from which its answer is built (the detail of GET /payments/{id}); null
   * when the caller must read the payment for it: the retry of an earlier run, a payment another observer (the
   * recovery, the settlement report) captured first, or a capture whose transaction wrote more of the detail than the
   * payment's row (capturedRowIsWhole).
   */
  async capture(owner: Owner, id: string, amount?: number, retryOf?: string): Promise<Captured | null> {
    try {
      return await this.captureOnce(owner, id, amount);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'PAYMENT_NOT_CAPTURABLE' && retryOf && await this.capturedSince(owner, id, amount, retryOf))) throw err;
      return null;
    }
  }

  private async captureOnce(owner: Owner, id: string, amount?: number): Promise<Captured | null> {
    await this.acquirers.requireLive(owner); // 503 before anything is claimed when live mode has no connector
    const acquirer = this.acquirers.forMode(owner.mode);
    const local = localRecords(acquirer, this.db);
    if (local) {
      const done = await this.captureLocally(local, owner, id, amount);
      if (done !== undefined) return done;
    }
    const payment = await this.claimCapture(owner, id, amount);
    const authorizationId = payment.acquirer_authorization_id!;
    let captured: number;
    let keep: Keep | undefined;
    try {
      const result = await acquirer.capture({ mode: payment.mode, authorizationId, amount: payment.captureAmount });
      if (result.ok) {
        captured = payment.captureAmount;
        keep = result.keep;
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
      // An unknown outcome (a live acquirer's lost answer) keeps the claim: the recovery reads what the acquirer did.
      if (!(err instanceof AcquirerOutcomeUnknown)) await this.release(payment.id, 'capture');
      throw err;
    }
    return this.answerOf(payment, await this.writeCaptured(payment.id, captured, 'capture', keep));
  }

  /**
   * The capture's three steps in one transaction, for an acquirer whose records are rows of this database
   * (LocalRecords): the same claim (its checks and, on PostgreSQL, the payment's row lock), the acquirer's capture, and
   * Motu's record of it, committed together or not at all. Undefined when the claim does not apply at once or the
   * acquirer refuses: nothing was written, and the steps apart (captureOnce) then run, which say why (404, 422) or
   * record what the acquirer holds.
   */
  private async captureLocally(local: LocalRecords, owner: Owner, id: string, amount?: number): Promise<Captured | null | undefined> {
    const result = await undoable(this.db, async (trx, undo: (value: undefined) => never) => {
      const payment = await captureClaim(Boolean(owner.storeId), amount !== undefined).executeTakeFirst(trx, this.claimValues(owner, id, amount));
      if (!payment) return undo(undefined);
      const captureAmount = amount ?? payment.authorized_amount;
      // The acquirer's capture, then Motu's record of it, sent together; a refusal undoes both. The payment's attempts
      // are read on the same transaction, for the answer (capturedDetail).
      const captured = await transitions.captureWithLocal(trx, local, {
        mode: payment.mode, authorizationId: payment.acquirer_authorization_id!,
        paymentId: payment.id, amount: captureAmount, operation: 'capture', at: this.clock.now(), feeTerms: this.feeTerms, withAttempts: true,
      });
      if (captured.refused) return undo(undefined);
      return { payment, row: captured.row, attempts: captured.attempts };
    });
    if ('undone' in result) return undefined;
    return this.answerOf(result.done.payment, result.done.row, result.done.attempts);
  }

  /** What a capture request answers from the claimed payment and the row its capture wrote (see `capture`). */
  private answerOf(payment: ClaimedRow, row: PaymentRow | null, attempts?: AuthorizationView[]): Captured | null {
    if (!row || !transitions.capturedRowIsWhole(row)) return null;
    if (row.session_id === null) return { row, session: undefined, attempts };
    // A payment's session never changes; the check costs nothing and keeps the answer right if it ever did.
    if (row.session_id !== payment.session_id || payment.session_expires_at === null) return null;
    return { row, session: { id: row.session_id, expires_at: payment.session_expires_at }, attempts };
  }

  /**
   * Step 1 of a capture: the `capture` claim on the payment, taken by one conditional UPDATE that makes the checks too
   * (the owner's payment, authorized and uncaptured, no claim held that is not abandoned, at least `amount`
   * authorized): of two concurrent claims one applies, on both databases, in one statement (on PostgreSQL one round trip
   * where a transaction locking the row took four). When it applies nothing, the payment is read to say why.
   */
  async claimCapture(owner: Owner, id: string, amount?: number): Promise<ClaimedRow & { captureAmount: number }> {
    for (let attempt = 1; ; attempt++) {
      const values = this.claimValues(owner, id, amount);
      const claimed = await this.db.singleWrite((q) => captureClaim(Boolean(owner.storeId), amount !== undefined).executeTakeFirst(q, values));
      if (claimed) return { ...claimed, captureAmount: amount ?? claimed.authorized_amount };
      const p = await ownedPayment(this.db.kysely, owner, id).executeTakeFirst();
      if (!p) throw notFound('payment', id);
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
      // Capturable now: a claim was released between the update and the read. Once more, then the caller retries.
      if (attempt >= 3) throw new AppError('PAYMENT_NOT_CAPTURABLE', `Payment ${id} changed while its capture was being claimed; retry`, { status: p.status });
    }
  }

  /** The capture claim's values, as of now. */
  private claimValues(owner: Owner, id: string, amount: number | undefined): ClaimValues {
    const now = this.clock.now();
    return {
      id, merchantId: owner.merchantId, mode: owner.mode, storeId: owner.storeId ?? '', at: now.toISOString(),
      abandoned: addSeconds(now, -this.claimTtlSeconds).toISOString(), amount: amount ?? 0,
    };
  }

  /**
   * Writes the capture and its event once, whoever observed it (conditional on status transit). The payment's row as
   * written; null when it was no longer in transit (captured already, or moved on).
   */
  async writeCaptured(paymentId: string, amount: number, operation: string | null, keep?: Keep): Promise<PaymentRow | null> {
    return this.db.transaction(async (trx) => {
      await keep?.(trx); // the acquirer's record of the capture, committed with Motu's
      return transitions.capture(trx, { paymentId, amount, operation, at: this.clock.now(), feeTerms: this.feeTerms });
    });
  }

  /**
   * Whether payment `id` was captured as asked (`amount`, else all that was authorized) at or after `since`: what a
   * capture request that died after committing, started at `since`, did. Its retry answers the payment instead of
   * 422 (asked only when the idempotency layer took over such a dead run's key).
   */
  private async capturedSince(owner: Owner, id: string, amount: number | undefined, since: string): Promise<boolean> {
    const p = await this.find(owner, id);
    return !!p && p.captured_at !== null && p.captured_at >= since && p.captured_amount === (amount ?? p.authorized_amount);
  }

  /** Whether payment `id` was cancelled at or after `since` (see capturedSince). */
  private async cancelledSince(owner: Owner, id: string, since: string): Promise<boolean> {
    const p = await this.find(owner, id);
    return !!p && p.status === 'cancelled' && p.updated_at >= since;
  }

  private find(owner: Owner, id: string): Promise<PaymentRow | undefined> {
    return ownedPayment(this.db.kysely, owner, id).executeTakeFirst();
  }

  // ---------- cancel ----------

  /** Cancels the payment; `retryOf` as for capture (an earlier run of the same request that cancelled it). */
  async cancel(owner: Owner, id: string, retryOf?: string): Promise<void> {
    try {
      await this.cancelOnce(owner, id);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'PAYMENT_NOT_CANCELLABLE' && retryOf && await this.cancelledSince(owner, id, retryOf))) throw err;
    }
  }

  private async cancelOnce(owner: Owner, id: string): Promise<void> {
    const claimed = await this.claimCancel(owner, id);
    if (!claimed) return;
    const acquirer = this.acquirers.forMode(claimed.mode);
    try {
      await this.voidAuthorization(acquirer, claimed);
    } catch (err) {
      if (!(err instanceof AcquirerOutcomeUnknown)) await this.release(claimed.id, 'cancel');
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
      const p = await lockOwnedPayment(this.db, trx, owner, id);
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
}
