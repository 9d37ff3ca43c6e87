// The SQLite adapter (better-sqlite3): one connection, WAL, durability done by us off the event loop (WalSync), a
// checkpointer thread, statements kept prepared, and the group commit of concurrent transactions.
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { DB } from '../schema.js';
import type { Database, Trx } from '../adapter.js';
import { GroupCommitter } from './group-commit.js';
import { holdDirect } from '../compiled.js';
import { REFERENCE_TABLES } from '../reference-cache.js';
import { ensurePrivateDir, ensurePrivateFile, tightenIfPresent } from '../../shared/private-files.js';

/** The database file's name in MOTU_DATA_DIR. */
export const SQLITE_FILE = 'motu.sqlite';

export function openSqlite(dataDir: string, groupCommit: boolean): Database {
  ensurePrivateDir(dataDir);
  const file = path.join(dataDir, SQLITE_FILE);
  // SQLite gives its -wal and -shm files the database file's mode: a database file made 0600 first keeps all three
  // private (an empty file is a new database to SQLite).
  ensurePrivateFile(file);
  tightenIfPresent(`${file}-wal`);
  tightenIfPresent(`${file}-shm`);
  const native = new SQLite(file);
  // 2 KiB pages for a new database (an existing one keeps its size). A random identifier (a session's, a card token's:
  // the others a payment writes are time-ordered, src/shared/ids.ts) puts each insert on a random leaf of each index
  // keyed by it, and every page dirtied is written whole to the WAL, fsynced, then copied by the checkpoint: with 2 KiB
  // pages a session writes 9 KiB to the WAL instead of 17 (docs/performance.md, "Sessions on SQLite"). Rows up to about
  // 2 KiB still fit in one page.
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
  // Compiled statements (src/db/compiled.ts) given the handle of a hold (a group commit's batch, readTogether) run
  // straight on the connection it holds.
  const direct = (text: string, parameters: readonly unknown[]) => {
    const statement = statements.prepare(text);
    if (statement.reader) return { rows: statement.all(parameters) };
    return { rows: [], numAffectedRows: BigInt(statement.run(parameters).changes) };
  };
  // The batch's savepoints run straight on the one connection, which the batch's transaction holds.
  const committer = groupCommit
    ? new GroupCommitter(kysely, {
        exec: (statement) => {
          statements.prepare(statement).run();
        },
        deferSync: () => wal.deferNextCommit(),
        sync: () => wal.sync(),
        hold: (trx) => holdDirect(trx, direct),
      })
    : undefined;
  const transaction = <T>(fn: (trx: Trx) => Promise<T>): Promise<T> => (committer ? committer.run(fn) : kysely.transaction().execute(fn));
  const database: Database = {
    kysely,
    dialect: 'sqlite',
    caps: { skipLocked: false, multiProcess: false, updateReturnsJoined: false },
    // One writer at a time: a transaction's reads cannot be overtaken, and a claim cannot be contested.
    lockForUpdate: (query) => query,
    skipLockedRows: (query) => query,
    listen: () => () => {},
    referenceStamp: () => stamp.current(),
    runInTransaction: (_trx, text, parameters) => {
      if (!native.inTransaction) throw new Error('runInTransaction outside a transaction');
      statements.prepare(text).run(parameters);
    },
    transaction,
    singleWrite: transaction,
    // The connection taken once, lent to the handle given (Kysely's connection()): no AsyncLocalStorage, whose promise
    // hooks, once entered, every promise of the process would pay.
    readTogether: (fn) => kysely.connection().execute(async (q) => {
      const release = holdDirect(q, direct);
      try {
        return await fn(q);
      } finally {
        release();
      }
    }),
    snapshot: async (fn) => {
      const reader = new SQLite(file, { readonly: true, fileMustExist: true });
      reader.pragma('busy_timeout = 5000');
      // A long read (ledger verify over millions of rows) looks pages up by index in random order: mapped, they are read
      // from the OS's file cache in place, instead of through a private page cache that a big database outgrows (each
      // miss a read call). The mapping is file pages, which the OS shares and evicts; the process allocates nothing.
      reader.pragma(`mmap_size = ${8 * 2 ** 30}`);
      const own = new Kysely<DB>({ dialect: new SqliteDialect({ database: reader }) });
      try {
        return await own.transaction().execute((trx) => fn(trx));
      } finally {
        await own.destroy();
      }
    },
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
    withPool: () => ({ ...database, close: async () => {} }),
  };
  return database;
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


function cachingStatements(native: SQLite.Database, wal: WalSync, stamp: ReferenceStamp, size = 1024) {
  const cache = new Map<string, SQLite.Statement>();
  const profile = statementProfile();
  return {
    close: () => native.close(),
    prepare(text: string): SQLite.Statement {
      let statement = cache.get(text);
      if (statement === undefined) {
        const role = /^\s*rollback/i.test(text) ? 'rollback' : REFERENCE_TABLES.test(text) ? 'write' : undefined;
        statement = durable(native.prepare(text), text, wal, stamp, role);
        if (profile) statement = profile(statement, text);
        if (cache.size >= size) cache.delete(cache.keys().next().value!);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}

/**
 * MOTU_SQL_PROFILE=<file> (%p in it: the process id): each statement's runs and time on the event loop (SQLite's own work included), written to
 * <file> as JSON when the process exits, dearest first. A diagnostic for the benchmarks (bench/checkout.bench.ts passes
 * BENCH_SQL_PROFILE through); off, it costs nothing.
 */
let profiled: Map<string, { runs: number; ns: bigint }> | undefined;
function statementProfile(): ((statement: SQLite.Statement, text: string) => SQLite.Statement) | undefined {
  const file = process.env.MOTU_SQL_PROFILE;
  if (!file) return undefined;
  if (!profiled) {
    const all = (profiled = new Map());
    process.once('exit', () => {
      const rows = [...all].map(([text, t]) => ({ us: Number(t.ns / 1000n), runs: t.runs, text })).sort((a, b) => b.us - a.us);
      writeFileSync(file.replace("%p", String(process.pid)), JSON.stringify(rows, null, 1));
    });
  }
  const totals = profiled;
  return (statement, text) => {
    const total = totals.get(text) ?? { runs: 0, ns: 0n };
    totals.set(text, total);
    const timed = (method: 'run' | 'all' | 'get') => (...params: unknown[]) => {
      const start = process.hrtime.bigint();
      try {
        return (statement[method] as (...p: unknown[]) => unknown)(...params);
      } finally {
        total.runs++;
        total.ns += process.hrtime.bigint() - start;
      }
    };
    return {
      reader: statement.reader,
      readonly: statement.readonly,
      source: statement.source,
      run: timed('run'),
      all: timed('all'),
      get: timed('get'),
      iterate: (...params: unknown[]) => statement.iterate(...params),
    } as unknown as SQLite.Statement;
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
