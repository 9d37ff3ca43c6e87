// Group commit for the embedded database. With `synchronous=FULL` every COMMIT waits for an fsync, and
// better-sqlite3 does that fsync on the event loop: one commit per request caps throughput at the disk's
// fsync rate. Here concurrent transactions share commits without giving up durability:
//
// - `run(fn)` queues fn; a batch starts three turns of the event loop later (setImmediate), after the requests that
//   arrived in the same I/O phase and the next two have queued theirs too;
// - a batch runs its fns one after the other inside ONE `BEGIN IMMEDIATE … COMMIT`, each but the first inside its
//   own SAVEPOINT: a fn that throws rolls back only its own writes and rejects only its own caller (runItems);
// - every caller is resolved only after the COMMIT returned, so a resolved transaction is on disk
//   (a 201 still means "stored"). If the COMMIT itself fails, every caller of the batch is rejected.
// - with `sync` (SQLite, database.ts), the COMMIT itself does not fsync: the batch then awaits `sync()`, an fsync in
//   libuv's thread pool, before resolving its callers. Meanwhile the event loop keeps parsing requests, and the ones
//   that reach `run` form the next batch, committed in the same hold of the connection while that fsync runs. The
//   connection is released only once every COMMIT of the hold is durable, so no reader outside a batch sees rows
//   before they are durable. `sync()` coalesces.
import { sql, type Kysely, type Transaction } from 'kysely';

interface Pending<DB> {
  fn: (trx: Transaction<DB>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface GroupCommitOptions<DB = unknown> {
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
  /** Called with the handle given to the batches' functions when a hold of the connection begins; returns what ends it. */
  hold?: (trx: Transaction<DB>) => () => void;
}

/** Turns of the event loop a batch waits for its requests (see schedule). */
const BATCH_TURNS = 3;

export class GroupCommitter<DB> {
  private queue: Pending<DB>[] = [];
  private running = false;
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly exec: ((statement: string, trx: Transaction<DB>) => Promise<unknown> | void);
  private readonly deferSync: (() => void) | undefined;
  private readonly sync: (() => Promise<void>) | undefined;
  private readonly hold: ((trx: Transaction<DB>) => () => void) | undefined;

  constructor(private readonly kysely: Kysely<DB>, options: GroupCommitOptions<DB> = {}) {
    this.hold = options.hold;
    this.maxBatch = options.maxBatch ?? 256;
    this.deferSync = options.sync ? options.deferSync : undefined;
    this.sync = options.deferSync ? options.sync : undefined;
    const direct = options.exec;
    this.exec = direct ? (statement) => direct(statement) : (statement, trx) => sql.raw(statement).execute(trx);
  }

  run<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      this.arrived?.();
      this.schedule();
    });
  }

  /** Called by `run` once a call is queued, while a hold waits for its fsync (see arrival). */
  private arrived: (() => void) | undefined;

  /**
   * Resolves one turn of the event loop after the next call is queued (the requests read in the same I/O phase join
   * it). A hold waiting for its fsync waits for this or the fsync, whichever comes first, rather than going round the
   * event loop meanwhile: with a slow disk that round cost a core's worth of CPU for nothing.
   */
  private arrival(): Promise<void> {
    return new Promise((resolve) => {
      this.arrived = () => {
        this.arrived = undefined;
        setImmediate(resolve);
      };
    });
  }

  private schedule(): void {
    if (this.running || this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    // BATCH_TURNS turns of the event loop, not one: the requests whose I/O arrives in the next poll phases join the
    // batch too. Requests that come in together (a client's convoy) are all queued by the first turn already; the ones
    // that come back one by one from a call of their own (a live connector's answer from the acquirer) arrive over
    // several turns, and would each make a batch, a COMMIT and its WAL pages of their own (docs/performance.md, "More
    // turns"). The event loop does not sleep meanwhile: with an immediate pending, its poll does not block.
    let turns = BATCH_TURNS;
    const start = () => {
      if (--turns > 0) {
        setImmediate(start);
        return;
      }
      this.scheduled = false;
      void this.runBatch();
    };
    setImmediate(start);
  }

  /**
   * Runs the batch's functions in the transaction BEGIN opened, each undone alone if it throws:
   *
   * - the first runs with no savepoint: nothing else is written in the transaction yet, so if it throws, ROLLBACK
   *   undoes exactly its writes, and the rest of the batch goes on in a new BEGIN IMMEDIATE (a batch of one sends no
   *   savepoint statement at all, and SQLite keeps no copy of the pages it changes);
   * - each of the others runs inside a SAVEPOINT of its own: if it throws, ROLLBACK TO undoes its writes only. Its
   *   savepoint is released as soon as it ended, not left open to the COMMIT: while one is open SQLite copies the
   *   original of every page changed (its sub-journal, in memory up to 64 KiB, then in a temporary file), and only
   *   when none is open does it drop those copies.
   *
   * If undoing fails, SQLite has aborted the whole transaction (disk full, I/O error): the batch fails and every
   * caller sees it. Returns whether a transaction is left to commit (not when the last function ran alone and failed).
   */
  private async runItems(batch: Pending<DB>[], outcomes: Outcome[], trx: Transaction<DB>): Promise<boolean> {
    let first = true;
    for (const item of batch) {
      const alone = first;
      first = false;
      if (!alone) await this.exec('SAVEPOINT motu_tx', trx);
      try {
        const value = await item.fn(trx);
        if (!alone) await this.exec('RELEASE SAVEPOINT motu_tx', trx);
        outcomes.push({ ok: true, value });
      } catch (error) {
        outcomes.push({ ok: false, error });
        if (!alone) {
          await this.exec('ROLLBACK TO SAVEPOINT motu_tx', trx);
          await this.exec('RELEASE SAVEPOINT motu_tx', trx);
          continue;
        }
        // Nothing was written before it in this transaction: the whole of it is this function's. Its ROLLBACK is
        // not synced (a rollback makes nothing durable that an fsync would have to keep).
        this.deferSync?.();
        await this.exec('ROLLBACK', trx);
        if (outcomes.length === batch.length) return false;
        await this.exec('BEGIN IMMEDIATE', trx);
        first = true;
      }
    }
    return true;
  }

  private async runBatch(): Promise<void> {
    if (this.running || this.queue.length === 0) return;
    this.running = true;
    const batches: Batch<DB>[] = [];
    try {
      // The connection is held from the first BEGIN until every COMMIT made during the hold is durable: no other
      // statement, read or write, runs meanwhile, so nobody outside a batch sees a row that a power cut could still take
      // back. While the first batch's fsync runs, the requests parsed meanwhile form further batches in the same hold
      // (their callers, too, resolve only after an fsync that started after their COMMIT): the disk's wait overlaps
      // work. Once the first fsync returned, no new batch joins: readers get the connection after the last fsync.
      await this.kysely.connection().execute(async (conn) => {
        const trx = conn as unknown as Transaction<DB>;
        const release = this.hold?.(trx);
        try {
          const first = await this.commitBatch(this.queue.splice(0, this.maxBatch), trx);
          batches.push(first);
          while (first.durable && !first.done) {
            const next = this.queue.length > 0 ? new Promise((resolve) => setImmediate(resolve)) : this.arrival();
            await Promise.race([first.durable, next]);
            this.arrived = undefined;
            if (!first.done && this.queue.length > 0) batches.push(await this.commitBatch(this.queue.splice(0, this.maxBatch), trx));
          }
          for (const batch of batches) await batch.durable;
        } finally {
          release?.();
        }
      });
    } catch (error) {
      // Only the hold itself failed (the connection): whatever batch has no outcome yet fails with it.
      for (const batch of batches) if (!batch.done) batch.settle(error);
    } finally {
      this.running = false;
      this.schedule();
    }
  }

  /**
   * BEGIN, the batch's functions each in a savepoint, COMMIT; then its fsync is asked for (not awaited). The returned
   * batch settles its callers once that fsync returned (`durable`, which never rejects), or at once if nothing committed.
   */
  private async commitBatch(items: Pending<DB>[], trx: Transaction<DB>): Promise<Batch<DB>> {
    const outcomes: Outcome[] = [];
    const batch: Batch<DB> = {
      done: false,
      durable: undefined,
      settle: (commitError?: unknown, syncError?: unknown) => {
        if (batch.done) return;
        batch.done = true;
        items.forEach((item, i) => {
          const outcome = outcomes[i];
          if (outcome && !outcome.ok) item.reject(outcome.error);
          else if (commitError !== undefined) item.reject(commitError); // nothing of this batch was committed
          else if (syncError !== undefined) item.reject(syncError);
          else item.resolve(outcome!.value);
        });
      },
    };
    try {
      await this.exec('BEGIN IMMEDIATE', trx);
      try {
        if (!(await this.runItems(items, outcomes, trx))) {
          // The last function ran alone in its transaction and failed: rolled back, nothing is left to commit.
          batch.settle();
          return batch;
        }
        this.deferSync?.();
        await this.exec('COMMIT', trx);
      } catch (error) {
        // No transaction may be open any more (SQLite aborted it, or a new BEGIN failed): the error that stopped the
        // batch is the one reported, not the ROLLBACK's.
        try {
          await this.exec('ROLLBACK', trx);
        } catch {}
        throw error;
      }
    } catch (error) {
      // Each caller fails with its own error if it had one, otherwise with the error that stopped the commit.
      batch.settle(error ?? new Error('commit failed'));
      return batch;
    }
    if (!this.sync) {
      batch.settle();
      return batch;
    }
    batch.durable = this.sync().then(
      () => batch.settle(),
      (error: unknown) => batch.settle(undefined, error ?? new Error('fsync failed')),
    );
    return batch;
  }
}

interface Batch<DB> {
  /** Its callers have been settled. */
  done: boolean;
  /** Settles once the batch's fsync returned; absent when there is none to wait for. Never rejects. */
  durable: Promise<void> | undefined;
  settle(commitError?: unknown, syncError?: unknown): void;
}
