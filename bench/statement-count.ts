// Counts the statements and the transactions the process sends to its database while on (bench/webhooks.bench.ts,
// BENCH_WEBHOOK_COUNT=1): on PostgreSQL each message pg sends as a query (a BEGIN sent with its first statement counts
// as that statement), on SQLite each run of a prepared statement. A transaction ends with a COMMIT, or is a statement
// run outside one (autocommit: on PostgreSQL a commit of its own, with its WAL flush when it wrote). Texts are kept by
// their first words, to tell the claim from the record.
import SQLite from 'better-sqlite3';
import pg from 'pg';

export interface StatementCount {
  statements: number;
  commits: number;
  /** Statements by the first 60 characters of their text (whitespace folded). */
  byText: Map<string, number>;
}

let counting: StatementCount | undefined;

const short = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 60);

function note(text: string, ends: boolean): void {
  if (!counting) return;
  counting.statements++;
  if (ends) counting.commits++;
  const k = short(text);
  counting.byText.set(k, (counting.byText.get(k) ?? 0) + 1);
}

let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  const inTransaction = new WeakSet<object>();
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as { query: unknown }).query = function (this: object, ...args: unknown[]) {
    const [config] = args;
    const text = typeof config === 'string' ? config : typeof config === 'object' && config !== null ? String((config as { text?: unknown }).text ?? '') : '';
    if (/^\s*(begin|start transaction)\b/i.test(text)) inTransaction.add(this);
    else if (/^\s*(commit|rollback|end)\b/i.test(text)) {
      inTransaction.delete(this);
      note(text, true);
      return query.apply(this, args);
    } else if (typeof config === 'object' && config !== null && Object.prototype.hasOwnProperty.call(config, 'prepare')) {
      inTransaction.add(this); // BEGIN sent in the same message as the transaction's first statement
    }
    note(text, !inTransaction.has(this) && !/^\s*(begin|start transaction)\b/i.test(text));
    return query.apply(this, args);
  };
  const probe = new SQLite(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...a: unknown[]) => unknown>;
  probe.close();
  for (const method of ['run', 'all', 'get', 'iterate']) {
    const original = statement[method]!;
    statement[method] = function (this: { source: string; reader: boolean; database: { inTransaction: boolean } }, ...args: unknown[]) {
      const ends = /^\s*(commit|end)\b/i.test(this.source) || (!this.reader && !this.database.inTransaction && !/^\s*(begin|savepoint|release|rollback)\b/i.test(this.source));
      note(this.source, ends);
      return original.apply(this, args);
    };
  }
}

/** Starts counting (from zero). */
export function startCounting(): void {
  install();
  counting = { statements: 0, commits: 0, byText: new Map() };
}

/** Stops counting and returns what was counted. */
export function stopCounting(): StatementCount {
  const c = counting ?? { statements: 0, commits: 0, byText: new Map() };
  counting = undefined;
  return c;
}
