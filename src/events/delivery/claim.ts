// Stage 1 of a delivery: claim. Due rows are stamped with this worker's claim token and a lease in one short
// transaction (src/db/lease.ts, the machinery the mail queue shares), at most as many rows of a target as it has free
// slots; a stale claim of a stopped worker is taken over and its attempt recorded as lost.
import type { Trx } from '../../db/database.js';
import { claimedColumns, LOST_ATTEMPT_ERROR, newClaim } from '../../db/lease.js';
import { newId } from '../../shared/ids.js';
import type { WebhookAttemptsTable } from '../events.table.js';
import { INSERT_CHUNK, type Claimed, type DeliveryContext } from './context.js';

/** Claims up to `limit` due rows, at most the free slots of each target. `more`: the window was full, query again. */
export async function claimDue(ctx: DeliveryContext, busy: ReadonlyMap<string, number>, limit: number): Promise<{ claimed: Claimed[]; more: boolean }> {
  const { db, clock, perTarget } = ctx;
  const saturated = [...busy.entries()].filter(([, n]) => n >= perTarget).map(([k]) => k);
  const lease = newClaim(clock.now(), ctx.leaseMs, ctx.workerId);
  const { nowIso } = lease;
  let windowFull = false;
  let skipped = false;
  const bodies = new Map<string, string>();
  const rows = await db.transaction(async (trx) => {
    // Two index walks rather than one OR (which would sort every due row on each claim): stale claims of a
    // stopped worker (by lease, usually none), then pending rows in due order, stopping at the limit.
    const select = (status: 'sending' | 'pending', n: number) => {
      let q = trx
        .selectFrom('webhook_deliveries as d')
        .select(['d.id', 'd.target_key', 'd.status', 'd.attempt_count', 'd.event_id', 'd.updated_at'])
        .where('d.status', '=', status)
        .where(status === 'sending' ? 'd.lease_until' : 'd.next_attempt_at', status === 'sending' ? '<' : '<=', nowIso)
        // A delivery to an endpoint out of service waits until it is enabled again.
        .where((eb) =>
          eb.or([
            eb('d.endpoint_id', 'is', null),
            eb('d.endpoint_id', 'in', eb.selectFrom('webhook_endpoints').select('id').where('enabled', '=', 1)),
          ]),
        )
        .orderBy(status === 'sending' ? 'd.lease_until' : 'd.next_attempt_at')
        // Rows due at the same instant in the order their events were recorded (the index ends with event_seq).
        .orderBy('d.event_seq')
        .limit(n);
      if (saturated.length > 0) q = q.where('d.target_key', 'not in', saturated);
      return db.skipLockedRows(q).execute();
    };
    const stale = await select('sending', limit);
    const due = stale.length < limit ? [...stale, ...(await select('pending', limit - stale.length))] : stale;
    windowFull = due.length === limit;
    // The per-target bound: no more rows of a target than it has free slots; the rest stay pending.
    const taken = new Map<string, number>();
    const ids: string[] = [];
    const lost: typeof due = [];
    for (const r of due) {
      const n = taken.get(r.target_key) ?? busy.get(r.target_key) ?? 0;
      if (n >= perTarget) {
        skipped = true;
        continue;
      }
      taken.set(r.target_key, n + 1);
      ids.push(r.id);
      if (r.status === 'sending') lost.push(r);
    }
    if (ids.length === 0) return [];
    if (lost.length > 0) await recordLost(ctx, trx, lost, nowIso);
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set(claimedColumns(lease))
      .where('id', 'in', ids)
      .returningAll()
      .execute();
    // RETURNING comes in the table's order, not the claim's: sent in claim order (so in recording order).
    const byId = new Map(updated.map((r) => [r.id, r]));
    const claimed = ids.flatMap((id) => byId.get(id) ?? []);
    // The bodies only of what was claimed (joining them above would read one for every due row).
    const events = await trx
      .selectFrom('webhook_events')
      .select(['id', 'body'])
      .where('id', 'in', [...new Set(claimed.map((r) => r.event_id))])
      .execute();
    for (const e of events) bodies.set(e.id, e.body);
    return claimed;
  });
  // A full window all claimed: there may be more. Rows left for the per-target bound are not a reason to query
  // again at once (that query would skip over the saturated target's backlog): the next completion wakes us.
  const more = windowFull && !skipped;
  return { claimed: rows.map((row) => ({ row, body: Buffer.from(bodies.get(row.event_id)!, 'utf8') })), more };
}

/**
 * A stale claim: its worker stopped (crash, kill) between the claim and the record. The attempt it had in flight
 * may or may not have reached the receiver; it counts as a failed attempt without an answer. The row is sent
 * again now; if that lost attempt was the last of the schedule, this one more send decides.
 */
async function recordLost({ logger }: DeliveryContext, trx: Trx, lost: Array<{ id: string; event_id: string; attempt_count: number; updated_at: string }>, nowIso: string): Promise<void> {
  const values: WebhookAttemptsTable[] = lost.map((r) => ({
    id: newId('att'),
    delivery_id: r.id,
    event_id: r.event_id,
    attempt: r.attempt_count + 1,
    started_at: r.updated_at,
    status_code: null,
    latency_ms: Math.max(0, Date.parse(nowIso) - Date.parse(r.updated_at)),
    succeeded: 0,
    response_excerpt: null,
    error: LOST_ATTEMPT_ERROR,
  }));
  for (let i = 0; i < values.length; i += INSERT_CHUNK) await trx.insertInto('webhook_attempts').values(values.slice(i, i + INSERT_CHUNK)).execute();
  await trx
    .updateTable('webhook_deliveries')
    .set((eb) => ({ attempt_count: eb('attempt_count', '+', 1), last_status_code: null, last_error: LOST_ATTEMPT_ERROR }))
    .where('id', 'in', lost.map((r) => r.id))
    .execute();
  logger.warn({ count: lost.length }, 'webhook claims of a stopped worker retaken; their attempts are recorded as lost');
}
