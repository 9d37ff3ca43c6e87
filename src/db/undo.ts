// A transaction that may decide, part-way, that nothing it wrote is to be kept, and tell its caller why.
import type { Database, Trx } from './adapter.js';

class Undone extends Error {
  constructor(readonly value: unknown) {
    super('transaction undone');
  }
}

/**
 * Runs `fn` in one Database.transaction. `fn` may call `undo(value)`: the transaction is rolled back (on SQLite only
 * this caller's part of the group commit) and the answer is `{ undone: value }`; otherwise `{ done: result }`. Any
 * other error rolls back and propagates, as Database.transaction does.
 */
export async function undoable<T, U>(db: Database, fn: (trx: Trx, undo: (value: U) => never) => Promise<T>): Promise<{ done: T } | { undone: U }> {
  const undo = (value: U): never => {
    throw new Undone(value);
  };
  try {
    return { done: await db.transaction((trx) => fn(trx, undo)) };
  } catch (err) {
    if (err instanceof Undone) return { undone: err.value as U };
    throw err;
  }
}
