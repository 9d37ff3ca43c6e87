import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

// Fewer statements per card payment (docs/performance.md, History, "2026-11-28: statements per payment"):
// - `payments_captured` (migration 0050) was the back-office home's 30-day volume, read from the captured payments; the
//   home reads capture_volume since migration 0052, and no other query names a merchant's captured payments by date.
//   Every capture still wrote it (one of the four indexes its UPDATE of payments changes): dropped. A partial index is
//   only used by a query whose conditions imply `captured_at is not null`; the only ones left are the ledger's check
//   (`motu ledger verify`, every captured payment since the ledger began) and the benchmarks' rebuild of the volume,
//   both reads of the whole table either way.
// - `agency_mandates` joins the reference rows (src/db/reference-cache.ts): whether an account ever gave an agency a
//   mandate is kept in the process, so the answers about a payment of an account that never did skip the lookup of
//   what an agency created. PostgreSQL tells the other processes as migration 0011 does for the other reference tables.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_captured').ifExists().execute();
  if (isPostgres(db)) {
    await sql`create trigger agency_mandates_reference_changed after insert or update or delete or truncate on agency_mandates
      for each statement execute function motu_reference_changed()`.execute(db);
  }
}
