// Stage 1 of a delivery: claim. Due rows are stamped with this worker's claim token and a lease in one short
// transaction (src/db/lease.ts, the machinery the mail queue shares), at most as many rows of a target as it has free
// slots; a stale claim of a stopped worker is taken over and its attempt recorded as lost.
//
// Stale claims are looked for at most once a second (by the worker's clock): a claim becomes stale only when its lease
// (the send timeout + 5 s) has run out, so it is retaken within a second of that. Otherwise, and when that look finds
// none, a claim takes pending rows only, with statements of fixed texts (the per-target bound, stamp, read the bodies):
// on PostgreSQL ONE statement that locks with SKIP LOCKED and commits on its own (one round trip and one WAL flush per
// claim instead of six round trips); on SQLite two, prepared once, in a transaction of the group commit, instead of
// three built by Kysely at every wake-up, two of them with an IN list whose every length was a new text to prepare.
import { CompiledQuery, sql } from 'kysely';
import { compiledQuery } from '../../db/compiled.js';
import type { Trx } from '../../db/database.js';
import { claimedColumns, LOST_ATTEMPT_ERROR, newClaim } from '../../db/lease.js';
import { newTimeOrderedId } from '../../shared/ids.js';
import type { WebhookAttemptsTable, WebhookDeliveryRow } from '../events.table.js';
import { INSERT_CHUNK, type Claimed, type DeliveryContext } from './context.js';

/** How often, by the worker's clock, a claim also looks for stale claims of stopped workers. */
export const STALE_CHECK_MS = 1000;
const staleCheckedAt = new WeakMap<DeliveryContext, number>();

/** Claims up to `limit` due rows, at most the free slots of each target. `more`: the window was full, query again. */
export async function claimDue(ctx: DeliveryContext, busy: ReadonlyMap<string, number>, limit: number): Promise<{ claimed: Claimed[]; more: boolean }> {
  const { db, clock, perTarget } = ctx;
  const now = clock.now();
  const last = staleCheckedAt.get(ctx);
  const checkStale = last === undefined || now.getTime() - last >= STALE_CHECK_MS || now.getTime() < last;
  if (!checkStale) return claimPending(ctx, busy, limit, now);
  staleCheckedAt.set(ctx, now.getTime());
  // Nearly always none: then the claim of pending rows alone, without the transaction below.
  if ((await anyStale.executeTakeFirst(db.kysely, { now: now.toISOString() })) === undefined) return claimPending(ctx, busy, limit, now);
  const saturated = [...busy.entries()].filter(([, n]) => n >= perTarget).map(([k]) => k);
  const lease = newClaim(now, ctx.leaseMs, ctx.workerId);
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
        .where('d.status', '=', sql.lit(status)) // a literal: a partial index (migration 0057) serves only its own status
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
    const within = withinBound(due, busy, perTarget);
    skipped = within.length < due.length;
    const ids = within.map((r) => r.id);
    const lost = within.filter((r) => r.status === 'sending');
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

/** A claim whose lease has run out, of any target (its endpoint may be out of service: the transaction above judges). */
const anyStale = compiledQuery((db, p: { now: string }) =>
  db.selectFrom('webhook_deliveries').select('id').where('status', '=', sql.lit('sending')).where('lease_until', '<', p.now).limit(1));

/** The rows of `due` (in due order) within the per-target bound: no more of a target than it has free slots. */
function withinBound<R extends { target_key: string }>(due: R[], busy: ReadonlyMap<string, number>, perTarget: number): R[] {
  const taken = new Map<string, number>();
  return due.filter((r) => {
    const n = taken.get(r.target_key) ?? busy.get(r.target_key) ?? 0;
    if (n >= perTarget) return false;
    taken.set(r.target_key, n + 1);
    return true;
  });
}

/**
 * Pending rows only: the same rows, in the same order and under the same per-target bound as the transaction above.
 * On PostgreSQL one statement: the rows are locked in due order (SKIP LOCKED: another worker's are passed over),
 * numbered within their target after that target's sends in flight; those within the bound are stamped and returned
 * with their event's body; the others are unlocked at the commit, still pending. On SQLite two statements of fixed
 * texts in one transaction: the due rows' keys, then the stamp of those within the bound, returned with their bodies
 * (the bound counted here: SQLite's window function cost more than the walk itself).
 */
async function claimPending(ctx: DeliveryContext, busy: ReadonlyMap<string, number>, limit: number, now: Date): Promise<{ claimed: Claimed[]; more: boolean }> {
  const { db, perTarget } = ctx;
  const lease = newClaim(now, ctx.leaseMs, ctx.workerId);
  const saturated: string[] = [];
  const busyKeys: string[] = [];
  const busyCounts: number[] = [];
  for (const [key, n] of busy) {
    if (n >= perTarget) saturated.push(key);
    else {
      busyKeys.push(key);
      busyCounts.push(n);
    }
  }
  let rows: Array<WebhookDeliveryRow & { body: string }>;
  if (db.caps.skipLocked) {
    const parameters = [lease.nowIso, saturated, limit, busyKeys, busyCounts, perTarget, lease.token, lease.leaseUntil];
    db.keepPrepared?.(CLAIM_PENDING_SQL);
    rows = (await db.kysely.executeQuery<WebhookDeliveryRow & { body: string }>(CompiledQuery.raw(CLAIM_PENDING_SQL, parameters))).rows;
  } else {
    // SQLite binds no arrays: the lists go as JSON, read by json_each.
    rows = await db.transaction(async (trx) => {
      const due = saturated.length === 0
        ? await duePendingSqlite.execute(trx, { now: lease.nowIso, saturated: '[]', limit })
        : await duePendingOfOthersSqlite.execute(trx, { now: lease.nowIso, saturated: JSON.stringify(saturated), limit });
      const within = withinBound(due, busy, perTarget);
      if (within.length === 0) return [];
      return stampSqlite.execute(trx, { rowids: JSON.stringify(within.map((r) => r.rid)), token: lease.token, leaseUntil: lease.leaseUntil, now: lease.nowIso });
    });
  }
  // RETURNING comes in the table's order: sent in due order (so in recording order for rows due at the same instant).
  rows.sort((a, b) => (a.next_attempt_at < b.next_attempt_at ? -1 : a.next_attempt_at > b.next_attempt_at ? 1 : a.event_seq - b.event_seq));
  const claimed = rows.map(({ body, ...row }) => ({ row, body: Buffer.from(body, 'utf8') }));
  // Every row taken claimed and the window full: there may be more (as in claimDue: rows left for the per-target
  // bound are no reason to query again at once).
  return { claimed, more: claimed.length === limit };
}

/**
 * SQLite: the pending rows due, in due order, but those of the `saturated` targets (a JSON array) when `passOver`. Read
 * from `webhook_deliveries_pending` alone but for their endpoint's state, looked up by primary key for each row read (a
 * list of the endpoints in service would be built from the whole table at every claim, however few rows were due). Two
 * texts, both prepared once: without a target to pass over (nearly always) the statement reads no JSON list.
 */
const duePending = (passOver: boolean) => compiledQuery((db, p: { now: string; saturated: string; limit: number }) => ({
  compile: () => sql<{ rid: number; target_key: string }>`
    select d.rowid as rid, d.target_key
    from webhook_deliveries d
    where d.status = 'pending' and d.next_attempt_at <= ${p.now}
      and (d.endpoint_id is null or exists (select 1 from webhook_endpoints w where w.id = d.endpoint_id and w.enabled = 1))
      ${passOver ? sql`and d.target_key not in (select value from json_each(${p.saturated}))` : sql``}
    order by d.next_attempt_at, d.event_seq
    limit ${p.limit}`.compile(db),
}));
const duePendingSqlite = duePending(false);
const duePendingOfOthersSqlite = duePending(true);

/** SQLite: the rows of `rowids` (a JSON array) claimed, returned with their event's body. */
const stampSqlite = compiledQuery((db, p: { rowids: string; token: string; leaseUntil: string; now: string }) => ({
  compile: () => sql<WebhookDeliveryRow & { body: string }>`
    update webhook_deliveries
    set status = 'sending', claim_token = ${p.token}, lease_until = ${p.leaseUntil}, updated_at = ${p.now}
    where rowid in (select value from json_each(${p.rowids}))
    returning *, (select e.body from webhook_events e where e.id = webhook_deliveries.event_id) as body`.compile(db),
}));

/**
 * PostgreSQL's claim of pending rows. Kept prepared, it soon runs a generic plan, made without the parameters' values,
 * so its shape must lead the planner to the same plan whatever the queue holds (docs/performance.md, "the claim's plan
 * on PostgreSQL"):
 * - the saturated targets are left out by `(target_key || '') <> all($2)`, an expression PostgreSQL keeps no statistics
 *   of: on the column itself, once analyzed, the estimate of `<> all` over an array of unknown length falls to one row
 *   when a few targets hold most of the queue, and for one row the planner reads the whole table and sorts it (every
 *   pending row of a backlog, on each claim) rather than walking `webhook_deliveries_pending` in due order;
 * - the rows chosen are stamped by primary key, `id = any(array(…))` (estimated at a few rows: a walk of the primary
 *   key), not joined to the table: a join estimated at a third of the window was made a hash join over every
 *   delivery, succeeded ones included, once the table was small enough for that to look cheaper;
 * - each body is read by its event's primary key in RETURNING, for the rows stamped only.
 */
export const CLAIM_PENDING_SQL = `
  with locked as (
    select d.id, d.target_key, d.next_attempt_at, d.event_seq
    from webhook_deliveries d
    where d.status = 'pending' and d.next_attempt_at <= $1
      and (d.endpoint_id is null or d.endpoint_id in (select id from webhook_endpoints where enabled = 1))
      and (d.target_key || '') <> all($2::text[])
    order by d.next_attempt_at, d.event_seq
    limit $3
    for update of d skip locked
  ), chosen as (
    select id from (
      select l.id, coalesce(b.n, 0) + row_number() over (partition by l.target_key order by l.next_attempt_at, l.event_seq) as slot
      from locked l left join unnest($4::text[], $5::int[]) as b(key, n) on b.key = l.target_key
    ) ranked
    where slot <= $6
  )
  update webhook_deliveries d
  set status = 'sending', claim_token = $7, lease_until = $8, updated_at = $1
  where d.id = any(array(select id from chosen))
  returning d.*, (select e.body from webhook_events e where e.id = d.event_id) as body`;

/**
 * A stale claim: its worker stopped (crash, kill) between the claim and the record. The attempt it had in flight
 * may or may not have reached the receiver; it counts as a failed attempt without an answer. The row is sent
 * again now; if that lost attempt was the last of the schedule, this one more send decides.
 */
async function recordLost({ logger }: DeliveryContext, trx: Trx, lost: Array<{ id: string; event_id: string; attempt_count: number; updated_at: string }>, nowIso: string): Promise<void> {
  const values: WebhookAttemptsTable[] = lost.map((r) => ({
    id: newTimeOrderedId('att'),
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
