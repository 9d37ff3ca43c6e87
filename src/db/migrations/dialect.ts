// The one dialect test of the migrations: a few steps are written once per dialect (PostgreSQL's sequences and
// triggers, SQLite's table rebuilds), and they ask here which one runs.
import { PostgresAdapter, type Kysely } from 'kysely';

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
