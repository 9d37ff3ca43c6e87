import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

// PostgreSQL only: foreign keys whose check every card payment's events ran for nothing.
// - webhook_events.merchant_id → merchants: recording an event ran a query and took a FOR KEY SHARE lock on the
//   merchant's row, every concurrent payment of the merchant on that one row (several lockers at once make a multixact
//   of them, written to the merchant's page). Merchants are permanent and their ids never change (migration 0013's
//   trigger), and an event names the merchant the request was resolved to, as payments and sessions do since 0013.
// - webhook_deliveries.event_id → webhook_events: each delivery is written by the statement that writes its event
//   (src/events/outbox.ts), and its check locked that new row; events are never deleted.
// SQLite keeps both: its checks are index reads in the same process, and dropping one would rebuild the table.
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`alter table webhook_events drop constraint webhook_events_merchant_id_fkey`.execute(db);
  await sql`alter table webhook_deliveries drop constraint webhook_deliveries_event_id_fkey`.execute(db);
}
