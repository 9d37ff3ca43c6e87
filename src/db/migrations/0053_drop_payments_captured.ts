import type { Kysely } from 'kysely';

// `payments_captured` (migration 0050) was the back-office home's 30-day volume, read from the captured payments; the
// home reads capture_volume since migration 0052, and no other query names a merchant's captured payments by date.
// Every capture still wrote it (one of the four indexes its UPDATE of payments changes): dropped. A partial index is
// only used by a query whose conditions imply `captured_at is not null`; the only ones left are the ledger's check
// (`motu ledger verify`, every captured payment since the ledger began) and the benchmarks' rebuild of the volume,
// both full reads of the table either way.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_captured').ifExists().execute();
}
