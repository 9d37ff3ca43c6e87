// Time-driven steps of a payment's life, run by the worker role's scheduler (src/start/workers.ts):
// - sessions and payment links past `expiresAt` without payment → payment.expired;
// - MANUAL authorizations not captured within 7 days → voided at the acquirer, payment.expired (no debit);
// - the acquirer's settlement report → settled true, payment.settled (commission final);
// - capture/cancel claims left behind by a stopped process → resolved from the acquirer's own state
//   (docs/payments.md, Recovery; refunds left pending are the refunds module's job).
// Each job claims its rows with conditional updates, so several worker processes may run them at once.
// src/jobs.ts schedules them; tests drive them with a ManualClock and `runPaymentSchedule(…)` instead of waiting.
import { sql } from 'kysely';
import type { Acquirers } from '../../acquirer/acquirers.js';
import type { Database } from '../../db/database.js';
import { addSeconds, type Clock } from '../../shared/clock.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { PaymentLifecycleService } from './lifecycle.service.js';
import * as transitions from '../payment-transitions/transitions.js';
import { onClock, type ClockScope } from '../test-clocks/clock-time.js';
import type { TimeRule } from '../test-clocks/advance.js';

/** A MANUAL authorization lives less than 7 days on the card networks; uncaptured by then, it expires undebited. */
export const AUTHORIZATION_LIFETIME_SECONDS = 7 * 86_400;
/** The first settlement report looks this far back. */
const FIRST_REPORT_LOOKBACK_SECONDS = 90 * 86_400;
const BATCH = 100;

export interface PaymentJobDeps {
  db: Database;
  clock: Clock;
  acquirers: Acquirers;
  lifecycle: PaymentLifecycleService;
  /** Test mode: seconds from capture to settlement (MOTU_TEST_SETTLEMENT_DELAY), for the payments on a test clock. */
  testSettlementDelaySeconds: number;
}

/** Sessions and links whose time ran out while their payment was still waiting for the card. */
export async function expireSessions({ db, clock }: PaymentJobDeps, { now, clockId }: ClockScope): Promise<number> {
  // 'open' as a literal: `payment_sessions_open` holds the open sessions alone (migration 0058), and a partial index
  // serves only a condition that names its status so, not a bound value.
  const due = await db.kysely.selectFrom('payment_sessions').select(['id', 'payment_id'])
    .where('kind', '=', 'payment').where('status', '=', sql.lit('open')).where('expires_at', '<=', now.toISOString()).where(onClock({ clockId }))
    .orderBy('expires_at').limit(BATCH).execute();
  let expired = 0;
  for (const session of due) {
    await db.transaction(async (trx) => {
      const at = clock.now().toISOString();
      const res = await trx.updateTable('payment_sessions').set({ status: 'expired', completed_at: at })
        .where('id', '=', session.id).where('status', '=', 'open').executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1 || !session.payment_id) return;
      const paid = await transitions.expire(trx, { paymentId: session.payment_id, from: transitions.AWAITING_CARD, at: clock.now() });
      if (paid) expired += 1;
    });
  }
  return expired;
}

/** MANUAL authorizations left uncaptured for 7 days: voided at the acquirer, payment.expired. */
export async function expireAuthorizations({ db, clock, acquirers, lifecycle }: PaymentJobDeps, { now, clockId }: ClockScope): Promise<number> {
  const cutoff = addSeconds(now, -AUTHORIZATION_LIFETIME_SECONDS).toISOString();
  const due = await db.kysely.selectFrom('payments').select(['id', 'mode', 'acquirer_authorization_id'])
    // 'transit' as a literal, for `payments_transit` (as the session expiry above).
    .where('status', '=', sql.lit('transit')).where('authorized_at', '<=', cutoff).where(onClock({ clockId })).orderBy('authorized_at').limit(BATCH).execute();
  let expired = 0;
  for (const candidate of due) {
    if (candidate.mode === 'live' && !acquirers.liveConfigured()) continue;
    const at = clock.now();
    const stale = addSeconds(at, -lifecycle.claimTtlSeconds).toISOString();
    const claim = await db.transaction((trx) => trx.updateTable('payments').set({ operation: 'expire', operation_at: at.toISOString() })
      .where('id', '=', candidate.id).where('status', '=', 'transit')
      .where((eb) => eb.or([eb('operation', 'is', null), eb('operation_at', '<', stale)]))
      .executeTakeFirst());
    if (Number(claim.numUpdatedRows) !== 1) continue;
    const acquirer = acquirers.forMode(candidate.mode);
    const authorizationId = candidate.acquirer_authorization_id;
    const view = authorizationId ? await acquirer.getAuthorization(candidate.mode, authorizationId) : null;
    if (view?.status === 'captured') {
      // Charged without a capture request: still announced as captured, so the merchant learns money was taken.
      await lifecycle.writeCaptured(candidate.id, view.capturedAmount, 'expire');
      continue;
    }
    if (authorizationId && view?.status === 'authorized') await acquirer.cancel({ mode: candidate.mode, authorizationId });
    await db.transaction(async (trx) => {
      const row = await transitions.expire(trx, { paymentId: candidate.id, from: ['transit'], operation: 'expire', at: clock.now() });
      if (row) expired += 1;
    });
  }
  return expired;
}


/** Capture and cancel claims abandoned by a stopped process (older than MOTU_OPERATION_CLAIM_SECONDS): resolved from the acquirer's state. */
export async function recoverClaims({ db, acquirers, lifecycle }: PaymentJobDeps, now: Date): Promise<number> {
  const stale = addSeconds(now, -lifecycle.claimTtlSeconds).toISOString();
  const due = await db.kysely.selectFrom('payments').select(['id', 'mode'])
    .where('status', '=', 'transit').where('operation', 'in', ['capture', 'cancel']).where('operation_at', '<', stale)
    .orderBy('operation_at').limit(BATCH).execute();
  let resolved = 0;
  for (const candidate of due) {
    if (candidate.mode === 'live' && !acquirers.liveConfigured()) continue;
    try {
      if ((await lifecycle.resolveAbandonedClaim(candidate.id)) !== 'skipped') resolved += 1;
    } catch {
      // Tried again on the next run.
    }
  }
  return resolved;
}

function cursorName(mode: Mode): string {
  return `payments.settlement_cursor.${mode}`;
}

/** Reads the acquirer's settlement report since the last run and marks the payments it lists as settled. */
export async function settlePayments({ db, clock, acquirers, lifecycle }: PaymentJobDeps, now: Date): Promise<number> {
  const modes: Mode[] = acquirers.liveConfigured() ? ['test', 'live'] : ['test'];
  let settled = 0;
  for (const mode of modes) {
    const cursor = await db.kysely.selectFrom('settings').select('value').where('name', '=', cursorName(mode)).executeTakeFirst();
    const from = cursor ? new Date(cursor.value) : addSeconds(now, -FIRST_REPORT_LOOKBACK_SECONDS);
    if (from >= now) continue;
    const lines = await acquirers.forMode(mode).settlementReport({ mode, from, to: now });
    for (const line of lines) {
      const payment = await db.kysely.selectFrom('payments').select(['id', 'mode', 'status'])
        .where('id', '=', line.merchantReference).where('mode', '=', mode)
        .where('acquirer_authorization_id', '=', line.authorizationId).where('settled', '=', 0)
        // A payment on a test clock settles when its clock gets there (settleOnClock), not by the real-time report.
        .where('test_clock_id', 'is', null).executeTakeFirst();
      if (!payment) continue;
      // Captured at the acquirer but not yet recorded here (a capture interrupted between its two steps):
      // payment.captured first, so it never reads settled while still `transit`.
      if (payment.status === 'transit') await lifecycle.writeCaptured(payment.id, line.capturedAmount, null);
      await db.transaction(async (trx) => {
        const row = await transitions.settle(trx, { paymentId: payment.id, settledAt: line.settledAt, at: clock.now() });
        if (row) settled += 1;
      });
    }
    await db.transaction((trx) => trx.insertInto('settings').values({ name: cursorName(mode), value: now.toISOString() })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: now.toISOString() })).execute());
  }
  return settled;
}

const SETTLED_STATUSES = ['captured', 'partially_refunded', 'refunded'] as const;

/**
 * The payments of a test clock's customers settle when the clock reaches their capture time plus the test settlement
 * delay: the simulator's settlement, read for one payment at a time (it is the acquirer's record that it was captured).
 */
export async function settleOnClock({ db, clock, acquirers, testSettlementDelaySeconds }: PaymentJobDeps, { now, clockId }: ClockScope): Promise<number> {
  if (clockId === null) return 0;
  const cutoff = addSeconds(now, -testSettlementDelaySeconds).toISOString();
  const due = await db.kysely.selectFrom('payments').select(['id', 'mode', 'acquirer_authorization_id', 'captured_at'])
    .where('test_clock_id', '=', clockId).where('settled', '=', 0).where('status', 'in', SETTLED_STATUSES)
    .where('captured_at', '<=', cutoff).orderBy('captured_at').limit(BATCH).execute();
  let settled = 0;
  for (const payment of due) {
    const view = payment.acquirer_authorization_id ? await acquirers.forMode(payment.mode).getAuthorization(payment.mode, payment.acquirer_authorization_id) : null;
    if (view?.status !== 'captured') continue;
    const settledAt = addSeconds(new Date(payment.captured_at!), testSettlementDelaySeconds).toISOString();
    await db.transaction(async (trx) => {
      if (await transitions.settle(trx, { paymentId: payment.id, settledAt, at: clock.now() })) settled += 1;
    });
  }
  return settled;
}

async function earliest(query: Promise<{ at: string | null } | undefined>, plusSeconds: number): Promise<Date | null> {
  const row = await query;
  return row?.at ? addSeconds(new Date(row.at), plusSeconds) : null;
}

/** The payment rules a test clock's advance runs (src/modules/test-clocks/advance.ts), with when each next falls due. */
export function paymentTimeRules(deps: PaymentJobDeps): TimeRule[] {
  const delay = deps.testSettlementDelaySeconds;
  return [
    {
      name: 'session expiry',
      nextDue: (db, clockId, after) => earliest(db.selectFrom('payment_sessions').select((eb) => eb.fn.min('expires_at').as('at'))
        .where('test_clock_id', '=', clockId).where('kind', '=', 'payment').where('status', '=', 'open')
        .where('expires_at', '>', after.toISOString()).executeTakeFirst(), 0),
      run: (scope) => expireSessions(deps, scope),
    },
    {
      name: 'authorization expiry',
      nextDue: (db, clockId, after) => earliest(db.selectFrom('payments').select((eb) => eb.fn.min('authorized_at').as('at'))
        .where('test_clock_id', '=', clockId).where('status', '=', 'transit')
        .where('authorized_at', '>', addSeconds(after, -AUTHORIZATION_LIFETIME_SECONDS).toISOString()).executeTakeFirst(), AUTHORIZATION_LIFETIME_SECONDS),
      run: (scope) => expireAuthorizations(deps, scope),
    },
    {
      name: 'settlement',
      nextDue: (db, clockId, after) => earliest(db.selectFrom('payments').select((eb) => eb.fn.min('captured_at').as('at'))
        .where('test_clock_id', '=', clockId).where('settled', '=', 0).where('status', 'in', SETTLED_STATUSES)
        .where('captured_at', '>', addSeconds(after, -delay).toISOString()).executeTakeFirst(), delay),
      run: (scope) => settleOnClock(deps, scope),
    },
  ];
}

/**
 * How often a recovery job with the given threshold runs: a few times per threshold (every 30 s at most, every second
 * at least), so what it recovers waits at most about 1.25 × the threshold.
 */
export function recoveryEveryMs(thresholdSeconds: number): number {
  return Math.min(30_000, Math.max(1_000, (thresholdSeconds * 1000) / 4));
}
