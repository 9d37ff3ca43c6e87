// Hot statements compiled once. Kysely builds and compiles every query anew (an INSERT of a 45-column row costs
// more to build than SQLite takes to run it); for a statement whose text depends only on which columns are given,
// the text is kept and only the parameters change. Both dialects, inside or outside a transaction.
import { CompiledQuery, type Insertable } from 'kysely';
import type { Database, Trx } from './database.js';
import type { DB } from './schema.js';

/**
 * `insert(database, trx, row)`: the same INSERT as `trx.insertInto(table).values(row).execute()`, compiled once per set
 * of columns; on SQLite run straight on the connection the transaction holds (Database.runInTransaction).
 */
export function compiledInsert<T extends keyof DB & string>(table: T) {
  const texts = new Map<string, string | null>();
  return async (database: Database, db: Trx, row: Insertable<DB[T]>): Promise<void> => {
    const record = row as Record<string, unknown>;
    const keys = Object.keys(record).filter((k) => record[k] !== undefined);
    const signature = `${database.dialect}:${keys.join(',')}`; // each dialect has its own SQL
    let text = texts.get(signature);
    if (text === undefined) {
      // Compiled with a distinct marker per column: the text is kept only if Kysely binds the values in the row's
      // key order, as assumed below; otherwise every call builds its query.
      const probe = Object.fromEntries(keys.map((k, i) => [k, `probe-${i}`]));
      const compiled = db.insertInto(table).values(probe as never).compile();
      const ordered = compiled.parameters.length === keys.length && keys.every((_, i) => compiled.parameters[i] === `probe-${i}`);
      text = ordered ? compiled.sql : null;
      texts.set(signature, text);
    }
    if (text === null) {
      await db.insertInto(table).values(row as never).execute();
      return;
    }
    const parameters = keys.map((k) => record[k]);
    if (database.runInTransaction) database.runInTransaction(db, text, parameters);
    else await db.executeQuery(CompiledQuery.raw(text, parameters));
  };
}
