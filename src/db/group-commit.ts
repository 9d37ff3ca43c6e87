// Group commit for the embedded database. With `synchronous=FULL` every COMMIT waits for an fsync, and
// better-sqlite3 does that fsync on the event loop: one commit per request caps throughput at the disk's
// fsync rate. Here concurrent transactions share commits without giving up durability:
//
// - `run(fn)` queues fn; a batch starts on the next turn of the event loop (setImmediate), after the
//   requests that arrived in the same I/O phase have queued theirs too;
// - a batch runs its fns one after the other inside ONE `BEGIN IMMEDIATE … COMMIT`, each inside its own
//   SAVEPOINT: a fn that throws rolls back only its savepoint and rejects only its own caller;
// - every caller is resolved only after the COMMIT returned, so a resolved transaction is on disk
//   (a 201 still means "stored"). If the COMMIT itself fails, every caller of the batch is rejected.
// - with `sync` (SQLite, database.ts), the COMMIT itself does not fsync: the batch then awaits `sync()`, an fsync in
//   libuv's thread pool, before resolving its callers. Meanwhile the event loop keeps parsing requests and the next
//   batch's statements wait for it (the batch holds the connection until then), so no reader sees rows before they are
//   durable; the event loop meanwhile parses and validates the next requests. `sync()` coalesces.
import { sql, type Kysely, type Transaction } from 'kysely';

interface Pending<DB> {
  fn: (trx: Transaction<DB>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface GroupCommitOptions {
  /** Upper bound of transactions per commit, so one commit never holds the writer for too long. */
  maxBatch?: number;
  /**
   * Runs a statement directly on the connection the batch's transaction holds (better-sqlite3's `exec`), so
   * the savepoint statements skip Kysely's query building. Without it they go through the transaction.
   */
  exec?: (statement: string) => void;
  /** Called at the end of the batch, just before its COMMIT: that COMMIT is not to be synced by the database. */
  deferSync?: () => void;
  /** Makes the deferred COMMIT durable; callers are resolved only after it resolved. */
  sync?: () => Promise<void>;
}

export class GroupCommitter<DB> {
  private queue: Pending<DB>[] = [];
  private running = false;
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly exec: ((statement: string, trx: Transaction<DB>) => Promise<unknown> | void);
  private readonly deferSync: (() => void) | undefined;
  private readonly sync: (() => Promise<void>) | undefined;

  constructor(private readonly kysely: Kysely<DB>, options: GroupCommitOptions = {}) {
    this.maxBatch = options.maxBatch ?? 256;
    this.deferSync = options.sync ? options.deferSync : undefined;
    this.sync = options.deferSync ? options.sync : undefined;
    const direct = options.exec;
    this.exec = direct ? (statement) => direct(statement) : (statement, trx) => sql.raw(statement).execute(trx);
  }

  run<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running || this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.runBatch();
    });
  }

  private async runItems(batch: Pending<DB>[], outcomes: Outcome[], trx: Transaction<DB>): Promise<void> {
    for (const item of batch) {
      await this.exec('SAVEPOINT motu_tx', trx);
      try {
        const value = await item.fn(trx);
        await this.exec('RELEASE SAVEPOINT motu_tx', trx);
        outcomes.push({ ok: true, value });
      } catch (error) {
        // Undo only this caller's writes. If even that fails, SQLite has aborted the whole
        // transaction (disk full, I/O error): let the batch fail and every caller see it.
        await this.exec('ROLLBACK TO SAVEPOINT motu_tx', trx);
        await this.exec('RELEASE SAVEPOINT motu_tx', trx);
        outcomes.push({ ok: false, error });
      }
    }
  }

  private async runBatch(): Promise<void> {
    if (this.running || this.queue.length === 0) return;
    this.running = true;
    const batch = this.queue.splice(0, this.maxBatch);
    const outcomes: Outcome[] = [];
    let syncError: unknown;
    let failed = false;
    try {
      // The batch holds the one connection from BEGIN until its COMMIT is durable: no other statement, read or
      // write, runs before the fsync returned, so nobody sees a row that a power cut could still take back.
      // The event loop stays free meanwhile: it parses and validates the next requests, which queue for the next batch.
      await this.kysely.connection().execute(async (conn) => {
        const trx = conn as unknown as Transaction<DB>;
        await this.exec('BEGIN IMMEDIATE', trx);
        try {
          await this.runItems(batch, outcomes, trx);
          this.deferSync?.();
          await this.exec('COMMIT', trx);
        } catch (error) {
          await Promise.resolve(this.exec('ROLLBACK', trx)).catch(() => {});
          throw error;
        }
        try {
          await this.sync?.();
        } catch (error) {
          syncError = error ?? new Error('fsync failed');
        }
      });
    } catch (error) {
      // Nothing of this batch was committed: each caller fails with its own error if it had one,
      // otherwise with the error that stopped the commit.
      failed = true;
      batch.forEach((item, i) => {
        const outcome = outcomes[i];
        item.reject(outcome && !outcome.ok ? outcome.error : error);
      });
    } finally {
      this.running = false;
      this.schedule();
    }
    if (failed) return;
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (!outcome.ok) item.reject(outcome.error);
      else if (syncError !== undefined) item.reject(syncError);
      else item.resolve(outcome.value);
    });
  }
}
