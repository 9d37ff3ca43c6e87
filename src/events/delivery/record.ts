// Stage 3 of a delivery: record. The outcomes of many finished attempts in ONE transaction (on SQLite one fsync for the
// batch), each update guarded by its claim token: 2xx → succeeded; otherwise the next retry per the configured
// schedule; after the last retry → abandoned, and a registered endpoint is taken out of service until the merchant
// enables it again. Every attempt is a webhook_attempts row. On PostgreSQL the whole batch is ONE statement (its
// outcomes passed as arrays, each row its own status, attempt, answer and error): one round trip and one WAL flush,
// however many claims and outcomes the batch holds. On SQLite it is two statements of fixed texts, prepared once.
import { CompiledQuery, sql } from 'kysely';
import { compiledQuery } from '../../db/compiled.js';
import type { DeliveryStatus } from '../events.table.js';
import { newTimeOrderedId } from '../../shared/ids.js';
import type { DeliveryContext, Finished } from './context.js';

interface Outcome {
  f: Finished;
  status: DeliveryStatus;
  ok: boolean;
  abandon: boolean;
  attempt: number;
  error: string | null;
  /** When the next retry is due (a failure with retries left). */
  next: string | null;
}

export async function recordOutcomes(ctx: DeliveryContext, batch: Finished[]): Promise<void> {
  const { db, clock, schedule } = ctx;
  const now = clock.now();
  const nowIso = now.toISOString();
  const outcomes: Outcome[] = batch.map((f) => {
    const { c, result } = f;
    const ok = result.error === null && result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const attempt = c.row.attempt_count + 1;
    const retryIndex = attempt - 1; // the first send failed → retry 1 is schedule[0]
    const abandon = !ok && retryIndex >= schedule.length;
    const error = ok ? null : result.error ?? `HTTP ${result.statusCode}`;
    const status: DeliveryStatus = ok ? 'succeeded' : abandon ? 'abandoned' : 'pending';
    const next = ok || abandon ? null : new Date(now.getTime() + schedule[retryIndex]! * 1000).toISOString();
    return { f, status, ok, abandon, attempt, error, next };
  });
  const recorded: Outcome[] = [];
  const lostClaims: Outcome[] = [];
  if (db.caps.skipLocked) {
    const ids = await recordInOneStatement(ctx, outcomes, nowIso);
    for (const o of outcomes) (ids.has(o.f.c.row.id) ? recorded : lostClaims).push(o);
    logOutcomes(ctx, recorded, lostClaims);
    return;
  }
  await db.transaction(async (trx) => {
    recorded.length = 0;
    lostClaims.length = 0;
    const ids = new Set((await updateDeliveriesSqlite.execute(trx, { now: nowIso, outcomes: JSON.stringify(outcomes.map(deliveryColumns)) })).map((u) => u.id));
    for (const o of outcomes) (ids.has(o.f.c.row.id) ? recorded : lostClaims).push(o);
    if (recorded.length > 0) await insertAttemptsSqlite.run(trx, { attempts: JSON.stringify(recorded.map(attemptColumns)) });
    const disable = [...new Set(recorded.filter((o) => o.abandon && o.f.c.row.endpoint_id).map((o) => o.f.c.row.endpoint_id!))];
    if (disable.length > 0) {
      await trx
        .updateTable('webhook_endpoints')
        .set({ enabled: 0, disabled_reason: 'failing', disabled_at: nowIso, updated_at: nowIso })
        .where('id', 'in', disable)
        .execute();
    }
  });
  logOutcomes(ctx, recorded, lostClaims);
}

function logOutcomes({ logger }: DeliveryContext, recorded: Outcome[], lostClaims: Outcome[]): void {
  for (const o of lostClaims) logger.warn({ deliveryId: o.f.c.row.id }, 'webhook claim lost before the attempt was recorded');
  for (const o of recorded) {
    if (o.ok) continue;
    const row = o.f.c.row;
    // Ids, the status code and the transport's error only: never the URL (a notificationUrl may carry the merchant's
    // own token), the body, the signature or the secret.
    const fields = { deliveryId: row.id, eventId: row.event_id, endpointId: row.endpoint_id, mode: row.mode, attempt: o.attempt, statusCode: o.f.result.statusCode, error: o.error };
    if (o.abandon) {
      logger.warn(fields, row.endpoint_id ? 'webhook abandoned; endpoint taken out of service' : 'webhook to notificationUrl abandoned');
    } else if (row.mode === 'test') {
      // In test mode the receiver is the developer's own, being written: its failures are what they need to see.
      logger.warn({ ...fields, nextAttemptAt: o.next }, 'test-mode webhook attempt failed; it will be retried');
    } else {
      logger.info({ ...fields, nextAttemptAt: o.next }, 'webhook attempt failed; it will be retried');
    }
  }
}

// SQLite: the batch in two statements of fixed texts (SQLite has no INSERT inside WITH), whatever its size and
// outcomes, each outcome a row of a JSON array read by json_each: the deliveries updated where their claim token is
// still there, then the attempts of those updated.

/** An outcome as SQLite's UPDATE reads it: [id, token, status, attempt, next_attempt_at, status code, error]. */
const deliveryColumns = (o: Outcome) => [o.f.c.row.id, o.f.c.row.claim_token, o.status, o.attempt, o.next, o.f.result.statusCode, o.error];

const updateDeliveriesSqlite = compiledQuery((db, p: { now: string; outcomes: string }) => ({
  compile: () => sql<{ id: string }>`
    update webhook_deliveries as d
    set status = o.value ->> 2, attempt_count = o.value ->> 3, claim_token = null, lease_until = null,
      last_status_code = o.value ->> 5, last_error = o.value ->> 6, updated_at = ${p.now},
      next_attempt_at = coalesce(o.value ->> 4, d.next_attempt_at)
    from json_each(${p.outcomes}) as o
    where d.id = o.value ->> 0 and d.claim_token = o.value ->> 1
    returning id`.compile(db),
}));

/** An attempt as SQLite's INSERT reads it, in webhook_attempts' column order. */
const attemptColumns = (o: Outcome) => {
  const { c, started, result } = o.f;
  return [newTimeOrderedId('att'), c.row.id, c.row.event_id, o.attempt, started.toISOString(), result.statusCode, result.latencyMs, o.ok ? 1 : 0, result.excerpt, o.error];
};

const insertAttemptsSqlite = compiledQuery((db, p: { attempts: string }) => ({
  compile: () => sql`
    insert into webhook_attempts (id, delivery_id, event_id, attempt, started_at, status_code, latency_ms, succeeded, response_excerpt, error)
    select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9
    from json_each(${p.attempts})`.compile(db),
}));

/**
 * PostgreSQL: the batch in one statement. Each outcome is a row of the unnested arrays; a delivery is updated only
 * where its claim token is still there (else its claim was lost: nothing of it is written), and the attempts and
 * endpoints taken out of service are written only for the deliveries updated. Returns the ids updated.
 */
async function recordInOneStatement({ db }: DeliveryContext, outcomes: Outcome[], nowIso: string): Promise<Set<string>> {
  const cols = {
    id: [] as string[], token: [] as string[], status: [] as string[], attempt: [] as number[], next: [] as Array<string | null>,
    code: [] as Array<number | null>, error: [] as Array<string | null>, attemptId: [] as string[], started: [] as string[],
    latency: [] as number[], excerpt: [] as Array<string | null>, succeeded: [] as number[], abandon: [] as number[],
  };
  for (const o of outcomes) {
    const { c, result, started } = o.f;
    cols.id.push(c.row.id);
    cols.token.push(c.row.claim_token!);
    cols.status.push(o.status);
    cols.attempt.push(o.attempt);
    cols.next.push(o.next);
    cols.code.push(result.statusCode);
    cols.error.push(o.error);
    cols.attemptId.push(newTimeOrderedId('att'));
    cols.started.push(started.toISOString());
    cols.latency.push(result.latencyMs);
    cols.excerpt.push(result.excerpt);
    cols.succeeded.push(o.ok ? 1 : 0);
    cols.abandon.push(o.abandon ? 1 : 0);
  }
  const parameters = [nowIso, ...Object.values(cols)];
  db.keepPrepared?.(RECORD_SQL);
  const { rows } = await db.kysely.executeQuery<{ id: string }>(CompiledQuery.raw(RECORD_SQL, parameters));
  return new Set(rows.map((r) => r.id));
}

const RECORD_SQL = `
  with o as (
    select * from unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::int[], $8::text[], $9::text[],
      $10::text[], $11::int[], $12::text[], $13::int[], $14::int[])
      as o(id, token, status, attempt, next_at, code, error, attempt_id, started_at, latency, excerpt, succeeded, abandon)
  ), u as (
    update webhook_deliveries d
    set status = o.status, attempt_count = o.attempt, claim_token = null, lease_until = null, last_status_code = o.code,
      last_error = o.error, updated_at = $1, next_attempt_at = coalesce(o.next_at, d.next_attempt_at)
    from o
    where d.id = o.id and d.claim_token = o.token
    returning d.id, d.event_id, d.endpoint_id
  ), a as (
    insert into webhook_attempts (id, delivery_id, event_id, attempt, started_at, status_code, latency_ms, succeeded, response_excerpt, error)
    select o.attempt_id, o.id, u.event_id, o.attempt, o.started_at, o.code, o.latency, o.succeeded, o.excerpt, o.error
    from o join u on u.id = o.id
  ), x as (
    update webhook_endpoints
    set enabled = 0, disabled_reason = 'failing', disabled_at = $1, updated_at = $1
    where id in (select u.endpoint_id from u join o on o.id = u.id where o.abandon = 1 and u.endpoint_id is not null)
  )
  select id from u`;
