// The time-driven side of disputes, run by the worker role (src/jobs.ts):
// - the acquirer's dispute notices since the last run open disputes (test mode: the simulator's dispute cards);
// - a dispute still without evidence at `evidenceDueBy` closes: a chargeback lost, an inquiry closed (per clock scope:
//   a dispute on a payment of a test clock's customer closes when the clock passes its deadline);
// - test mode: submitted evidence saying `winning_evidence` or `losing_evidence` is decided a moment later.
import type { Acquirers } from '../../acquirer/acquirers.js';
import type { Database } from '../../db/database.js';
import { addSeconds, type Clock } from '../../shared/clock.js';
import type { Mode } from '../merchants/merchants.table.js';
import { moveDispute, openDispute } from '../payment-transitions/disputes.js';
import type { TimeRule } from '../test-clocks/advance.js';
import { onClock, type ClockScope } from '../test-clocks/clock-time.js';

export interface DisputeJobDeps {
  db: Database;
  clock: Clock;
  acquirers: Acquirers;
}

const BATCH = 100;
/** The first notice report looks this far back. */
const FIRST_REPORT_LOOKBACK_SECONDS = 90 * 86_400;

function cursorName(mode: Mode): string {
  return `disputes.notice_cursor.${mode}`;
}

/** Opens the disputes the acquirer notified since the last run (one per notice, however often it is read). */
export async function openNotifiedDisputes({ db, clock, acquirers }: DisputeJobDeps, now: Date): Promise<number> {
  const modes: Mode[] = acquirers.liveConfigured() ? ['test', 'live'] : ['test'];
  let opened = 0;
  for (const mode of modes) {
    const cursor = await db.kysely.selectFrom('settings').select('value').where('name', '=', cursorName(mode)).executeTakeFirst();
    const from = cursor ? new Date(cursor.value) : addSeconds(now, -FIRST_REPORT_LOOKBACK_SECONDS);
    if (from >= now) continue;
    for (const notice of await acquirers.forMode(mode).disputeNotices({ mode, from, to: now })) {
      const payment = await db.kysely.selectFrom('payments').select('id').where('id', '=', notice.merchantReference)
        .where('mode', '=', mode).where('acquirer_authorization_id', '=', notice.authorizationId).executeTakeFirst();
      if (!payment) continue;
      const key = `${notice.authorizationId}:${notice.kind}:${notice.notifiedAt}`;
      const seen = await db.kysely.selectFrom('disputes').select('id').where('acquirer_notice', '=', key).executeTakeFirst();
      if (seen) continue;
      try {
        const row = await db.transaction((trx) => openDispute(trx, {
          paymentId: payment.id, kind: notice.kind, reason: notice.reason, amount: notice.amount, acquirerNotice: key, at: clock.now(),
        }));
        if (row) opened += 1;
      } catch (err) {
        // Another worker opened it meanwhile (the notice is unique).
        if (!db.isUniqueViolation(err)) throw err;
      }
    }
    await db.transaction((trx) => trx.insertInto('settings').values({ name: cursorName(mode), value: now.toISOString() })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: now.toISOString() })).execute());
  }
  return opened;
}

/** Disputes left without evidence past their deadline: chargebacks lost, inquiries closed. */
export async function closeOverdueDisputes({ db, clock }: DisputeJobDeps, scope: ClockScope): Promise<number> {
  const due = await db.kysely.selectFrom('disputes').select(['id', 'kind'])
    .where('status', 'in', ['needs_response', 'warning_needs_response']).where('evidence_due_by', '<=', scope.now.toISOString())
    .where(onClock(scope)).orderBy('evidence_due_by').limit(BATCH).execute();
  let closed = 0;
  for (const dispute of due) {
    const row = await db.transaction((trx) => moveDispute(trx, {
      disputeId: dispute.id, from: ['needs_response', 'warning_needs_response'], to: dispute.kind === 'chargeback' ? 'lost' : 'warning_closed', at: clock.now(),
    }));
    if (row) closed += 1;
  }
  return closed;
}

/** Test mode: the simulated bank's decision on evidence that asked for one (`winning_evidence`, `losing_evidence`). */
export async function decideTestDisputes({ db, clock }: DisputeJobDeps, now: Date): Promise<number> {
  const due = await db.kysely.selectFrom('disputes').select(['id', 'kind', 'test_outcome'])
    .where('status', 'in', ['under_review', 'warning_under_review']).where('test_outcome_at', '<=', now.toISOString())
    .orderBy('test_outcome_at').limit(BATCH).execute();
  let decided = 0;
  for (const dispute of due) {
    const to = dispute.kind === 'chargeback' ? dispute.test_outcome! : 'warning_closed';
    const row = await db.transaction((trx) => moveDispute(trx, { disputeId: dispute.id, from: ['under_review', 'warning_under_review'], to, at: clock.now() }));
    if (row) decided += 1;
  }
  return decided;
}

/** The evidence deadline, for a test clock's advance (src/modules/test-clocks/advance.ts). */
export function disputeTimeRules(deps: DisputeJobDeps): TimeRule[] {
  return [{
    name: 'dispute evidence deadline',
    nextDue: async (db, clockId, after) => {
      const row = await db.selectFrom('disputes').select((eb) => eb.fn.min('evidence_due_by').as('at'))
        .where('test_clock_id', '=', clockId).where('status', 'in', ['needs_response', 'warning_needs_response'])
        .where('evidence_due_by', '>', after.toISOString()).executeTakeFirst();
      return row?.at ? new Date(row.at) : null;
    },
    run: (scope) => closeOverdueDisputes(deps, scope),
  }];
}
