// The one place that knows which database we run on. Everything else gets a `Database`
// and asks it for capabilities, never `if (sqlite)`.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import type { DB } from './schema.js';
import { GroupCommitter } from './group-commit.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Capabilities {
  /** `SELECT … FOR UPDATE SKIP LOCKED` exists: several workers may claim rows concurrently. */
  readonly skipLocked: boolean;
  /** Several processes may share the database. */
  readonly multiProcess: boolean;
}

export type Trx = Transaction<DB>;

export interface Database {
  readonly kysely: Kysely<DB>;
  readonly dialect: Dialect;
  readonly caps: Capabilities;
  /** Runs `fn` in one transaction: everything it writes commits together or not at all. */
  transaction<T>(fn: (trx: Trx) => Promise<T>): Promise<T>;
  isUniqueViolation(err: unknown): boolean;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  /** Maximum pooled connections on PostgreSQL. */
  poolSize?: number;
  /** SQLite: concurrent transactions share one durable commit (default true); see group-commit.ts. */
  groupCommit?: boolean;
}

// int8 (count(*), sums) arrives as a string by default; our integers stay far below 2^53.
pg.types.setTypeParser(20, (value: string) => Number(value));

export function openDatabase(options: DatabaseOptions): Database {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.poolSize ?? 10)
    : openSqlite(options.dataDir, options.groupCommit ?? true);
}

function openSqlite(dataDir: string, groupCommit: boolean): Database {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'motu.sqlite');
  const native = new SQLite(file);
  native.pragma('journal_mode = WAL');
  native.pragma('synchronous = FULL');
  native.pragma('foreign_keys = ON');
  native.pragma('busy_timeout = 5000');
  const kysely = new Kysely<DB>({ dialect: new SqliteDialect({ database: cachingStatements(native) }) });
  // The batch's savepoints run straight on the one connection, which the batch's transaction holds.
  const committer = groupCommit ? new GroupCommitter(kysely, { exec: (statement) => native.exec(statement) }) : undefined;
  return {
    kysely,
    dialect: 'sqlite',
    caps: { skipLocked: false, multiProcess: false },
    transaction: (fn) => (committer ? committer.run(fn) : kysely.transaction().execute(fn)),
    isUniqueViolation: (err) =>
      typeof err === 'object' && err !== null && String((err as { code?: unknown }).code).startsWith('SQLITE_CONSTRAINT_UNIQUE') ||
      (typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY'),
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: () => kysely.destroy(),
  };
}

/**
 * Kysely prepares every query anew; parsing the SQL costs as much as running a small insert. The queries of
 * a service are few and fixed, so prepared statements are kept; past `size` distinct texts (queries built with
 * variable-length IN lists, say) the oldest is dropped. A hit costs one Map lookup, nothing more.
 */
function cachingStatements(native: SQLite.Database, size = 1024) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => native.close(),
    prepare(text: string): SQLite.Statement {
      let statement = cache.get(text);
      if (statement === undefined) {
        statement = native.prepare(text);
        if (cache.size >= size) cache.delete(cache.keys().next().value!);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}

function openPostgres(connectionString: string, max: number): Database {
  const pool = new pg.Pool({ connectionString, max });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    kysely,
    dialect: 'postgres',
    caps: { skipLocked: true, multiProcess: true },
    transaction: (fn) => kysely.transaction().execute(fn),
    isUniqueViolation: (err) => typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505',
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: () => kysely.destroy(),
  };
}
