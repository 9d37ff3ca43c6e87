import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

// PostgreSQL: every statement that changes merchants, stores, contracts or api_keys sends NOTIFY motu_reference, delivered
// when (and only if) its transaction commits, to every process of the database listening on the channel. Each process
// keeps those rows in memory while it hears nothing (src/db/reference-cache.ts, Database.referenceStamp). SQLite needs
// nothing of the kind: PRAGMA data_version tells the same.
export async function up(db: Kysely<any>): Promise<void> {
  if (!(isPostgres(db))) return;
  await sql`create function motu_reference_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('motu_reference', tg_table_name);
      return null;
    end $$`.execute(db);
  for (const table of ['merchants', 'stores', 'contracts', 'api_keys']) {
    await sql`create trigger ${sql.id(`${table}_reference_changed`)} after insert or update or delete or truncate on ${sql.table(table)}
      for each statement execute function motu_reference_changed()`.execute(db);
  }
}
