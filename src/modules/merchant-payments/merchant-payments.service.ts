// Merchant-initiated payments (POST /api/v1/payments): the merchant's server charges a saved card, with no
// customer present (no 3-D Secure challenge). Same store and contract rules as a payment session (the sessions
// service resolves them), same events and settlement as a hosted payment. A refusal is a value, not an HTTP
// error: the payment is created `failed` with its refusal code, and `payment.failed` is emitted.
//
// Never inside a transaction while the acquirer answers: the payment is written pending first, the
// authorization asked, then its outcome written with its events in a second short transaction.
import { asksForSplit, splitOrderJson, splitPlanOf } from '../splits/platform-config.js';
import { sql } from 'kysely';
import { REFUSAL_MESSAGES, type AuthorizationOutcome, type AuthorizationView, type CardInfo } from '../../acquirer/acquirer.js';
import type { Acquirers } from '../../acquirer/acquirers.js';
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import type { Owner } from '../merchants/principal.js';
import { addSeconds, type Clock } from '../../shared/clock.js';
import { AppError, validationError, type FieldError } from '../../shared/errors.js';
import { idForKeyUse, idFromKey, keyUseParts, newPaymentReference, newTimeOrderedId } from '../../shared/ids.js';
import { toEurCents } from '../../shared/money.js';
import { checkOrderAmount, orderFieldProblems } from '../sessions/order.js';
import { removeUnknownCard } from '../wallet/payment-methods.js';
import { statementLabelOf } from '../payments/statement-label.js';
import * as transitions from '../payment-transitions/transitions.js';
import type { PaymentsService } from '../payments/payments.service.js';
import type { PaymentRow } from '../payments/payments.table.js';
import type { OrderInput } from '../sessions/sessions.schemas.js';
import type { PaymentSessionsService } from '../sessions/sessions.service.js';
import { urlProblem } from '../sessions/urls.js';
import { ownedBy } from '../merchants/scope.js';
import { timeOn } from '../test-clocks/clock-time.js';


export interface MerchantPaymentInput {
  paymentMethodId: string;
  order: OrderInput;
  captureMode?: 'AUTO' | 'MANUAL';
  storeId?: string;
  merchantConfigId?: string;
  notificationUrl: string;
  privateData?: Record<string, unknown>;
  externalId?: string;
  /** A subscription's charge (the subscriptions module's own calls): carried on the payment; no notificationUrl then. */
  subscription?: { id: string; dueDate: string };
}

/** `payments.operation` of a failed payment watched for a late authorization (releaseLateAuthorizations). */
export const RELEASE = 'release';
/** How long after the recovery job failed a payment an authorization coming back late is still looked for. */
export const LATE_AUTHORIZATION_WATCH_HOURS = 24;
/** Refund references tried per authorization when giving it back (`release_<id>`, `release_<id>_1`…). */
const MAX_RELEASE_REFERENCES = 50;

/** A payment written `pending` by step 1, with what the acquirer call needs. */
export interface PendingCharge {
  paymentId: string;
  mode: Owner['mode'];
  cardRef: string;
  amount: number;
  currency: string;
  capture: boolean;
  /** The contract's statement label, passed to the acquirer. */
  statementLabel?: string;
  /** A subscription's due date (a recurring charge at the acquirer), else a one-off charge of the saved card. */
  recurring?: boolean;
}

export class MerchantPaymentsService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly acquirers: Acquirers,
    private readonly sessions: PaymentSessionsService,
    private readonly payments: PaymentsService,
    private readonly config: Pick<Config, 'allowLoopbackUrls' | 'operationClaimSeconds'>,
  ) {}

  /**
   * With `idempotencyKey` the payment id is derived from it (merchantPaymentIdFor): a retry that runs again after the
   * first request was killed mid-way (its in-flight key abandoned) answers the payment that run created, and finishes
   * it when the run stopped before recording the acquirer's answer (`resume`): never a second payment.
   */
  async charge(owner: Owner, input: MerchantPaymentInput, idempotencyKey?: string) {
    let derivedId: string | undefined;
    if (idempotencyKey !== undefined) {
      const keyed = await idForKeyUse((use) => merchantPaymentIdFor(owner, idempotencyKey, use), (id) => this.earlier(owner, id), this.clock.now());
      if (keyed.earlier) return this.resume(owner, keyed.earlier);
      derivedId = keyed.id;
    }
    let pending: PendingCharge;
    try {
      pending = await this.writePending(owner, input, derivedId);
    } catch (err) {
      // The first run committed meanwhile (it outlived its abandoned key): its payment is the answer.
      const earlier = derivedId && this.db.isUniqueViolation(err) ? await this.earlier(owner, derivedId) : undefined;
      if (earlier) return this.resume(owner, earlier);
      throw err;
    }
    await this.authorize(pending);
    return this.payments.get(owner, pending.paymentId);
  }

  /**
   * A charge under an id its caller derived (a subscription's due date and attempt): run again after a crash, it
   * finishes that same payment from the acquirer's record (the id is the authorization's idempotency reference), never
   * a second one.
   */
  async chargeAs(owner: Owner, input: MerchantPaymentInput, id: string): Promise<{ status: string; refusalCode: string | null }> {
    const earlier = await this.earlier(owner, id);
    if (earlier) await this.resume(owner, earlier);
    else {
      let pending: PendingCharge | undefined;
      try {
        pending = await this.writePending(owner, input, id);
      } catch (err) {
        const raced = this.db.isUniqueViolation(err) ? await this.earlier(owner, id) : undefined;
        if (!raced) throw err;
        await this.resume(owner, raced);
      }
      if (pending) await this.authorize(pending);
    }
    // Its outcome only (the caller records it), not the payment's full view.
    const row = await this.db.kysely.selectFrom('payments').select(['status', 'refusal_code']).where('id', '=', id).executeTakeFirstOrThrow();
    return { status: row.status, refusalCode: row.refusal_code };
  }

  /** Step 1: the checks, then the payment written `pending` (one short transaction). */
  async writePending(owner: Owner, input: MerchantPaymentInput, id?: string): Promise<PendingCharge> {
    const fields: FieldError[] = [];
    const problem = input.subscription && input.notificationUrl === ''
      ? undefined
      : urlProblem(input.notificationUrl, 'notification', { mode: owner.mode, allowLoopbackUrls: this.config.allowLoopbackUrls });
    if (problem) fields.push({ field: 'notificationUrl', message: problem });
    fields.push(...orderFieldProblems(input.order));
    await this.acquirers.requireLive(owner, input.merchantConfigId); // 503 before anything is written when live mode has no connector

    return this.db.transaction(async (trx) => {
      const store = await this.sessions.resolveStore(trx, owner, input.storeId);
      const contract = await this.sessions.resolveContract(trx, owner, store, input.merchantConfigId, fields);
      const pm = await trx.selectFrom('payment_methods').selectAll()
        .where('id', '=', input.paymentMethodId).where(ownedBy(owner)).executeTakeFirst();
      if (!pm) throw new AppError('NOT_FOUND', `No payment method with id ${input.paymentMethodId}`, { field: 'paymentMethodId', id: input.paymentMethodId });
      if (pm.status !== 'active') {
        fields.push({ field: 'paymentMethodId', message: `was removed (${pm.removed_reason ?? 'deleted'}); it can no longer be charged` });
      }
      if (fields.length > 0) throw validationError(fields);
      checkOrderAmount(input.order);
      const split = asksForSplit(input.order.platformConfig) ? await splitPlanOf(trx, owner, input.order) : null;
      const charged = split ? split.charge : input.order.amount;
      if (!contract) throw new AppError('BUSINESS_RULE_VIOLATION', 'This merchant has no active default contract; ask the operator to set one');
      // The card's customer on a test clock: the payment lives at the clock's time (subscriptions charge this way).
      const customer = pm.customer_id ? await trx.selectFrom('customers').select('test_clock_id').where('id', '=', pm.customer_id).executeTakeFirst() : undefined;
      const testClockId = customer?.test_clock_id ?? null;
      const now = (await timeOn(trx, testClockId, this.clock.now())).toISOString();
      const payment = {
        id: id ?? newTimeOrderedId('pay'), merchant_id: owner.merchantId, mode: owner.mode, session_id: null, status: 'pending' as const,
        reference: newPaymentReference(), order_reference: input.order.reference ?? null, external_id: input.externalId ?? null,
        amount: charged, currency: input.order.currency, amount_eur_cents: toEurCents(charged, input.order.currency),
        tax_amount: 0, is_incl_tax_amount: 1, order_json: split ? splitOrderJson(input.order, split.plan) : JSON.stringify(input.order), capture_mode: input.captureMode ?? 'AUTO',
        store_id: store?.id ?? null, contract_id: contract.id, customer_id: pm.customer_id, customer_created: 0, email: null,
        save_customer: 0, notification_url: input.notificationUrl,
        private_data: input.privateData && Object.keys(input.privateData).length > 0 ? JSON.stringify(input.privateData) : null,
        authorized_amount: 0, captured_amount: 0, refunded_amount: 0, disputed_amount: 0, refusal_code: null, refusal_message: null,
        payment_method_id: pm.id, card_brand: pm.brand, card_last4: pm.last4, card_network: pm.network,
        authorized_at: null, captured_at: null, settled: 0, acquirer_authorization_id: null, operation: null, operation_at: null,
        refund_reserved: 0, settled_at: null, test_clock_id: testClockId, created_at: now, updated_at: now,
        subscription_id: input.subscription?.id ?? null, due_date: input.subscription?.dueDate ?? null, invoice_id: null,
      };
      await trx.insertInto('payments').values(payment).execute();
      return { paymentId: payment.id, mode: owner.mode, cardRef: pm.acquirer_card_ref, amount: payment.amount, currency: payment.currency, capture: payment.capture_mode === 'AUTO', statementLabel: contract.statement_label || undefined, recurring: payment.subscription_id !== null };
    });
  }

  /**
   * Steps 2 and 3: the acquirer authorizes (no transaction open), then its answer is recorded with its events.
   * The payment's id is the authorization's idempotency reference: a retry or the first run, both asking at once (the
   * first run's call outlived MOTU_OPERATION_CLAIM_SECONDS), get the same single authorization.
   */
  async authorize(pending: PendingCharge): Promise<void> {
    const outcome = await this.acquirers.forMode(pending.mode).authorize({
      mode: pending.mode, source: { cardRef: pending.cardRef }, amount: pending.amount, currency: pending.currency,
      merchantReference: pending.paymentId, reference: pending.paymentId, capture: pending.capture, statementLabel: pending.statementLabel,
      initiated: pending.recurring ? 'recurring' : 'unscheduled',
    });
    if (await this.record(pending.paymentId, outcome, outcome.status !== 'error')) return;
    if (outcome.status === 'authorized') await this.release(pending, outcome);
  }

  /**
   * An authorization that came back after its payment was finished without it: the recovery job failed the payment
   * (`processing_error`, no attempt found) while this call was still waiting on the acquirer. The payment stays failed,
   * as its `payment.failed` event told the merchant, and the money is given back (`giveBack`). Nothing to give back
   * when the payment holds this very authorization (another run recorded it). When the acquirer refuses or fails to
   * give it back now, the request still answers the payment as it stands (failed): the payment is watched
   * (`operation` = 'release') and the `release-late-authorizations` job tries again.
   */
  private async release(pending: PendingCharge, outcome: Extract<AuthorizationOutcome, { status: 'authorized' }>): Promise<void> {
    const payment = await this.db.kysely.selectFrom('payments').select(['status', 'acquirer_authorization_id'])
      .where('id', '=', pending.paymentId).executeTakeFirstOrThrow();
    if (payment.acquirer_authorization_id === outcome.authorizationId) return;
    // An authorization the payment never recorded: asked all the same (the fee lines bill it).
    await this.db.transaction((trx) => transitions.countAttempt(trx, pending.paymentId));
    let given = false;
    try {
      const view = await this.acquirers.forMode(pending.mode).getAuthorization(pending.mode, outcome.authorizationId);
      given = view ? await this.giveBack(pending.mode, view) : false;
    } catch {
      // The acquirer could not be reached: left to the job, below.
    }
    if (!given && payment.status === 'failed') {
      // Watched already when the recovery job failed it; set here too for a payment failed before the watch existed.
      await this.db.transaction((trx) => trx.updateTable('payments').set({ operation: RELEASE, operation_at: this.clock.now().toISOString() })
        .where('id', '=', pending.paymentId).where('status', '=', 'failed').where('operation', 'is', null).execute());
    }
  }

  /**
   * Gives back what the acquirer holds under one authorization of a failed payment: the authorization cancelled, or,
   * captured, what is left of it refunded. True once nothing is held (also when it already was). A refund's reference is
   * `release_` + the authorization id, so a repeat refunds once; when an earlier refund under it was refused, the next
   * try takes the next unused reference (`release_<id>_1`, `_2`…): the acquirer never refunds more than was captured.
   */
  private async giveBack(mode: Owner['mode'], view: AuthorizationView): Promise<boolean> {
    if (!holds(view)) return true; // refused, cancelled, refunded, or a challenge nobody will complete
    const acquirer = this.acquirers.forMode(mode);
    if (view.status === 'authorized') {
      if ((await acquirer.cancel({ mode, authorizationId: view.id })).ok) return true;
      // Cancelled meanwhile by another run: done. Still held (or captured meanwhile): the next look tries again.
      return (await acquirer.getAuthorization(mode, view.id))?.status === 'cancelled';
    }
    const left = view.capturedAmount - view.refundedAmount;
    for (let n = 0; n < MAX_RELEASE_REFERENCES; n++) {
      const reference = n === 0 ? `release_${view.id}` : `release_${view.id}_${n}`;
      const earlier = await acquirer.getRefund(mode, reference);
      if (earlier) continue; // used: its answer stands (refused, or succeeded for an earlier remainder)
      const refunded = await acquirer.refund({ mode, authorizationId: view.id, amount: left, reference });
      if (refunded.ok) return true;
      const after = await acquirer.getAuthorization(mode, view.id);
      return after !== null && after.capturedAmount - after.refundedAmount <= 0;
    }
    return false;
  }

  /**
   * The release-late-authorizations job (worker role): failed merchant-initiated payments watched for an authorization
   * that comes back after the recovery job failed them (`operation` = 'release', set by that failure). Each is looked
   * at with a growing gap (the time since its failure, between the job's period and an hour); whatever the acquirer
   * holds under its id is given back (`giveBack`). The watch ends once LATE_AUTHORIZATION_WATCH_HOURS have passed since
   * the failure with nothing held; while something is held and cannot be given back, it goes on. Answers how many
   * authorizations were given back in this run.
   */
  async releaseLateAuthorizations(now: Date, everyMs: number): Promise<number> {
    const watched = await this.db.kysely.selectFrom('payments').select(['id', 'mode', 'updated_at', 'operation_at'])
      .where('operation', '=', RELEASE).where('status', '=', 'failed')
      .where('operation_at', '<', new Date(now.getTime() - everyMs).toISOString())
      .orderBy('operation_at').limit(100).execute();
    let released = 0;
    for (const payment of watched) {
      const failedAt = Date.parse(payment.updated_at);
      const lookedAt = Date.parse(payment.operation_at!);
      const gap = Math.min(3_600_000, Math.max(everyMs, lookedAt - failedAt));
      if (now.getTime() - lookedAt < gap) continue;
      if (payment.mode === 'live' && !this.acquirers.liveConfigured()) continue;
      let held = false;
      try {
        for (const view of await this.acquirers.forMode(payment.mode).listAuthorizations(payment.mode, payment.id)) {
          if (!holds(view)) continue;
          if (await this.giveBack(payment.mode, view)) released += 1;
          else held = true;
        }
      } catch {
        held = true; // the acquirer could not be asked: looked at again after the gap
      }
      const over = !held && now.getTime() - failedAt >= LATE_AUTHORIZATION_WATCH_HOURS * 3_600_000;
      await this.db.transaction((trx) => trx.updateTable('payments')
        .set(over ? { operation: null, operation_at: null } : { operation_at: now.toISOString() })
        .where('id', '=', payment.id).where('operation', '=', RELEASE).where('operation_at', '=', payment.operation_at).execute());
    }
    return released;
  }

  /**
   * How many failed payments are watched for a late authorization (`operation` = 'release'), and how many of them
   * failed more than LATE_AUTHORIZATION_WATCH_HOURS ago: a watch outlives that only while the acquirer holds something
   * that could not be given back, which wants a person (the /metrics gauges motu_late_authorizations_watched and
   * motu_late_authorizations_overdue).
   */
  async lateAuthorizationWatch(now: Date): Promise<{ watched: number; overdue: number }> {
    const since = new Date(now.getTime() - LATE_AUTHORIZATION_WATCH_HOURS * 3_600_000).toISOString();
    const row = await this.db.kysely.selectFrom('payments')
      .select([
        sql<number>`count(*)`.as('watched'),
        sql<number>`coalesce(sum(case when updated_at < ${since} then 1 else 0 end), 0)`.as('overdue'),
      ])
      .where('operation', '=', RELEASE).where('status', '=', 'failed').executeTakeFirstOrThrow();
    return { watched: Number(row.watched), overdue: Number(row.overdue) };
  }

  private earlier(owner: Owner, id: string) {
    return this.db.kysely.selectFrom('payments').select(['id', 'mode', 'status', 'payment_method_id', 'amount', 'currency', 'capture_mode', 'contract_id', 'created_at', 'subscription_id'])
      .where('id', '=', id).where(ownedBy(owner)).executeTakeFirst();
  }

  /**
   * The payment an earlier run of the same request created, as a replay answers it.
   * Left `pending` (that run stopped between step 1 and step 3): the acquirer's attempts under its id tell whether it
   * was authorized; its last answer is recorded, or, when it never got the call, the card is charged now.
   */
  private async resume(owner: Owner, earlier: NonNullable<Awaited<ReturnType<MerchantPaymentsService['earlier']>>>) {
    // The claim keeps this retry and the recovery job (recoverPending) from both finishing it: one charging the card
    // while the other records it failed. Held by the job: answered as it stands (pending), the job finishes it.
    if (earlier.status === 'pending' && (await this.claimPending(earlier.id, 'authorize'))) {
      const attempts = await this.acquirers.forMode(earlier.mode).listAuthorizations(earlier.mode, earlier.id);
      const last = attempts.at(-1);
      if (last) {
        await this.record(earlier.id, outcomeOf(last), true);
      } else {
        const pm = await this.db.kysely.selectFrom('payment_methods').select('acquirer_card_ref').where('id', '=', earlier.payment_method_id!).executeTakeFirstOrThrow();
        await this.authorize({
          paymentId: earlier.id, mode: earlier.mode, cardRef: pm.acquirer_card_ref, amount: earlier.amount, currency: earlier.currency,
          capture: earlier.capture_mode === 'AUTO', statementLabel: await statementLabelOf(this.db.kysely, earlier.contract_id),
          recurring: earlier.subscription_id !== null,
        });
      }
    }
    return this.payments.get(owner, earlier.id);
  }

  /**
   * Takes the payment's claim (payments.operation) for finishing it: only while it is `pending` and nobody holds a claim
   * younger than MOTU_OPERATION_CLAIM_SECONDS. The request that wrote it holds none (it finishes it in the same run);
   * a retry of that request and the recovery job do.
   */
  private async claimPending(paymentId: string, operation: 'authorize' | 'recover'): Promise<boolean> {
    const now = this.clock.now();
    const stale = addSeconds(now, -this.config.operationClaimSeconds).toISOString();
    const res = await this.db.transaction((trx) =>
      trx.updateTable('payments').set({ operation, operation_at: now.toISOString() })
        .where('id', '=', paymentId).where('status', '=', 'pending')
        .where((eb) => eb.or([eb('operation', 'is', null), eb('operation_at', '<', stale)]))
        .executeTakeFirst());
    return Number(res.numUpdatedRows) === 1;
  }

  /**
   * The recover-merchant-payments job's step for one payment left `pending` (its request stopped between writing it and
   * recording the acquirer's answer, and nobody retried it): the acquirer's last attempt under its id is recorded,
   * or, when the acquirer never got the call, the payment fails without a charge (`processing_error`): nobody is
   * there any more to ask for one. True when this call finished it.
   */
  async recoverPending({ id: paymentId, mode }: { id: string; mode: Owner['mode'] }): Promise<boolean> {
    if (!(await this.claimPending(paymentId, 'recover'))) return false;
    const last = (await this.acquirers.forMode(mode).listAuthorizations(mode, paymentId)).at(-1);
    // No attempt yet: failed without a charge, and watched, since the stopped request's call may still reach the acquirer.
    return this.record(paymentId, last ? outcomeOf(last) : {
      status: 'error', code: 'INVALID_TOKEN',
      message: 'The request that created this payment stopped before the card was charged; the card was not charged',
    }, !!last, !last);
  }

  /**
   * The recover-merchant-payments job (worker role): merchant-initiated payments still `pending` MOTU_OPERATION_CLAIM_SECONDS
   * after they were written, that is, whose request stopped before recording the acquirer's answer and that nobody
   * retried since: each is finished by `recoverPending`. Several workers may run it: the claim lets one act per payment.
   */
  async recoverLeftPending(now: Date): Promise<number> {
    const cutoff = addSeconds(now, -this.config.operationClaimSeconds).toISOString();
    // 'pending' as a literal: the partial index `payments_pending_charges` serves only a condition naming it so (a
    // bound value leaves SQLite to re-prepare the statement, and PostgreSQL's generic plan to read the table).
    const due = await this.db.kysely.selectFrom('payments').select(['id', 'mode'])
      .where('status', '=', sql.lit('pending')).where('session_id', 'is', null).where('created_at', '<', cutoff)
      .orderBy('created_at').limit(100).execute();
    let finished = 0;
    for (const payment of due) {
      if (payment.mode === 'live' && !this.acquirers.liveConfigured()) continue;
      try {
        if (await this.recoverPending(payment)) finished += 1;
      } catch {
        // The acquirer could not be asked: tried again on the next run (the claim lapses meanwhile).
      }
    }
    return finished;
  }

  /**
   * Records the acquirer's answer for a `pending` payment with its events; false (nothing written) when it no longer is.
   * `attempted`: the acquirer holds an authorization for this answer (counted once, by whichever run records it).
   * `watch`: a failure is watched for a late authorization (`operation` = 'release', releaseLateAuthorizations).
   */
  private async record(paymentId: string, outcome: AuthorizationOutcome, attempted: boolean, watch = false): Promise<boolean> {
    const before = await this.db.kysely.selectFrom('payments').select('status').where('id', '=', paymentId).executeTakeFirstOrThrow();
    if (before.status !== 'pending') return false; // finished by another run (checked again below, in the transaction)
    return this.db.transaction(async (trx) => {
      // The events' time is read in the transaction, not before it waited for its turn (group commit, locks): a
      // payment's events then never carry a time earlier than the one recorded before them.
      const at = this.clock.now();
      if (outcome.status !== 'authorized') {
        // A refusal, or a card the acquirer no longer knows: the payment fails with a refusal code.
        const refusal = outcome.status === 'refused'
          ? { code: outcome.refusalCode as string, message: outcome.refusalMessage }
          : outcome.status === 'error' && outcome.code === 'UNKNOWN_CARD'
            ? { code: 'card_unknown', message: outcome.message }
            : { code: 'processing_error', message: outcome.status === 'error' ? outcome.message : 'The card needs its holder to authenticate' };
        const row = await transitions.fail(trx, {
          paymentId, from: ['pending'], refusalCode: refusal.code, refusalMessage: refusal.message, at, newAttempt: attempted,
          operation: watch ? RELEASE : null,
          ...(outcome.status === 'refused' ? { card: outcome.card, authorizationId: outcome.authorizationId } : {}),
        });
        if (!row) return false; // recorded meanwhile by another run: its events stand
        if (refusal.code === 'card_unknown') await removeUnknownCard(trx, row.payment_method_id, at);
        return true;
      }
      const authorized = await transitions.authorize(trx, {
        paymentId, from: ['pending'], authorizationId: outcome.authorizationId, card: outcome.card, at, newAttempt: attempted,
      });
      if (!authorized) return false;
      // Authorized and captured in one call (AUTO): both events, in that order.
      if (outcome.captured) await transitions.capture(trx, { paymentId, amount: authorized.amount, operation: null, at });
      return true;
    });
  }
}

/** Whether the acquirer still holds the customer's money under this authorization: uncaptured, or captured and not all refunded. */
function holds(view: AuthorizationView): boolean {
  return view.status === 'authorized' || (view.status === 'captured' && view.capturedAmount > view.refundedAmount);
}

/** The id of the payment charged under the `use`-th use of `idempotencyKey` (idFromKey, idForKeyUse). */
export function merchantPaymentIdFor(owner: Pick<Owner, 'merchantId' | 'mode'>, idempotencyKey: string, use = 0): string {
  return idFromKey('pay', keyUseParts(['pay', owner.merchantId, owner.mode, 'merchant_initiated', idempotencyKey], use));
}

/** An attempt the acquirer holds, as the answer its authorize call gave. */
function outcomeOf(view: AuthorizationView): AuthorizationOutcome {
  if (view.status === 'authorized' || view.status === 'captured') {
    return { status: 'authorized', authorizationId: view.id, card: view.card, captured: view.status === 'captured' };
  }
  if (view.status === 'refused') {
    const code = view.refusalCode ?? 'processing_error';
    return { status: 'refused', authorizationId: view.id, card: view.card, refusalCode: code, refusalMessage: REFUSAL_MESSAGES[code] };
  }
  // A challenge or a void cannot follow a merchant-initiated authorize that nobody recorded: failed, processing_error.
  return { status: 'error', code: 'INVALID_TOKEN', message: `The acquirer holds authorization ${view.id} as ${view.status}` };
}

