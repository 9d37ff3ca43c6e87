// The one place that knows which database we run on. Everything else gets a `Database`
// and asks it for capabilities, never `if (sqlite)`.
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
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
  /**
   * SQLite only: a number that changes whenever a row of `merchants`, `stores`, `contracts` or `api_keys` may have
   * changed, by this process (any write statement naming one of them, any rollback) or by another one (PRAGMA
   * data_version), so that these few, rarely written rows may be cached in the process. Absent on PostgreSQL, where other processes
   * write without telling: nothing is cached there.
   */
  referenceStamp?(): number;
  /**
   * SQLite only: runs a compiled write statement straight on the connection, from inside a `transaction` function
   * (which holds the one connection), as `trx.executeQuery` would but without Kysely's executor. Absent on PostgreSQL.
   */
  runInTransaction?(trx: Trx, text: string, parameters: readonly unknown[]): void;
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
  // Durability is synchronous=FULL's, done by us (WalSync below): SQLite itself does not fsync at commit, so that the
  // group commit can wait for its fsync off the event loop. Checkpoints still sync the WAL and the database file.
  native.pragma('synchronous = NORMAL');
  native.pragma('foreign_keys = ON');
  native.pragma('busy_timeout = 5000');
  // 16 MiB of page cache (default 2 MiB): the indexes on random identifiers outgrow 2 MiB after some ten thousand
  // payments, and then every insert reads its leaf page back from the OS.
  native.pragma('cache_size = -16384');
  // Checkpoints run in a thread of their own (Checkpointer): this connection seldom stops to copy the WAL into the
  // database file and fsync both, which it would otherwise do inside a COMMIT every 1000 pages.
  // The writer still checkpoints past 4096 WAL pages (16 MiB), by then mostly copied already: under continuous writes the
  // thread's checkpoint is always a little behind, the WAL is only reset by a checkpoint that caught up, and it grew.
  native.pragma('wal_autocheckpoint = 4096');
  const checkpointer = new Checkpointer(file);
  const wal = new WalSync(native, `${file}-wal`);
  const stamp = new ReferenceStamp(native);
  const statements = cachingStatements(native, wal, stamp);
  const kysely = new Kysely<DB>({ dialect: new SqliteDialect({ database: statements }) });
  // The batch's savepoints run straight on the one connection, which the batch's transaction holds.
  const committer = groupCommit
    ? new GroupCommitter(kysely, {
        exec: (statement) => {
          statements.prepare(statement).run();
        },
        deferSync: () => wal.deferNextCommit(),
        sync: () => wal.sync(),
      })
    : undefined;
  return {
    kysely,
    dialect: 'sqlite',
    caps: { skipLocked: false, multiProcess: false },
    referenceStamp: () => stamp.current(),
    runInTransaction: (_trx, text, parameters) => {
      if (!native.inTransaction) throw new Error('runInTransaction outside a transaction');
      statements.prepare(text).run(parameters);
    },
    transaction: (fn) => (committer ? committer.run(fn) : kysely.transaction().execute(fn)),
    isUniqueViolation: (err) =>
      typeof err === 'object' && err !== null && String((err as { code?: unknown }).code).startsWith('SQLITE_CONSTRAINT_UNIQUE') ||
      (typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY'),
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: async () => {
      await checkpointer.stop();
      await kysely.destroy(); // the last connection to close checkpoints what is left
      wal.close();
    },
  };
}

/**
 * synchronous=FULL, done outside SQLite. With `synchronous=NORMAL` in WAL mode a COMMIT writes its frames to the WAL
 * without an fsync; this makes every commit durable before anyone hears of it, as FULL would:
 *
 * - a statement that can end a transaction (a write in autocommit, COMMIT, END, RELEASE) is followed, once the
 *   connection is out of any transaction, by an fdatasync of the WAL, on the event loop: exactly what FULL did inside
 *   SQLite (Kysely's own transactions, the non-group-commit mode, migrations);
 * - the group commit instead asks for its next COMMIT to be left unsynced (`deferNextCommit`), then awaits `sync()`,
 *   an fdatasync in libuv's thread pool, before resolving any caller: the event loop parses the next requests
 *   meanwhile. An fdatasync of the WAL makes every frame written before it durable, whatever statement wrote them.
 *
 * The WAL file is never deleted while the connection is open (only truncated after a checkpoint, whose pages SQLite
 * has synced into the database file first), so the descriptor stays valid.
 */
class WalSync {
  private fd: number | undefined;
  private deferNext = false;

  constructor(private readonly native: SQLite.Database, private readonly walPath: string) {}

  /** Called after every statement that may have committed. */
  afterStatement(): void {
    if (this.native.inTransaction) return;
    if (this.deferNext) {
      this.deferNext = false; // the batch's COMMIT (or its ROLLBACK): the batch syncs it
      return;
    }
    fdatasyncSync(this.descriptor());
  }

  deferNextCommit(): void {
    this.deferNext = true;
  }

  /**
   * Resolves once an fdatasync that started after this call has returned. Calls made while one is in flight share
   * the next one, started as soon as the current one returns: at most one in flight and one waiting.
   */
  sync(): Promise<void> {
    if (this.next) return this.next;
    const current = this.current;
    if (!current) return (this.current = this.fdatasync());
    this.next = current
      .catch(() => {})
      .then(() => {
        this.next = undefined;
        return (this.current = this.fdatasync());
      });
    return this.next;
  }

  private current: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  private fdatasync(): Promise<void> {
    const fd = this.descriptor();
    const done: Promise<void> = new Promise((resolve, reject) =>
      fdatasync(fd, (err) => {
        if (this.current === done) this.current = undefined;
        if (err) reject(err);
        else resolve();
      }),
    );
    return done;
  }

  private descriptor(): number {
    if (this.fd === undefined) {
      // The WAL appears with the first write; its directory entry is made durable once, as SQLite does.
      this.fd = openSync(this.walPath, 'r');
      const dir = openSync(path.dirname(this.walPath), 'r');
      try {
        fsyncSync(dir);
      } finally {
        closeSync(dir);
      }
    }
    return this.fd;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * Kysely prepares every query anew; parsing the SQL costs as much as running a small insert. The queries of
 * a service are few and fixed, so prepared statements are kept; past `size` distinct texts (queries built with
 * variable-length IN lists, say) the oldest is dropped. A hit costs one Map lookup, nothing more.
 */
/**
 * A second connection, in a worker thread, that runs `PRAGMA wal_checkpoint(PASSIVE)` every `intervalMs`: it copies
 * the committed WAL frames into the database file and fsyncs (synchronous=FULL on that connection), without blocking
 * the writer, so that the WAL is reset and stays small. A checkpoint with nothing new to copy costs next to nothing.
 */
class Checkpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(file: string, intervalMs = 100) {
    const source = `
      const { parentPort, workerData } = require('node:worker_threads');
      const SQLite = require(workerData.module);
      const db = new SQLite(workerData.file);
      db.pragma('busy_timeout = 5000');
      db.pragma('synchronous = FULL');
      const timer = setInterval(() => {
        try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
      }, workerData.intervalMs);
      parentPort.once('message', () => {
        clearInterval(timer);
        db.close();
        parentPort.close();
      });`;
    this.worker = new Worker(source, {
      eval: true,
      workerData: { module: createRequire(import.meta.url).resolve('better-sqlite3'), file, intervalMs },
      // Not the parent's --import hooks: plain CommonJS, nothing to load.
      execArgv: [],
      stdout: false,
      stderr: false,
    });
    this.worker.unref();
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('error', () => {}); // without it the WAL grows until the next checkpoint at close
  }

  async stop(): Promise<void> {
    this.worker.ref(); // keeps the process alive until the thread has closed its connection
    this.worker.postMessage('stop');
    await this.exited;
  }
}

/** See Database.referenceStamp. */
class ReferenceStamp {
  private generation = 0;
  private dataVersion = -1;
  /** A write naming a reference table happened in the current transaction. */
  private referenceWrite = false;
  /** data_version was read inside the transaction still open. */
  private readInTransaction = false;
  private readonly version: SQLite.Statement<[], number>;

  constructor(private readonly native: SQLite.Database) {
    this.version = native.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /**
   * After a statement that may write or end a transaction: a write naming a reference table changes the stamp, and
   * so does a rollback of a transaction that made one (what was read from it meanwhile is gone).
   */
  after(role: 'write' | 'rollback' | undefined): void {
    if (role === 'write') {
      this.referenceWrite = true;
      this.generation++;
    } else if (role === 'rollback' && this.referenceWrite) {
      this.generation++;
    }
    if (!this.native.inTransaction) {
      this.referenceWrite = false;
      this.readInTransaction = false;
    }
  }

  current(): number {
    // Inside a transaction the connection's snapshot is fixed: no other connection's commit can show before it
    // ends, so data_version (a system call's worth of work) is read once per transaction.
    if (this.readInTransaction && this.native.inTransaction) return this.generation;
    this.readInTransaction = this.native.inTransaction;
    const version = this.version.get()!;
    if (version !== this.dataVersion) {
      this.dataVersion = version; // another connection committed something
      this.generation++;
    }
    return this.generation;
  }
}

const REFERENCE_TABLES = /\b(merchants|stores|contracts|api_keys)\b/i;

function cachingStatements(native: SQLite.Database, wal: WalSync, stamp: ReferenceStamp, size = 1024) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => native.close(),
    prepare(text: string): SQLite.Statement {
      let statement = cache.get(text);
      if (statement === undefined) {
        const role = /^\s*rollback/i.test(text) ? 'rollback' : REFERENCE_TABLES.test(text) ? 'write' : undefined;
        statement = durable(native.prepare(text), text, wal, stamp, role);
        if (cache.size >= size) cache.delete(cache.keys().next().value!);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}

const ENDS_TRANSACTION = /^\s*(commit|end|release|rollback)\b/i;

/** A statement that may commit (a write, or COMMIT/END/RELEASE/ROLLBACK) tells WalSync after it ran; reads stay as they are. */
function durable(statement: SQLite.Statement, text: string, wal: WalSync, stamp: ReferenceStamp, role: 'write' | 'rollback' | undefined): SQLite.Statement {
  if (statement.readonly && !ENDS_TRANSACTION.test(text)) return statement;
  const after = <T>(result: T): T => {
    stamp.after(role);
    wal.afterStatement();
    return result;
  };
  const fail = (error: unknown): never => {
    stamp.after(role === 'write' ? 'write' : 'rollback'); // a failed COMMIT rolls back
    wal.afterStatement(); // a failed COMMIT may still have ended the transaction
    throw error;
  };
  return {
    reader: statement.reader,
    readonly: statement.readonly,
    source: statement.source,
    run: (...params: unknown[]) => {
      try {
        return after(statement.run(...params));
      } catch (error) {
        return fail(error);
      }
    },
    all: (...params: unknown[]) => {
      try {
        return after(statement.all(...params));
      } catch (error) {
        return fail(error);
      }
    },
    get: (...params: unknown[]) => {
      try {
        return after(statement.get(...params));
      } catch (error) {
        return fail(error);
      }
    },
    iterate: (...params: unknown[]) => statement.iterate(...params),
  } as unknown as SQLite.Statement;
}

const afterCommitHooks = new WeakMap<object, Array<(kysely: Kysely<DB>) => void>>();

/**
 * Runs `hook` once the transaction `trx` belongs to has committed (never if it rolls back), with the database's
 * Kysely, outside any transaction. Returns false when this database does not run hooks (SQLite, or a transaction
 * opened outside `Database.transaction`): the caller does its work inside the transaction instead.
 */
export function afterCommit(trx: Trx, hook: (kysely: Kysely<DB>) => void): boolean {
  const hooks = afterCommitHooks.get(trx);
  if (!hooks) return false;
  hooks.push(hook);
  return true;
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
    transaction: async (fn) => {
      const hooks: Array<(kysely: Kysely<DB>) => void> = [];
      const result = await kysely.transaction().execute((trx) => {
        afterCommitHooks.set(trx, hooks);
        return fn(trx);
      });
      for (const hook of hooks) hook(kysely);
      return result;
    },
    isUniqueViolation: (err) => typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505',
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: () => kysely.destroy(),
  };
}
