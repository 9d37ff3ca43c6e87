// Claim and lease, the machinery both queues of Motu share (webhook deliveries, mails): a worker claims due rows in a
// short transaction by stamping them `sending` with its claim token and a lease, commits, works outside any
// transaction, then records the outcome guarded by its token. A worker that stops mid-way leaves its lease to run
// out; the rows are claimed again then, and the attempt it had in flight is recorded as lost (at least once).
import { randomBytes } from 'node:crypto';

export interface Claim {
  /** Stamped on the claimed rows; the outcome is recorded only where it is still there. */
  token: string;
  /** The claim's time. */
  nowIso: string;
  /** Until when the rows are this worker's. */
  leaseUntil: string;
}

/** A new claim at `now`, leased for `leaseMs`; `owner` prefixes the token (a worker's id, for the logs). */
export function newClaim(now: Date, leaseMs: number, owner?: string): Claim {
  const random = randomBytes(6).toString('hex');
  return { token: owner ? `${owner}:${random}` : random, nowIso: now.toISOString(), leaseUntil: new Date(now.getTime() + leaseMs).toISOString() };
}

/** What a claim writes on the rows it takes. */
export function claimedColumns(claim: Claim) {
  return { status: 'sending' as const, claim_token: claim.token, lease_until: claim.leaseUntil, updated_at: claim.nowIso };
}

/** What recording an outcome clears. */
export function releasedColumns(nowIso: string) {
  return { claim_token: null, lease_until: null, updated_at: nowIso };
}

/** The error recorded for an attempt whose worker stopped before recording it. */
export const LOST_ATTEMPT_ERROR = 'no outcome recorded: the worker stopped during the attempt';
