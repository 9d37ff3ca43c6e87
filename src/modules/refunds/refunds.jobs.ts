// The refunds' time-driven step, run by the worker role's scheduler (src/jobs.ts): refunds left `pending` by a
// stopped process, or by an acquirer that could not be reached, finished from the acquirer's own record.
import type { Acquirers } from '../../acquirer/acquirers.js';
import type { Database } from '../../db/database.js';
import { addSeconds } from '../../shared/clock.js';
import { CLAIM_TTL_SECONDS } from '../payments/lifecycle.service.js';
import type { RefundsService } from './refunds.service.js';
import { OVERPAYMENT_REASON } from '../invoices/issue.js';

const BATCH = 100;

/** A refund older than this is considered interrupted (its request would have finished long before). */
export const RECOVERY_AFTER_SECONDS = CLAIM_TTL_SECONDS;

export interface RefundJobDeps {
  db: Database;
  acquirers: Acquirers;
  refunds: RefundsService;
  /** Age after which a pending refund is recovered (MOTU_REFUND_RECOVERY_SECONDS); RECOVERY_AFTER_SECONDS when absent. */
  refundRecoverySeconds?: number;
}

/**
 * Refunds still `pending` RECOVERY_AFTER_SECONDS after they were reserved: the process stopped between the
 * reservation and the outcome, or the acquirer could not be reached. Each is settled from the acquirer's record
 * of its reference (the `re_` id): refunded → success and its one event; refused → reservation released;
 * never received → refunded now under the same reference. Idempotent at the acquirer and conditional here, so
 * several workers (or the original request finishing late) never refund or announce twice.
 */
export async function recoverRefunds({ db, acquirers, refunds, refundRecoverySeconds }: RefundJobDeps, now: Date): Promise<number> {
  const cutoff = addSeconds(now, -(refundRecoverySeconds ?? RECOVERY_AFTER_SECONDS)).toISOString();
  const due = await db.kysely.selectFrom('refunds').selectAll()
    .where('status', '=', 'pending').where('created_at', '<=', cutoff).orderBy('created_at').limit(BATCH).execute();
  let resolved = 0;
  for (const refund of due) {
    if (refund.mode === 'live' && !acquirers.liveConfigured()) continue;
    try {
      const done = await refunds.resolvePendingRefund(refund);
      if (done.status !== 'pending') resolved += 1;
    } catch {
      // The acquirer is still unreachable: the refund stays pending and is tried again on the next run.
    }
  }
  return resolved;
}

/**
 * What a card payment paid beyond what its invoice still owed (the invoice paid or credited while the card was being
 * charged): the capture's transaction reserved its refund (src/modules/invoices/issue.ts, payByCard); this job, run
 * every second, completes it without waiting for the recovery delay.
 */
export async function refundInvoiceOverpayments({ db, acquirers, refunds }: RefundJobDeps): Promise<number> {
  const due = await db.kysely.selectFrom('refunds').selectAll()
    .where('status', '=', 'pending').where('reason', '=', OVERPAYMENT_REASON).orderBy('created_at').limit(BATCH).execute();
  let done = 0;
  for (const refund of due) {
    if (refund.mode === 'live' && !acquirers.liveConfigured()) continue;
    try {
      if ((await refunds.resolvePendingRefund(refund)).status !== 'pending') done += 1;
    } catch {
      // The acquirer is unreachable: tried again on the next run (and by recover-refunds).
    }
  }
  return done;
}
