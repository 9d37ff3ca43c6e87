// What every module sees of the database, whichever dialect runs underneath: the Database interface each adapter
// (sqlite/, postgres/) implements, and the types that go with it.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Capabilities {
  /** `SELECT … FOR UPDATE SKIP LOCKED` exists: several workers may claim rows concurrently. */
  readonly skipLocked: boolean;
  /** Several processes may share the database. */
  readonly multiProcess: boolean;
  /**
   * `UPDATE a … FROM b … RETURNING b.*`: an update returns the rows of a table it joins, one round trip where a read
   * would follow (PostgreSQL; SQLite's RETURNING names only the table updated).
   */
  readonly updateReturnsJoined: boolean;
}

export type Trx = Transaction<DB>;

/** A select that can take row locks (Kysely's SelectQueryBuilder). */
export interface Lockable<Q> {
  forUpdate(): Q & { skipLocked(): Q };
}

export interface Database {
  readonly kysely: Kysely<DB>;
  readonly dialect: Dialect;
  readonly caps: Capabilities;
  /** Runs `fn` in one transaction: everything it writes commits together or not at all. */
  transaction<T>(fn: (trx: Trx) => Promise<T>): Promise<T>;
  /**
   * Runs `fn`, whose reads decide the one write statement it ends with (compiledInsertPair's, say). SQLite: inside a
   * transaction, which the group commit makes nearly free and which makes the reads and the write one step. PostgreSQL:
   * outside any. The statement is atomic on its own, and a transaction would add two round trips (BEGIN, COMMIT)
   * without giving the reads anything more: under READ COMMITTED each statement reads its own snapshot either way.
   */
  singleWrite<T>(fn: (db: Kysely<DB>) => Promise<T>): Promise<T>;
  /**
   * SQLite only (src/db/together.ts's readTogether): runs `fn`, whose statements (reads only, no transaction) all use
   * the one connection taken once for them, through the handle given (never `db.kysely`, which waits for it).
   */
  readTogether?<T>(fn: (db: Kysely<DB>) => Promise<T>): Promise<T>;
  /**
   * Runs `fn`'s reads on one consistent snapshot of the database, without holding up writers (`motu ledger verify`
   * reads several aggregates that must agree while payments go on). PostgreSQL: a REPEATABLE READ, READ ONLY
   * transaction. SQLite: a read transaction on a connection of its own, which WAL mode gives a snapshot of its own.
   */
  snapshot<T>(fn: (db: Kysely<DB>) => Promise<T>): Promise<T>;
  isUniqueViolation(err: unknown): boolean;
  /**
   * The rows `query` reads, locked until its transaction ends where another process could write them meanwhile
   * (PostgreSQL: FOR UPDATE); as it is where transactions already run one at a time (SQLite's single writer).
   */
  lockForUpdate<Q extends Lockable<Q>>(query: Q): Q;
  /**
   * For a worker claiming due rows: skips the rows another worker's transaction holds (FOR UPDATE SKIP LOCKED) where
   * several workers may claim at once; as it is where one writer claims at a time.
   */
  skipLockedRows<Q extends Lockable<Q>>(query: Q): Q;
  /**
   * Calls `onNotify` when another process notifies `channel` (after its commit), and whenever notifications may have
   * been missed (the listening connection came up or was lost). One listening connection per process, whoever
   * listens. Returns the unsubscribe. Where one process holds the database (SQLite) nothing comes from elsewhere: the
   * in-process signals do the job, and this never calls.
   */
  listen(channel: string, onNotify: () => void): () => void;
  /**
   * This database on a pool of its own of `size` connections (what it shares per process, the listener and the
   * reference stamp, stays shared): a worker whose claims must not queue behind the API's transactions. Closing it
   * closes only its pool. Where there is one connection (SQLite), the database itself, which the caller must not close.
   */
  withPool(size: number): Database;
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * A number that changes whenever a row of `merchants`, `stores`, `contracts`, `api_keys`, `agency_mandates` or `platform_links`, or a
   * webhook endpoint's list, types or store, may have changed, so that these few, rarely written rows may be cached in the process
   * (src/db/reference-cache.ts, src/events/endpoint-cache.ts); `undefined` while that
   * cannot be told, and nothing may be cached. It changes on a write naming one of them by this process (before the
   * statement, and again when its transaction ends) and on a commit by another process: SQLite's PRAGMA data_version,
   * read once per transaction and at most once per millisecond outside one (a commit is seen by what begins a
   * millisecond after it); on PostgreSQL a NOTIFY from the triggers of migrations 0011, 0013, 0053, 0056 and 0057, heard on a connection of its
   * own: `undefined` until it listens and whenever it is lost. Another process's change is heard once its commit's
   * notification has arrived (a few milliseconds; docs/performance.md).
   */
  referenceStamp(): number | undefined;
  /**
   * SQLite only: runs a compiled write statement straight on the connection, from inside a `transaction` function
   * (which holds the one connection), as `trx.executeQuery` would but without Kysely's executor. Absent on PostgreSQL.
   */
  runInTransaction?(trx: Kysely<DB>, text: string, parameters: readonly unknown[]): void;
  /**
   * PostgreSQL only: `text` is a statement run often with parameters (src/db/compiled.ts). Each pooled connection
   * prepares it once under a name and runs it by that name from then on: the server parses and analyses it once per
   * connection instead of once per run (a 70-parameter INSERT: about a third of the server's work). At most 256 texts
   * are kept; later ones run as before. Absent on SQLite, whose statements are all kept prepared (cachingStatements).
   */
  keepPrepared?(text: string): void;
}

export interface DatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  /** Maximum pooled connections on PostgreSQL. */
  poolSize?: number;
  /** SQLite: concurrent transactions share one durable commit (default true); see group-commit.ts. */
  groupCommit?: boolean;
  /**
   * PostgreSQL: how often the reference listener (PostgresReferenceStamp) checks that its connection still answers
   * (default 5000 ms); a listener that has not answered by the next check is dropped.
   */
  listenerHeartbeatMs?: number;
}
