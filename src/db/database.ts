// The one place that knows which database we run on. Everything else gets a `Database` and asks it what it needs
// (locks, claims, notifications after commit, listening), never `if (sqlite)`. Each dialect's adapter is its own
// folder: sqlite/ (better-sqlite3, group commit, the WAL's fsync off the event loop) and postgres/ (a pool, prepared
// statements, one LISTEN connection per process).
import type { Database, DatabaseOptions } from './adapter.js';
import { openPostgres } from './postgres/postgres.js';
import { openSqlite } from './sqlite/sqlite.js';

export type { Capabilities, Database, DatabaseOptions, Dialect, Lockable, Trx } from './adapter.js';

export function openDatabase(options: DatabaseOptions): Database {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.poolSize ?? 10, options.listenerHeartbeatMs)
    : openSqlite(options.dataDir, options.groupCommit ?? true);
}
