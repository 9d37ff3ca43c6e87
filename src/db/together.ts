// Several reads of one request, taken together.
import type { Kysely } from 'kysely';
import type { Database } from './adapter.js';
import type { DB } from './schema.js';

/**
 * Runs `fn`'s reads with the connection taken once. SQLite: the one connection is shared by every request, and each
 * statement outside a transaction waits its own turn for it, behind the group commit's batches and their fsync (which
 * hold it so that nothing is read before it is durable): here the statements of `fn` wait once, together. They go
 * through the handle given, and only through it: a statement through `db.kysely`, or a transaction, would wait for
 * the connection `fn` holds, forever. The handle is lent explicitly, not found through an AsyncLocalStorage, whose
 * promise hooks every promise of the process would then pay. PostgreSQL: `fn` on the pool as it is, each statement a
 * round trip of its own.
 */
export function readTogether<T>(db: Database, fn: (q: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.readTogether ? db.readTogether(fn) : fn(db.kysely);
}
