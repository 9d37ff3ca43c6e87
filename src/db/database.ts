// The one place that knows which database we run on. Everything else gets a `Database`
// and asks it for capabilities, never `if (sqlite)`.
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import type { DB } from './schema.js';
import { GroupCommitter } from './group-commit.js';
import { ensurePrivateDir, ensurePrivateFile, tightenIfPresent } from '../shared/private-files.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Capabilities {
  /** `SELECT … FOR UPDATE SKIP LOCKED` exists: several workers may claim rows concurrently. */
  readonly skipLocked: boolean;
  /** Several processes may share the database. */
  readonly multiProcess: boolean;
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
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * A number that changes whenever a row of `merchants`, `stores`, `contracts` or `api_keys` may have changed, so that
   * these few, rarely written rows may be cached in the process (src/db/reference-cache.ts); `undefined` while that
   * cannot be told, and nothing may be cached. It changes on a write naming one of them by this process (before the
   * statement, and again when its transaction ends) and on a commit by another process: SQLite's PRAGMA data_version,
   * read once per transaction and at most once per millisecond outside one (a commit is seen by what begins a
   * millisecond after it); on PostgreSQL a NOTIFY from migration 0011's triggers, heard on a connection of its
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

// int8 (count(*), sums) arrives as a string by default; our integers stay far below 2^53.
pg.types.setTypeParser(20, (value: string) => Number(value));

export function openDatabase(options: DatabaseOptions): Database {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.poolSize ?? 10, options.listenerHeartbeatMs)
    : openSqlite(options.dataDir, options.groupCommit ?? true);
}

function openSqlite(dataDir: string, groupCommit: boolean): Database {
  ensurePrivateDir(dataDir);
  const file = path.join(dataDir, 'motu.sqlite');
  // SQLite gives its -wal and -shm files the database file's mode: a database file made 0600 first keeps all three
  // private (an empty file is a new database to SQLite).
  ensurePrivateFile(file);
  tightenIfPresent(`${file}-wal`);
  tightenIfPresent(`${file}-shm`);
  const native = new SQLite(file);
  // 2 KiB pages for a new database (an existing one keeps its size). A payment's random identifiers put each insert on a
  // random leaf of each primary-key index, and every page dirtied is written whole to the WAL, fsynced, then copied by
  // the checkpoint: with 2 KiB pages a session writes 9 KiB to the WAL instead of 17 (docs/performance.md, "Sessions on
  // SQLite"). Rows up to about 2 KiB still fit in one page.
  native.pragma('page_size = 2048');
  native.pragma('journal_mode = WAL');
  // Durability is synchronous=FULL's, done by us (WalSync below): SQLite itself does not fsync at commit, so that the
  // group commit can wait for its fsync off the event loop. Checkpoints still sync the WAL and the database file.
  native.pragma('synchronous = NORMAL');
  native.pragma('foreign_keys = ON');
  native.pragma('busy_timeout = 5000');
  // 16 MiB of page cache (default 2 MiB): the indexes on random identifiers outgrow 2 MiB after some ten thousand
  // payments, and then every insert reads its leaf page back from the OS.
  native.pragma('cache_size = -16384');
  // Checkpoints run in a thread of their own (Checkpointer), once a second: this connection seldom stops to copy the WAL
  // into the database file and fsync both, which it would otherwise do inside a COMMIT every 1000 pages. Once a second
  // rather than every 100 ms: the pages every batch rewrites (the tail of each table, the last leaf of each index on
  // time) are copied once instead of ten times, and the database file's fsync, which delays the WAL's own, comes ten
  // times less often (A/B, 3 rounds: 5,477 → 6,651 sessions/s at 32 connections; docs/performance.md).
  // The writer still checkpoints past 64 MiB of WAL (about a second of sessions at full speed), by then mostly copied
  // already: under continuous writes the thread's checkpoint is always a little behind, the WAL is only reset by a
  // checkpoint that caught up, and it grew.
  native.pragma(`wal_autocheckpoint = ${(64 * 1024 * 1024) / (native.pragma('page_size', { simple: true }) as number)}`);
  const checkpointer = new Checkpointer(file, 1000);
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
  const transaction = <T>(fn: (trx: Trx) => Promise<T>): Promise<T> => (committer ? committer.run(fn) : kysely.transaction().execute(fn));
  return {
    kysely,
    dialect: 'sqlite',
    caps: { skipLocked: false, multiProcess: false },
    // One writer at a time: a transaction's reads cannot be overtaken, and a claim cannot be contested.
    lockForUpdate: (query) => query,
    skipLockedRows: (query) => query,
    referenceStamp: () => stamp.current(),
    runInTransaction: (_trx, text, parameters) => {
      if (!native.inTransaction) throw new Error('runInTransaction outside a transaction');
      statements.prepare(text).run(parameters);
    },
    transaction,
    singleWrite: transaction,
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

  constructor(file: string, intervalMs: number) {
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
  /** When data_version was last read outside a transaction (performance.now()). */
  private readAt = -Infinity;
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
    // ends, so data_version is read once per transaction.
    // Outside one, reading it opens and closes a read transaction (file locks: a few system calls, about 4 % of a
    // session's time on the event loop), so it is read at most once per millisecond: another process's change is
    // seen by requests that begin at least a millisecond after its commit.
    const inTransaction = this.native.inTransaction;
    const now = inTransaction ? -Infinity : performance.now();
    if (inTransaction ? this.readInTransaction : now - this.readAt < 1) return this.generation;
    this.readInTransaction = inTransaction;
    this.readAt = now;
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

function openPostgres(connectionString: string, max: number, listenerHeartbeatMs = 5000): Database {
  const pool = new pg.Pool({ connectionString, max });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const stamp = new PostgresReferenceStamp(connectionString, 1000, listenerHeartbeatMs);
  const prepared = new Map<string, string>(); // statement text → name, the same on every connection
  pool.on('connect', (client) => {
    stamp.track(client);
    keepPreparedOn(client, prepared);
  });
  const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    kysely,
    dialect: 'postgres',
    caps: { skipLocked: true, multiProcess: true },
    lockForUpdate: (query) => query.forUpdate(),
    skipLockedRows: (query) => query.forUpdate().skipLocked(),
    referenceStamp: () => stamp.current(),
    keepPrepared: (text) => {
      if (!prepared.has(text) && prepared.size < 256) prepared.set(text, `motu_${prepared.size + 1}`);
    },
    transaction: async (fn) => {
      const hooks: Array<(kysely: Kysely<DB>) => void> = [];
      const result = await kysely.transaction().execute((trx) => {
        afterCommitHooks.set(trx, hooks);
        return fn(trx);
      });
      for (const hook of hooks) hook(kysely);
      return result;
    },
    singleWrite: (fn) => fn(kysely),
    isUniqueViolation: (err) => typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505',
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: async () => {
      await stamp.close();
      await kysely.destroy();
    },
  };
}

/** Database.keepPrepared: Kysely's `query(text, values)` becomes `query({ name, text, values })` for the texts kept. */
function keepPreparedOn(client: pg.PoolClient, prepared: ReadonlyMap<string, string>): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const name = typeof args[0] === 'string' && Array.isArray(args[1]) ? prepared.get(args[0]) : undefined;
    return name === undefined ? query(...args) : query({ name, text: args[0], values: args[1] }, ...args.slice(2));
  };
}

/**
 * Database.referenceStamp on PostgreSQL. Other processes' commits are heard as notifications on channel
 * `motu_reference` (migration 0011), on one connection of its own; this process's writes are seen on the pooled
 * connections themselves (`track`), as on SQLite, since their notification arrives only after the commit has returned.
 */
class PostgresReferenceStamp {
  private generation = 0;
  private listener: pg.Client | undefined;
  private listening = false;
  private closed = false;
  private lastAttempt = 0;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly connectionString: string,
    private readonly retryMs = 1000,
    private readonly heartbeatMs = 5000,
  ) {}

  current(): number | undefined {
    if (this.listening) return this.generation;
    this.listen();
    return undefined;
  }

  /** Wraps a pooled connection's `query`: a write naming a reference table changes the stamp as on SQLite. */
  track(client: pg.PoolClient): void {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    let referenceWrite = false; // in the transaction still open on this connection
    const after = (role: 'write' | 'end' | undefined) => {
      if (role === 'write') this.generation++;
      else if (role === 'end' && referenceWrite) {
        referenceWrite = false;
        this.generation++;
      }
    };
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: unknown } | undefined)?.text;
      const role = typeof text === 'string' ? this.roleOf(text) : undefined;
      if (role === undefined) return query(...args);
      if (role === 'write') {
        referenceWrite = true; // a rollback or commit to come changes the stamp again
        this.generation++; // what other requests load from now on may be about to change
      }
      const callback = typeof args[args.length - 1] === 'function' ? (args[args.length - 1] as (...r: unknown[]) => void) : undefined;
      if (callback) {
        return query(...args.slice(0, -1), (...result: unknown[]) => {
          after(role);
          callback(...result);
        });
      }
      return (query(...args) as Promise<unknown>).then(
        (result) => {
          after(role);
          return result;
        },
        (error: unknown) => {
          after(role);
          throw error;
        },
      );
    };
  }

  /** Statement texts already classified (the same few texts run over and over; a regular expression on a 2 kB INSERT is not free). */
  private readonly roles = new Map<string, 'write' | 'end' | undefined>();

  private roleOf(text: string): 'write' | 'end' | undefined {
    if (this.roles.has(text)) return this.roles.get(text);
    const role = ENDS_PG_TRANSACTION.test(text) ? 'end' : !/^\s*select\b/i.test(text) && REFERENCE_TABLES.test(text) ? 'write' : undefined;
    if (this.roles.size >= 1024) this.roles.clear();
    this.roles.set(text, role);
    return role;
  }

  /** Connects the listener, at most once per `retryMs` while it fails. */
  private listen(): void {
    if (this.listener || this.closed || Date.now() - this.lastAttempt < this.retryMs) return;
    this.lastAttempt = Date.now();
    const client = new pg.Client({
      connectionString: this.connectionString,
      application_name: 'motu-reference-listener',
      connectionTimeoutMillis: this.heartbeatMs,
      keepAlive: true,
    });
    this.listener = client;
    const lost = () => {
      if (this.listener !== client) return;
      clearInterval(this.heartbeat);
      this.listener = undefined;
      this.listening = false;
      this.generation++; // whatever was missed meanwhile
      void client.end().catch(() => {});
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', () => {
      this.generation++;
    });
    client
      .connect()
      .then(() => client.query('LISTEN motu_reference'))
      .then(() => {
        if (this.listener !== client) return;
        this.generation++; // commits made before LISTEN were not heard: nothing cached before now is trusted
        this.listening = true;
        // A connection cut without a word (a network partition, a failover behind a proxy) would otherwise leave the
        // cache trusted with nothing arriving: a query every heartbeat, and the listener is dropped when the previous
        // one has not answered by the next (then nothing is cached until a new listener is up).
        let waiting = false;
        this.heartbeat = setInterval(() => {
          if (waiting) return lost();
          waiting = true;
          client.query('select 1').then(() => {
            waiting = false;
          }, lost);
        }, this.heartbeatMs);
        this.heartbeat.unref();
      })
      .catch(lost);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    const client = this.listener;
    this.listener = undefined;
    this.listening = false;
    if (client) await client.end().catch(() => {});
  }
}

const ENDS_PG_TRANSACTION = /^\s*(commit|end|rollback)\b/i;
