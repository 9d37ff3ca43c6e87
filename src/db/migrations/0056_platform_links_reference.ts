import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

// Platform links join the reference rows (src/db/reference-cache.ts): a split payment checks that each of its sellers
// is linked to the platform with an open account, and that check is now read from the process's cache while nothing
// has changed. PostgreSQL: every statement that changes platform_links sends NOTIFY motu_reference, as those of the
// other reference tables do (migration 0011). SQLite needs nothing: PRAGMA data_version tells the same.
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`create trigger platform_links_reference_changed after insert or update or delete or truncate on platform_links
    for each statement execute function motu_reference_changed()`.execute(db);
}
