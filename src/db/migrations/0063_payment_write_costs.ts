import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

// PostgreSQL only: two costs every card payment paid on the server.
// - Foreign keys whose check a payment's events ran for nothing. Recording an event checked webhook_events.merchant_id
//   against merchants: a query, and a FOR KEY SHARE lock on the merchant's row, taken by every concurrent payment of
//   the merchant on that one row (several lockers at once make a multixact of them). Merchants are permanent and their
//   ids never change (migration 0013's trigger), and an event names the merchant the request was resolved to, as
//   payments and sessions do since 0013. Each delivery checked webhook_deliveries.event_id against the event written
//   by the same statement (src/events/outbox.ts), locking that new row; events are never deleted. SQLite keeps both
//   (index reads in the same process; dropping one would rebuild the table).
// - payment_sessions' counters (tokens_issued at tokenization, card_attempts at each authorization) change no indexed
//   column, so PostgreSQL can write the new row version in the same page and no index (a HOT update), but only where
//   the page has room: inserted one after the other, sessions filled their pages, and each update wrote the row on
//   another page and an entry in every index of the table. A fill factor of 85 leaves each new page room for the
//   versions of its rows' updates (older pages keep their layout).
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`alter table webhook_events drop constraint webhook_events_merchant_id_fkey`.execute(db);
  await sql`alter table webhook_deliveries drop constraint webhook_deliveries_event_id_fkey`.execute(db);
  await sql`alter table payment_sessions set (fillfactor = 85)`.execute(db);
}
