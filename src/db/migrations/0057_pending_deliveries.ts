import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

// The delivery queue's indexes hold only the rows each reader looks for (docs/performance.md, "Webhook delivery at
// 3,000 events/s"). `webhook_deliveries_due` (status, next_attempt_at, event_seq) and `webhook_deliveries_lease`
// (status, lease_until, event_seq) held every delivery ever made, and each of a delivery's three writes (recorded
// pending, claimed, recorded sent) moved its entry in both. Now:
// - `webhook_deliveries_pending`: the pending rows only, in due order, with what the claim filters on (target and
//   endpoint), so SQLite's due read walks the index alone; a delivery enters it when recorded and leaves it when
//   claimed (or again when a failed attempt puts it back for a retry);
// - `webhook_deliveries_sending`: the claimed rows only, in lease order (the look for stale claims);
// - `webhook_deliveries_abandoned`: the abandoned rows only, which /metrics counts (never deleted, rarely written).
// A partial index serves only queries whose conditions name its status as a literal: the claims, /metrics and the
// endpoints' updates of their pending deliveries do (src/events/delivery/claim.ts, src/events/queue-depth.ts,
// src/modules/webhooks/webhooks.service.ts). Succeeded rows, nearly all of the table, are in no status index.
//
// The endpoints an event goes to are kept in each process (src/events/endpoint-cache.ts). PostgreSQL: a statement that
// creates or removes endpoints, or changes the types one accepts, its store or its deletion, sends NOTIFY
// motu_reference (migration 0011) so that every other process reads them again; taking an endpoint out of service or
// back (the worker's write, the merchant's) sends nothing: the statement that writes the deliveries reads that itself.
// SQLite needs nothing: PRAGMA data_version tells the other processes.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index webhook_deliveries_pending on webhook_deliveries (next_attempt_at, event_seq, target_key, endpoint_id) where status = 'pending'`.execute(db);
  await sql`create index webhook_deliveries_sending on webhook_deliveries (lease_until, event_seq) where status = 'sending'`.execute(db);
  await sql`create index webhook_deliveries_abandoned on webhook_deliveries (created_at) where status = 'abandoned'`.execute(db);
  await sql`drop index webhook_deliveries_due`.execute(db);
  await sql`drop index webhook_deliveries_lease`.execute(db);
  if (!isPostgres(db)) return;
  await sql`create trigger webhook_endpoints_reference_changed after insert or delete or truncate on webhook_endpoints
    for each statement execute function motu_reference_changed()`.execute(db);
  await sql`create trigger webhook_endpoints_reference_updated after update on webhook_endpoints for each row
    when (old.events is distinct from new.events or old.store_id is distinct from new.store_id
      or old.deleted_at is distinct from new.deleted_at or old.merchant_id is distinct from new.merchant_id
      or old.mode is distinct from new.mode)
    execute function motu_reference_changed()`.execute(db);
}
