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
//   batch may run and commit; `sync()` coalesces (one fsync in flight, at most one more queued behind it).
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

  private async runBatch(): Promise<void> {
    if (this.running || this.queue.length === 0) return;
    this.running = true;
    const batch = this.queue.splice(0, this.maxBatch);
    const outcomes: Outcome[] = [];
    let synced: Promise<void> | undefined;
    let failed = false;
    try {
      await this.kysely.transaction().execute(async (trx) => {
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
        this.deferSync?.();
      });
      // Committed, maybe not on disk yet: the next batch may run meanwhile, but nobody hears of these rows before
      // an fsync that started after this COMMIT has returned.
      synced = this.sync?.();
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
    let syncError: unknown;
    try {
      await synced;
    } catch (error) {
      syncError = error ?? new Error('fsync failed');
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (!outcome.ok) item.reject(outcome.error);
      else if (syncError !== undefined) item.reject(syncError);
      else item.resolve(outcome.value);
    });
  }
}
