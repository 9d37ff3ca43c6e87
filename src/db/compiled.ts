// Hot statements compiled once. Kysely builds and compiles every query anew (an INSERT of a 45-column row costs
// more to build than SQLite takes to run it); for a statement whose text depends only on which columns are given,
// the text is kept and only the parameters change. Both dialects, inside or outside a transaction.
import { CompiledQuery, NoResultError, type Compilable, type Insertable, type Kysely, type QueryNode, type QueryResult } from 'kysely';
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
        text = orderedText(columns, build);
        texts.set(signature, text);
      }
      last = { dialect: database.dialect, columns, text };
    }
    // Every time: the texts are shared by every Database of the process (a Map lookup on a string whose hash is kept).
    if (text !== null) database.keepPrepared?.(text);
    return text;
  };
}

/** The SQL `build` makes from probe rows of `columns`, if Kysely binds their values row by row, column by column; else null. */
function orderedText(columns: string[][], build: (probes: Record<string, string>[]) => CompiledQuery): string | null {
  let n = 0;
  const markers: string[] = [];
  const probes = columns.map((keys) => Object.fromEntries(keys.map((k) => [k, markers[markers.push(`probe-${n++}`) - 1]!])));
  const compiled = build(probes);
  return compiled.parameters.length === markers.length && markers.every((m, i) => compiled.parameters[i] === m) ? compiled.sql : null;
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

/** Most pairs one batched statement carries (PostgreSQL; 64 × 70 parameters, far below its 65,535). */
const MAX_BATCH = 64;

/**
 * `insert(database, db, first, second)`: both rows, all or none, in as few round trips as the database allows. On
 * SQLite, which has no INSERT in WITH, two statements, inside the transaction the caller holds (Database.singleWrite),
 * which the group commit shares with the other requests of the moment. On PostgreSQL one statement (the first INSERT in
 * a WITH: a statement is atomic on its own, and the second row's foreign keys see the first row); outside a transaction,
 * the pairs given during one turn of the event loop go in one statement together (up to MAX_BATCH, rows in the same
 * order in both tables): one round trip, one commit and one WAL flush for all of them, where each pair alone costs
 * PostgreSQL a statement, a commit and, under load, nearly an fsync of its own (docs/performance.md, P6). Every caller
 * resolves once that statement has committed. If it fails, nothing of it was written (a statement is atomic), and
 * each pair is then inserted alone, so that a pair that cannot be written (a duplicate id, say) fails only its caller.
 */
export function compiledInsertPair<A extends Table, B extends Table>(first: A, second: B) {
  const insertFirst = compiledInsert(first);
  const insertSecond = compiledInsert(second);
  const text = textCache();
  const build = (db: Kysely<DB>, a: object[], b: object[]) =>
    db.with('first_row', (qb) => qb.insertInto(first).values(a as never)).insertInto(second).values(b as never);

  const alone = async (database: Database, db: Kysely<DB>, a: object, b: object): Promise<void> => {
    const keysA = given(a);
    const keysB = given(b);
    const compiled = text(database, [keysA, keysB], ([pa, pb]) => build(db, [pa!], [pb!]).compile());
    if (compiled === null) await build(db, [a], [b]).execute();
    else await db.executeQuery(CompiledQuery.raw(compiled, [...valuesOf(a, keysA), ...valuesOf(b, keysB)]));
  };

  // Batches per Kysely instance (a process may open several databases), each run on the next turn of the event loop.
  interface Pair { a: object; b: object; keysA: string[]; keysB: string[]; resolve: () => void; reject: (error: unknown) => void }
  const queues = new Map<Kysely<DB>, { database: Database; pairs: Pair[] }>();
  const batchTexts = new Map<string, string | null>(); // `${dialect}:${pairs}:${columns}` → text, or null when Kysely's order differs

  const batchText = (database: Database, db: Kysely<DB>, group: Pair[]): string | null => {
    const { keysA, keysB } = group[0]!;
    const signature = `${database.dialect}:${group.length}:${keysA.join(',')}|${keysB.join(',')}`;
    let cached = batchTexts.get(signature);
    if (cached === undefined) {
      const columns = [...group.map(() => keysA), ...group.map(() => keysB)];
      cached = orderedText(columns, (probes) => build(db, probes.slice(0, group.length), probes.slice(group.length)).compile());
      batchTexts.set(signature, cached);
    }
    if (cached !== null) database.keepPrepared?.(cached);
    return cached;
  };

  /**
   * The second row is in the table exactly as given (its id and every column given): written by the batched statement
   * whose answer was lost (its connection dropped after the commit). Its ids are random, so nobody else wrote it.
   */
  const written = async (db: Kysely<DB>, b: object): Promise<boolean> => {
    const row = b as Record<string, unknown>;
    if (typeof row.id !== 'string') return false;
    const found = await (db as unknown as Kysely<any>).selectFrom(second).selectAll().where('id', '=', row.id)
      .executeTakeFirst() as Record<string, unknown> | undefined;
    return found !== undefined && given(b).every((key) => String(found[key] ?? null) === String(row[key] ?? null));
  };

  // Each pair alone, each caller with its own outcome. After a failed batch, a pair found already written counts as
  // written: the batch may have committed before its connection was lost.
  const eachAlone = (database: Database, db: Kysely<DB>, group: Pair[], afterBatch = false) =>
    Promise.all(group.map((p) => alone(database, db, p.a, p.b).then(p.resolve, async (error: unknown) => {
      if (afterBatch && database.isUniqueViolation(error) && (await written(db, p.b).catch(() => false))) p.resolve();
      else p.reject(error);
    })));

  const runGroup = async (database: Database, db: Kysely<DB>, group: Pair[]): Promise<void> => {
    const compiled = group.length > 1 ? batchText(database, db, group) : null;
    if (compiled === null) {
      await eachAlone(database, db, group);
      return;
    }
    const parameters = [...group.flatMap((p) => valuesOf(p.a, p.keysA)), ...group.flatMap((p) => valuesOf(p.b, p.keysB))];
    try {
      await db.executeQuery(CompiledQuery.raw(compiled, parameters));
    } catch {
      // Nothing of the statement was written, or, when the connection was lost after its commit, all of it.
      await eachAlone(database, db, group, true);
      return;
    }
    for (const p of group) p.resolve();
  };

  const flush = (db: Kysely<DB>) => {
    const queue = queues.get(db);
    queues.delete(db);
    if (!queue) return;
    // Pairs given the same columns share a statement (nearly always all of them).
    const groups: Pair[][] = [];
    for (const pair of queue.pairs) {
      const group = groups.find((g) => g.length < MAX_BATCH && sameColumns([g[0]!.keysA, g[0]!.keysB], [pair.keysA, pair.keysB]));
      if (group) group.push(pair);
      else groups.push([pair]);
    }
    // A settled caller ignores the second outcome.
    for (const group of groups) runGroup(queue.database, db, group).catch((error: unknown) => group.forEach((p) => p.reject(error)));
  };

  return async (database: Database, db: Kysely<DB>, a: Insertable<DB[A]>, b: Insertable<DB[B]>): Promise<void> => {
    if (database.runInTransaction) {
      await insertFirst(database, db, a);
      await insertSecond(database, db, b);
      return;
    }
    if (db.isTransaction) return alone(database, db, a, b);
    return new Promise<void>((resolve, reject) => {
      let queue = queues.get(db);
      if (!queue) {
        queue = { database, pairs: [] };
        queues.set(db, queue);
        setImmediate(flush, db);
      }
      queue.pairs.push({ a, b, keysA: given(a), keysB: given(b), resolve, reject });
    });
  };
}

/** What a compiled statement's parameter is: a value given at each call (its key), or a constant of the query itself. */
type Slot = { key: string } | { value: unknown };

interface Shape {
  sql: string;
  query: CompiledQuery['query'];
  queryId: CompiledQuery['queryId'];
  slots: Slot[];
}

const PROBE = '\u0000motu-probe:';

/** Every text compiledQuery made, with the name PostgreSQL's connections prepare it under (the same on each). */
const preparedNames = new Map<string, string>();

/**
 * PostgreSQL: the name under which a connection keeps `text` prepared, if compiledQuery made it (as Database.keepPrepared
 * does for compiledInsert's texts): parsed and planned once per connection instead of at every run. Their number is
 * bounded by the statements written with compiledQuery and their shapes.
 */
export function preparedName(text: string): string | undefined {
  return preparedNames.get(text);
}

/** The dialect's adapter class (shared by a Kysely instance, its transactions and connections): texts differ per dialect. */
function dialectKey(db: Kysely<DB>): unknown {
  return (db as unknown as { getExecutor(): { adapter: object } }).getExecutor().adapter.constructor;
}

/** Runs a compiled text with its values, synchronously, on the connection a handle holds (SQLite's group commit). */
export type DirectRunner = (text: string, parameters: readonly unknown[]) => QueryResult<unknown>;

/** The handles that hold SQLite's one connection right now, each with how to run a text straight on it. */
const holders = new WeakMap<Kysely<DB>, DirectRunner>();

/**
 * While `handle` holds the connection (a group commit's hold, on SQLite), compiled statements given that handle run
 * straight on the connection through `runner` instead of through Kysely's executor (its connection provider, its
 * promises): the same statement on the same connection. Returns the release, called once the hold ends.
 */
export function holdDirect(handle: Kysely<DB>, runner: DirectRunner): () => void {
  holders.set(handle, runner);
  return () => holders.delete(handle);
}

/** A compiled statement with its values, not run yet: what `readAll` sends. */
export interface BoundStatement<O> {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** Never set: the type of the rows it returns. */
  readonly rows?: O[];
}

/**
 * The text a batch of statements is handed to a PostgreSQL pooled connection under (its one parameter is the batch):
 * only the handles of `batchingHandles` are given it, whose connections know it (src/db/postgres/postgres.ts).
 */
export const STATEMENT_BATCH = '/* motu: statement batch */';

/** The Kysely instances (not their transactions) whose connections run a batch of statements in one message. */
const batchingHandles = new WeakSet<Kysely<DB>>();

/** `kysely`'s pooled connections run STATEMENT_BATCH (PostgreSQL's adapter). */
export function runsBatches(kysely: Kysely<DB>): void {
  batchingHandles.add(kysely);
}

/** Whether readAll sends its statements on `db` in one message (PostgreSQL's pool, outside a transaction). */
export function readsInOneMessage(db: Kysely<DB>): boolean {
  return batchingHandles.has(db);
}

/**
 * The text a write held back is handed to a PostgreSQL pooled connection under (its one parameter is the statement):
 * only the transactions of `defersWrites` are given it, whose connections know it (src/db/postgres/postgres.ts).
 */
export const DEFERRED_WRITE = '/* motu: deferred write */';

/** The transactions (PostgreSQL's, opened by Database.transaction) whose writes deferWrite may hold back. */
const deferringHandles = new WeakSet<Kysely<DB>>();

/** `trx`'s connection sends a write held back by deferWrite with the transaction's next statement (PostgreSQL's adapter). */
export function defersWrites(trx: Kysely<DB>): void {
  deferringHandles.add(trx);
}

/**
 * A write inside a transaction whose answer nobody reads (no rows, no count). On PostgreSQL it is held back and sent
 * in the same message as the transaction's next statement, or its COMMIT: no round trip of its own. It still runs
 * before that statement, on the same transaction; if it fails, that statement fails with its error, the transaction
 * is rolled back and nothing of it is committed. Anywhere else (SQLite, outside such a transaction) it runs now.
 */
export async function deferWrite(db: Kysely<DB>, statement: BoundStatement<unknown>): Promise<void> {
  if (deferringHandles.has(db)) await db.executeQuery(CompiledQuery.raw(DEFERRED_WRITE, [statement]));
  else await runText(db, statement.sql, statement.parameters);
}

/**
 * The text a statement held back whose answer is wanted is handed to a PostgreSQL pooled connection under (its one
 * parameter is a PipelinedStatement): only the transactions of `defersWrites` are given it (see `alongside`).
 */
export const PIPELINED = '/* motu: pipelined statement */';

/** What a statement's answer says: its rows, and how many rows it changed (an UPDATE, an INSERT, a DELETE). */
export interface Answer<O> {
  rows: O[];
  changed: number;
}

/** A statement held back by `alongside`, and where its answer goes once the message it was sent in is answered. */
export interface PipelinedStatement extends BoundStatement<unknown> {
  answered(answer: Answer<unknown>): void;
  failed(error: unknown): void;
}

/**
 * `statement`, then `next` (which sends at least one statement on `db` before it resolves), and both answers. Inside a
 * transaction of defersWrites (PostgreSQL's) the statement is held back as deferWrite's are and goes in the same message
 * as `next`'s first statement: one round trip for the two, when the statement's answer is not needed to write `next`'s
 * (a check that undoes the transaction when it failed, say). It still runs first, on the same transaction; if it fails,
 * that statement fails with its error. Anywhere else it runs now, then `next`.
 */
export async function alongside<O, T>(db: Kysely<DB>, statement: BoundStatement<O>, next: () => Promise<T>): Promise<[Answer<O>, T]> {
  if (!deferringHandles.has(db)) return [await runBound(db, statement), await next()];
  let answer: Answer<O> | undefined;
  let error: { error: unknown } | undefined;
  const held: PipelinedStatement = {
    sql: statement.sql, parameters: statement.parameters,
    answered: (given) => void (answer = given as Answer<O>),
    failed: (given) => void (error = { error: given }),
  };
  await db.executeQuery(CompiledQuery.raw(PIPELINED, [held]));
  const after = await next();
  if (error) throw error.error;
  if (!answer) throw new Error(`alongside: no statement followed the one held: ${statement.sql}`);
  return [answer, after];
}

type RowsOf<T extends readonly BoundStatement<unknown>[]> = { [K in keyof T]: T[K] extends BoundStatement<infer O> ? O[] : never };

/**
 * Reads that do not depend on each other's answers, each statement's rows in the order given. On PostgreSQL, outside a
 * transaction, they go in one message (Parse/Bind/Execute of each, one Sync: one round trip instead of one each, run
 * in order as one implicit transaction, each statement with its own snapshot as under READ COMMITTED); anywhere else
 * (SQLite, a transaction, readTogether's held connection) one after the other on `db`. Reads only: an error in one
 * fails them all.
 */
export async function readAll<const T extends readonly BoundStatement<unknown>[]>(db: Kysely<DB>, statements: T): Promise<RowsOf<T>> {
  if (statements.length > 1 && batchingHandles.has(db)) {
    const result = await db.executeQuery(CompiledQuery.raw(STATEMENT_BATCH, [statements]));
    return result.rows as unknown as RowsOf<T>;
  }
  const rows: unknown[][] = [];
  for (const statement of statements) rows.push((await runText(db, statement.sql, statement.parameters)).rows as unknown[]);
  return rows as RowsOf<T>;
}

/** Runs a bound statement on `db` now: its rows, and how many rows it changed. */
export async function runBound<O>(db: Kysely<DB>, statement: BoundStatement<O>): Promise<Answer<O>> {
  const result = await runText(db, statement.sql, statement.parameters);
  return { rows: result.rows as O[], changed: Number(result.numAffectedRows ?? 0n) };
}

/** Runs a compiled text on `db` (straight on the connection a hold lends it, if any). */
function runText(db: Kysely<DB>, text: string, parameters: readonly unknown[]): Promise<QueryResult<unknown>> | QueryResult<unknown> {
  const direct = holders.get(db);
  if (direct) return direct(text, parameters);
  return db.executeQuery(CompiledQuery.raw(text, [...parameters]));
}

/** A statement built once per dialect by compiledQuery, run with each call's values. */
export interface CompiledStatement<P, O> {
  /** The statement with `values`, to run with others (readAll). */
  bind(db: Kysely<DB>, values: P): BoundStatement<O>;
  /** Every row it returns. */
  execute(db: Kysely<DB>, values: P): Promise<O[]>;
  /** Its first row, if any. */
  executeTakeFirst(db: Kysely<DB>, values: P): Promise<O | undefined>;
  /** Its first row; Kysely's NoResultError when there is none. */
  executeTakeFirstOrThrow(db: Kysely<DB>, values: P): Promise<O>;
  /** The number of rows it changed (an UPDATE, a DELETE, an INSERT without RETURNING). */
  run(db: Kysely<DB>, values: P): Promise<number>;
  /** Runs it as a write whose answer nobody reads: on PostgreSQL, with the transaction's next statement (deferWrite). */
  defer(db: Kysely<DB>, values: P): Promise<void>;
}

/**
 * A hot query whose text depends on nothing but its values (no IN list, no column given or not, no branch on a
 * value): `build` runs once per dialect, given probes in place of the values (`p.id` is a marker string), and the
 * text Kysely compiles from it is kept with where each value goes. Each call then only orders its values and runs the
 * text, skipping Kysely's query building and compiling (on the payment path they cost more than SQLite takes to run
 * most of these statements). A probe that ends up inside a value instead of being one (`%${p.name}%`, a JSON body)
 * cannot be told apart at each call and is refused when built; a value given as undefined is refused at the call (it
 * would mean "no such column" to Kysely's builder, and NULL or an error to the text). Same rows, same errors, same
 * transaction as `build(db, values).execute()` on the handle given.
 */
export function compiledQuery<P extends object, O>(build: (db: Kysely<DB>, p: P) => Compilable<O>): CompiledStatement<P, O> {
  const shapes = new Map<unknown, Shape>();
  const shapeOf = (db: Kysely<DB>): Shape => {
    const key = dialectKey(db);
    let shape = shapes.get(key);
    if (shape === undefined) {
      const probes = new Proxy({}, { get: (_target, name) => `${PROBE}${String(name)}` }) as P;
      const compiled = build(db, probes).compile();
      const slots = compiled.parameters.map((value): Slot => {
        if (typeof value === 'string' && value.startsWith(PROBE)) return { key: value.slice(PROBE.length) };
        if (typeof value === 'string' && value.includes(PROBE)) throw new Error(`compiledQuery: a value is built from a probe, not given as one: ${compiled.sql}`);
        return { value };
      });
      shape = { sql: compiled.sql, query: compiled.query, queryId: compiled.queryId, slots };
      shapes.set(key, shape);
      if (!preparedNames.has(shape.sql)) preparedNames.set(shape.sql, `motu_c${preparedNames.size + 1}`);
    }
    return shape;
  };
  const parametersOf = (shape: Shape, values: P): unknown[] => {
    const parameters = new Array<unknown>(shape.slots.length);
    for (let i = 0; i < parameters.length; i++) {
      const slot = shape.slots[i]!;
      if ('key' in slot) {
        const value = (values as Record<string, unknown>)[slot.key];
        if (value === undefined) throw new Error(`compiledQuery: no value for ${slot.key}: ${shape.sql}`);
        parameters[i] = value;
      } else parameters[i] = slot.value;
    }
    return parameters;
  };
  const run = (db: Kysely<DB>, values: P) => {
    const shape = shapeOf(db);
    const parameters = parametersOf(shape, values);
    const direct = holders.get(db);
    if (direct) return direct(shape.sql, parameters) as QueryResult<O>;
    return db.executeQuery<O>({ sql: shape.sql, query: shape.query, queryId: shape.queryId, parameters });
  };
  return {
    bind: (db, values) => {
      const shape = shapeOf(db);
      return { sql: shape.sql, parameters: parametersOf(shape, values) };
    },
    execute: async (db, values) => (await run(db, values)).rows,
    executeTakeFirst: async (db, values) => (await run(db, values)).rows[0],
    executeTakeFirstOrThrow: async (db, values) => {
      const row = (await run(db, values)).rows[0];
      if (row === undefined) throw new NoResultError(shapeOf(db).query as QueryNode);
      return row;
    },
    run: async (db, values) => Number((await run(db, values)).numAffectedRows ?? 0n),
    defer: async (db, values) => {
      if (!deferringHandles.has(db)) {
        await run(db, values);
        return;
      }
      const shape = shapeOf(db);
      await deferWrite(db, { sql: shape.sql, parameters: parametersOf(shape, values) });
    },
  };
}
