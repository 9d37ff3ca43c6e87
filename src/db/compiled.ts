// Hot statements compiled once. Kysely builds and compiles every query anew (an INSERT of a 45-column row costs
// more to build than SQLite takes to run it); for a statement whose text depends only on which columns are given,
// the text is kept and only the parameters change. Both dialects, inside or outside a transaction.
import { CompiledQuery, type Insertable, type Kysely } from 'kysely';
import type { Database } from './database.js';
import type { DB } from './schema.js';

type Table = keyof DB & string;

/**
 * Keeps the text of a query built by `build` from rows of given columns, if Kysely binds the values in the order of
 * the rows' columns, as `parameters` assumes (checked once per set of columns with a distinct marker per value);
 * `null` otherwise, and every call builds its query. A text kept is also kept prepared (Database.keepPrepared).
 */
function textCache() {
  const texts = new Map<string, string | null>();
  // The columns and text of the previous call: a hot INSERT is nearly always given the same columns, and comparing
  // them (the same interned strings) costs less than building and hashing the signature.
  let last: { dialect: string; columns: string[][]; text: string | null } | undefined;
  return (database: Database, columns: string[][], build: (probes: Record<string, string>[]) => CompiledQuery): string | null => {
    let text: string | null | undefined;
    if (last && last.dialect === database.dialect && sameColumns(last.columns, columns)) text = last.text;
    else {
      const signature = `${database.dialect}:${columns.map((keys) => keys.join(',')).join('|')}`;
      text = texts.get(signature);
      if (text === undefined) {
        let n = 0;
        const markers: string[] = [];
        const probes = columns.map((keys) => Object.fromEntries(keys.map((k) => [k, markers[markers.push(`probe-${n++}`) - 1]!])));
        const compiled = build(probes);
        const ordered = compiled.parameters.length === markers.length && markers.every((m, i) => compiled.parameters[i] === m);
        text = ordered ? compiled.sql : null;
        texts.set(signature, text);
      }
      last = { dialect: database.dialect, columns, text };
    }
    // Every time: the texts are shared by every Database of the process (a Map lookup on a string whose hash is kept).
    if (text !== null) database.keepPrepared?.(text);
    return text;
  };
}

function sameColumns(a: string[][], b: string[][]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

function given(row: object): string[] {
  const record = row as Record<string, unknown>;
  return Object.keys(record).filter((k) => record[k] !== undefined);
}

const valuesOf = (row: object, keys: string[]) => keys.map((k) => (row as Record<string, unknown>)[k]);

/**
 * `insert(database, db, row)`: the same INSERT as `db.insertInto(table).values(row).execute()`, compiled once per set
 * of columns; on SQLite run straight on the connection the transaction holds (Database.runInTransaction).
 */
export function compiledInsert<T extends Table>(table: T) {
  const text = textCache();
  return async (database: Database, db: Kysely<DB>, row: Insertable<DB[T]>): Promise<void> => {
    const keys = given(row);
    const compiled = text(database, [keys], ([probe]) => db.insertInto(table).values(probe as never).compile());
    if (compiled === null) {
      await db.insertInto(table).values(row as never).execute();
      return;
    }
    const parameters = valuesOf(row, keys);
    if (database.runInTransaction) database.runInTransaction(db, compiled, parameters);
    else await db.executeQuery(CompiledQuery.raw(compiled, parameters));
  };
}

/**
 * `insert(database, db, first, second)`: both rows, all or none, in as few round trips as the database allows. On
 * PostgreSQL one statement (the first INSERT in a WITH: a statement is atomic on its own, and the second row's foreign
 * keys see the first row); on SQLite, which has no INSERT in WITH, two, inside the transaction the caller holds
 * (Database.singleWrite).
 */
export function compiledInsertPair<A extends Table, B extends Table>(first: A, second: B) {
  const insertFirst = compiledInsert(first);
  const insertSecond = compiledInsert(second);
  const text = textCache();
  const build = (db: Kysely<DB>, a: object, b: object) =>
    db.with('first_row', (qb) => qb.insertInto(first).values(a as never)).insertInto(second).values(b as never);
  return async (database: Database, db: Kysely<DB>, a: Insertable<DB[A]>, b: Insertable<DB[B]>): Promise<void> => {
    if (database.runInTransaction) {
      await insertFirst(database, db, a);
      await insertSecond(database, db, b);
      return;
    }
    const keysA = given(a);
    const keysB = given(b);
    const compiled = text(database, [keysA, keysB], ([pa, pb]) => build(db, pa!, pb!).compile());
    if (compiled === null) await build(db, a, b).execute();
    else await db.executeQuery(CompiledQuery.raw(compiled, [...valuesOf(a, keysA), ...valuesOf(b, keysB)]));
  };
}
