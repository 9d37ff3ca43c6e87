// The PostgreSQL adapter: a pool whose connections keep the hot statements prepared, hooks that run after a commit
// (NOTIFY outside the transaction), and the reference stamp that lets the few reference rows be cached.
import pg from 'pg';
import { CompiledQuery, Kysely, PostgresDialect, PostgresDriver, sql, type DatabaseConnection, type Driver, type PostgresDialectConfig } from 'kysely';
import type { DB } from '../schema.js';
import type { Database, Trx } from '../adapter.js';
import { REFERENCE_TABLES } from '../reference-cache.js';
import { DEFERRED_WRITE, defersWrites, PIPELINED, preparedName, runsBatches, STATEMENT_BATCH, type BoundStatement, type PipelinedStatement } from '../compiled.js';
import { OWN_NOTIFICATIONS, PostgresListener } from './listener.js';

const REFERENCE_CHANNEL = 'motu_reference';

// int8 (count(*), sums) arrives as a string by default; our integers stay far below 2^53.
pg.types.setTypeParser(20, (value: string) => Number(value));

const afterCommitHooks = new WeakMap<object, Array<(kysely: Kysely<DB>) => void>>();
const transactionIndexes = new WeakMap<object, number>();

/**
 * Runs `hook` once the transaction `trx` belongs to has committed (never if it rolls back), with the database's
 * Kysely, outside any transaction. Returns false when this database does not run hooks (SQLite, or a transaction
 * opened outside `Database.transaction`): the caller does its work inside the transaction instead.
 */
export function afterCommit(trx: Trx, hook: (kysely: Kysely<DB>) => void): boolean {
  const hooks = afterCommitHooks.get(trx);
  if (!hooks) return false;
  hooks.push(hook);
  return true;
}

/** The channels to notify with the COMMIT of the transaction open on a connection (notifyWithCommit). */
const commitNotifies = new WeakMap<DatabaseConnection, Set<string>>();
const CHANNEL = /^[a-z_][a-z0-9_]*$/;

/**
 * Notifies `channel` in the same message as `trx`'s COMMIT (`commit; select pg_notify(…)`): after the commit and outside
 * the transaction, as a NOTIFY must be sent (a NOTIFY inside a transaction holds a database-wide lock through its
 * commit, WAL flush included), without a round trip of its own; or, while another of the process's notifications on
 * the channel is in flight, with a later COMMIT once it has returned (Notifications). Not sent if the transaction rolls
 * back. False where the transaction was not opened by `Database.transaction` (the caller notifies inside it).
 */
export async function notifyWithCommit(trx: Trx, channel: string): Promise<boolean> {
  if (!afterCommitHooks.has(trx) || !CHANNEL.test(channel)) return false;
  const connection = await trx.getExecutor().provideConnection(async (c) => c);
  let channels = commitNotifies.get(connection);
  if (!channels) commitNotifies.set(connection, (channels = new Set()));
  channels.add(channel);
  return true;
}

/** "too many notifications in the NOTIFY queue": raised by the notification sent after a COMMIT that succeeded. */
const NOTIFY_QUEUE_FULL = '54000';

/**
 * How long a notification owed (Notifications) waits for a COMMIT to carry it before it is sent in a message of its
 * own, a round trip of the process's: under load another commit comes well within it. A few milliseconds were too
 * few on a loaded machine, where commits come every 5 – 10 ms; other processes' workers poll every 500 ms without one.
 */
const CARRY_MS = 20;

/**
 * The notifications this process sends to other processes' listeners, at most one in flight per channel. A
 * notification is a transaction of its own on the server (an xid, a commit record and its WAL flush, the NOTIFY queue's
 * lock), and what it tells a listener is only that something committed: one notification sent after a commit announces
 * every commit made before it was sent. So a COMMIT carries its transaction's notification when none is in flight on
 * that channel; a transaction that committed while one was (sent before this commit had returned, so announcing
 * nothing of it) is owed one, carried by the next COMMIT sent once the one in flight has returned, or sent alone after
 * CARRY_MS. Each commit is thus followed by a notification sent after it has returned, at most a round trip and
 * CARRY_MS later, and a busy process sends about one per commit round trip instead of one per commit. Their payload
 * is OWN_NOTIFICATIONS: this process's listener passes them over, its own listeners having been called by the commit's
 * hook already (notifyAfterCommit).
 */
class Notifications {
  /** Channels whose notification has been sent and has not returned. */
  private readonly inFlight = new Set<string>();
  /** Channels owed a notification sent from now on. */
  private readonly owed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  /** How to send an owed notification alone: on the pool whose COMMIT returned last. */
  private sendAlone: ((text: string) => Promise<unknown>) | undefined;

  /**
   * The channels a COMMIT about to be sent carries (`now`): its transaction's and those owed, none in flight; its
   * transaction's in flight are owed once it has committed (`later`, given to `owe`).
   */
  carry(own: ReadonlySet<string> | undefined): { now: string[]; later: string[] } {
    const now: string[] = [];
    const later: string[] = [];
    for (const channel of own ?? []) (this.inFlight.has(channel) ? later : now).push(channel);
    for (const channel of this.owed) if (!this.inFlight.has(channel) && !now.includes(channel)) now.push(channel);
    for (const channel of now) {
      this.owed.delete(channel);
      this.inFlight.add(channel);
    }
    return { now, later };
  }

  /** The message that carried `channels` returned; `sent`: their notification ran (else they are owed again). */
  returned(channels: readonly string[], sent: boolean, sendAlone: (text: string) => Promise<unknown>): void {
    if (channels.length === 0) return;
    for (const channel of channels) {
      this.inFlight.delete(channel);
      if (!sent) this.owed.add(channel);
    }
    this.sendAlone = sendAlone;
    this.schedule();
  }

  owe(channels: readonly string[], sendAlone: (text: string) => Promise<unknown>): void {
    if (channels.length === 0) return;
    for (const channel of channels) this.owed.add(channel);
    this.sendAlone = sendAlone;
    this.schedule();
  }

  private due(): string[] {
    return [...this.owed].filter((channel) => !this.inFlight.has(channel));
  }

  private schedule(): void {
    if (this.timer || this.due().length === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const channels = this.due();
      const send = this.sendAlone;
      if (channels.length === 0 || !send) return;
      for (const channel of channels) {
        this.owed.delete(channel);
        this.inFlight.add(channel);
      }
      // Not retried if it fails (the pool closed, the queue full): the listeners' poll covers a lost wake-up.
      const done = () => this.returned(channels, true, send);
      send(`select ${notifyList(channels)}`).then(done, done);
    }, CARRY_MS);
    this.timer.unref();
  }
}

function notifyList(channels: readonly string[]): string {
  return channels.map((channel) => `pg_notify('${channel}', '${OWN_NOTIFICATIONS}')`).join(', ');
}

/** Kysely's PostgreSQL driver, whose COMMIT carries the process's notifications (notifyWithCommit, Notifications). */
class NotifyingDriver extends PostgresDriver {
  constructor(settings: PostgresDialectConfig, private readonly notifications: Notifications, private readonly sendAlone: (text: string) => Promise<unknown>) {
    super(settings);
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const own = commitNotifies.get(connection);
    commitNotifies.delete(connection);
    const { now, later } = this.notifications.carry(own);
    if (now.length === 0) {
      await super.commitTransaction(connection);
      this.notifications.owe(later, this.sendAlone);
      return;
    }
    let sent = false;
    try {
      // Two statements, one message (the simple protocol): the second runs once the first has committed.
      await connection.executeQuery(CompiledQuery.raw(`commit; select ${notifyList(now)}`));
      sent = true;
    } catch (error) {
      // The one error a COMMIT of ours cannot raise: the listeners' poll covers the lost wake-up.
      if ((error as { code?: unknown }).code !== NOTIFY_QUEUE_FULL) throw error;
      sent = true;
    } finally {
      this.notifications.returned(now, sent, this.sendAlone);
    }
    this.notifications.owe(later, this.sendAlone);
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    commitNotifies.delete(connection);
    return super.rollbackTransaction(connection);
  }
}

class NotifyingDialect extends PostgresDialect {
  constructor(private readonly settings: PostgresDialectConfig & { pool: pg.Pool }, private readonly notifications: Notifications) {
    super(settings);
  }

  override createDriver(): Driver {
    const pool = this.settings.pool;
    return new NotifyingDriver(this.settings, this.notifications, (text) => pool.query(text));
  }
}

/**
 * A number (0, 1, 2…) that no other transaction open in this process holds: the lowest free when the transaction got
 * its connection, so at most about the pools' size. Undefined outside `Database.transaction` (and on SQLite). What
 * spreads a hot row over slots (the running balance) uses it to keep this process's concurrent transactions on rows
 * of their own, which a random draw does not (16 captures on 8 slots: most of them share one).
 */
export function transactionIndex(trx: Trx): number | undefined {
  return transactionIndexes.get(trx);
}

/** The indexes held by the transactions open in this process (transactionIndex). */
class OpenIndexes {
  private readonly held: boolean[] = [];

  take(): number {
    let index = this.held.indexOf(false);
    if (index < 0) index = this.held.length;
    this.held[index] = true;
    return index;
  }

  give(index: number): void {
    this.held[index] = false;
  }
}

export function openPostgres(connectionString: string, max: number, listenerHeartbeatMs = 5000): Database {
  const listener = new PostgresListener(connectionString, 1000, listenerHeartbeatMs);
  const stamp = new PostgresReferenceStamp(listener);
  return pooled(connectionString, max, { listener, stamp, prepared: new PreparedTexts(), indexes: new OpenIndexes(), notifications: new Notifications() }, true);
}

interface Shared {
  listener: PostgresListener;
  stamp: PostgresReferenceStamp;
  prepared: PreparedTexts;
  indexes: OpenIndexes;
  notifications: Notifications;
}

/** A Database on a pool of its own; `owner`: it also owns (and closes) what the process shares. */
function pooled(connectionString: string, max: number, shared: Shared, owner: boolean): Database {
  const { listener, stamp, prepared, indexes, notifications } = shared;
  const pool = new pg.Pool({ connectionString, max });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    const hold = sendHeldWithNext(client);
    stamp.track(client);
    keepPreparedOn(client, prepared);
    runBatchesOn(client, prepared);
    holdDeferredOn(client, prepared, hold);
  });
  const kysely = new Kysely<DB>({ dialect: new NotifyingDialect({ pool }, notifications) });
  runsBatches(kysely);
  const database: Database = {
    kysely,
    dialect: 'postgres',
    caps: { skipLocked: true, multiProcess: true, updateReturnsJoined: true },
    lockForUpdate: (query) => query.forUpdate(),
    skipLockedRows: (query) => query.forUpdate().skipLocked(),
    listen: (channel, onNotify) => listener.subscribe(channel, { onNotify, onGap: onNotify }),
    withPool: (size) => pooled(connectionString, size, shared, false),
    referenceStamp: () => stamp.current(),
    keepPrepared: (text) => prepared.keep(text),
    transaction: async (fn) => {
      const hooks: Array<(kysely: Kysely<DB>) => void> = [];
      // The index is taken once the transaction has its connection, given back once it has committed or rolled back
      // (its row locks released).
      let index: number | undefined;
      const result = await kysely.transaction().execute((trx) => {
        afterCommitHooks.set(trx, hooks);
        defersWrites(trx);
        index = indexes.take();
        transactionIndexes.set(trx, index);
        return fn(trx);
      }).finally(() => {
        if (index !== undefined) indexes.give(index);
      });
      for (const hook of hooks) hook(kysely);
      return result;
    },
    singleWrite: (fn) => fn(kysely),
    snapshot: (fn) => kysely.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute((trx) => fn(trx)),
    isUniqueViolation: (err) => typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505',
    ping: async () => {
      await sql`select 1`.execute(kysely);
    },
    close: async () => {
      if (owner) await listener.close();
      await kysely.destroy();
    },
  };
  return database;
}

/** Most texts kept prepared, and the same on every connection (each connection holds a plan per text it ran). */
const MAX_PREPARED = 256;
/** A statement with parameters run this many times is kept prepared from then on. */
const PREPARE_AFTER = 3;
/**
 * An IN list of three parameters or more, or three rows of VALUES or more: a text of one length among many (the
 * delivery worker's batches), which would fill the names kept with its lengths. Only given to keepPrepared.
 */
const LIST_OF_PARAMETERS = / in \(\$\d+, \$\d+, \$|\), \(\$[^)]*\), \(\$/i;

/**
 * The statement texts the pooled connections run by name (statement text → name, the same on every connection): those
 * given to Database.keepPrepared, and any statement with parameters once it has run PREPARE_AFTER times. Kysely sends
 * every value as a parameter, so the texts that recur are the statements the code writes, a few dozen on a payment's
 * path. A text run by name is parsed, analysed and, once PostgreSQL has settled on its plan, planned once per
 * connection instead of once per run: that work was a third of the server's CPU on a payment (docs/performance.md,
 * "The whole payment"). A statement without parameters (BEGIN, COMMIT) stays on the simple protocol, one message.
 */
class PreparedTexts {
  private readonly names = new Map<string, string>();
  private readonly runs = new Map<string, number>();
  /** Texts whose prepared form failed (a table's columns changed under a `select *`): run unnamed from then on. */
  private readonly refused = new Set<string>();
  private next = 1;

  keep(text: string): void {
    if (!this.names.has(text) && this.names.size < MAX_PREPARED && !this.refused.has(text)) this.names.set(text, `motu_${this.next++}`);
  }

  /** The name `text` runs under, if kept (compiledQuery's texts always are, src/db/compiled.ts); counts its runs otherwise. */
  nameOf(text: string, parameters: number): string | undefined {
    if (this.refused.has(text)) return undefined;
    const name = this.names.get(text) ?? preparedName(text);
    if (name !== undefined || parameters === 0 || this.names.size >= MAX_PREPARED || LIST_OF_PARAMETERS.test(text)) return name;
    const runs = (this.runs.get(text) ?? 0) + 1;
    if (runs < PREPARE_AFTER) {
      if (this.runs.size >= 4096) this.runs.clear(); // texts that vary (an IN list's length): counted afresh
      this.runs.set(text, runs);
      return undefined;
    }
    this.runs.delete(text);
    this.keep(text);
    return this.names.get(text);
  }

  refuse(text: string): void {
    this.names.delete(text);
    this.refused.add(text);
  }
}

/** What a BEGIN, a write held back, or a COMMIT or ROLLBACK of a transaction that sent nothing, answers without being sent. */
const NOTHING_SENT = { command: null, rowCount: null, rows: [] };

interface Wire {
  parse(message: { text: string; name?: string }): void;
  bind(message: object): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: object): void;
  sync(): void;
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
}

/** A statement to send in a message with others: its text, its values, and the name it is kept prepared under, if any. */
interface Outgoing {
  text: string;
  values: readonly unknown[];
  name?: string;
  /** A statement held whose answer is wanted (alongside, src/db/compiled.ts): given it, or the message's error. */
  pipelined?: PipelinedStatement;
}

/** A statement's answer as pg gives it. */
interface PgResult {
  command: string | null;
  rowCount: number | null;
  rows: unknown[];
}

/** pg's conversion of a parameter to its text form (what its own Bind uses). */
const prepareValue = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils.prepareValue;

/**
 * `statements` in one message: Parse (unless run by a name the connection has prepared), Bind, Describe and Execute of
 * each, then one Sync (the extended protocol runs them in order; after an error PostgreSQL skips the rest up to the
 * Sync, and the error fails them all); each statement's answer, in order. pg records one prepared name per query as
 * parsed when PostgreSQL confirms a Parse (its `name` and `text`): so of the statements named and not yet prepared on
 * this connection, the first is prepared by name, its Parse sent first of all (no other ParseComplete can precede its
 * own), and the others run unnamed this time, prepared by a later message or a run of their own.
 */
function sendInOneMessage(query: (...args: unknown[]) => Promise<unknown>, wire: Wire, statements: readonly Outgoing[]): Promise<PgResult[]> {
  const toPrepare = statements.findIndex((s) => s.name !== undefined && wire.parsedStatements[s.name] === undefined);
  return new Promise((resolve, reject) => {
    // name and text: those of the one statement this message prepares, read by pg on its ParseComplete and on an error.
    const first = toPrepare >= 0 ? { name: statements[toPrepare]!.name, text: statements[toPrepare]!.text } : { text: STATEMENT_BATCH };
    // Never the simple protocol, which pg would pick for a query without parameters.
    Object.assign(first, { queryMode: 'extended' });
    const message = new pg.Query(first as pg.QueryConfig, undefined, (error: Error | undefined, results: unknown) => {
      if (error) reject(error);
      else resolve((Array.isArray(results) ? results : [results]) as PgResult[]);
    });
    (message as unknown as { prepare(connection: Wire): void }).prepare = function (this: unknown, connection: Wire) {
      if (toPrepare >= 0) {
        const { text, name } = statements[toPrepare]!;
        connection.parse({ text, name });
        connection.submittedNamedStatements[name!] = text;
      }
      statements.forEach((statement, i) => {
        const name = statement.name !== undefined && (i === toPrepare || wire.parsedStatements[statement.name] !== undefined) ? statement.name : undefined;
        if (name === undefined) connection.parse({ text: statement.text });
        connection.bind({ statement: name, values: statement.values, valueMapper: prepareValue });
        connection.describe({ type: 'P', name: '' });
        connection.execute({});
      });
      connection.sync();
    };
    void query(message);
  });
}

/** The statement a pooled connection's `query` was given, when it is one (text and values; its name if kept prepared). */
function outgoing(args: readonly unknown[]): Outgoing | undefined {
  const [config, values] = args;
  if (typeof config === 'string' && args.length === 2 && Array.isArray(values)) return { text: config, values };
  if (args.length !== 1 || typeof config !== 'object' || config === null || 'submit' in config) return undefined;
  const { text, values: given, name } = config as { text?: unknown; values?: unknown; name?: unknown };
  if (typeof text !== 'string' || !Array.isArray(given) || (name !== undefined && typeof name !== 'string')) return undefined;
  return { text, values: given, ...(name === undefined ? {} : { name }) };
}

/** NotifyingDriver's COMMIT: `commit; select pg_notify(…)`, two statements for the extended protocol. */
const COMMIT_THEN = /^commit; (select pg_notify\(.*)$/s;

/**
 * What a transaction holds back goes with its next statement, in one message: Kysely's `begin` (a round trip of its
 * own otherwise, two per payment), the writes deferWrite holds and the statements alongside holds, which are given
 * their answers once the message is answered (src/db/compiled.ts). The next statement is sent
 * after them, with one Sync for all (the extended protocol runs them in order; an error in any leaves the transaction
 * aborted, fails that statement, and Kysely rolls back, as it would have). A COMMIT takes what is held too: executed
 * in the extended protocol a COMMIT commits at once, and the notification that follows it (NotifyingDriver) runs
 * after, outside the transaction, as in the simple protocol. A statement that cannot be sent so (a SAVEPOINT, any
 * text without parameters) is sent after what is held, in a message of its own. A transaction that sends nothing
 * before its COMMIT or ROLLBACK sends nothing at all; a ROLLBACK drops the writes held. Returns how to hold a write.
 */
function sendHeldWithNext(client: pg.PoolClient): (statement: Outgoing) => void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const wire = (client as unknown as { connection: Wire }).connection;
  const held: Outgoing[] = [];
  let beginHeld = false;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [config, values] = args;
    if (config === 'begin' && args.length === 2 && Array.isArray(values) && values.length === 0 && held.length === 0) {
      beginHeld = true;
      held.push({ text: 'begin', values: [] });
      return Promise.resolve(NOTHING_SENT);
    }
    if (held.length === 0) return query(...args);
    const statements = held.splice(0);
    const nothingSent = beginHeld;
    beginHeld = false;
    if (config === 'rollback' && args.length === 2) {
      for (const s of statements) s.pipelined?.failed(new Error('rolled back before it was sent'));
      return nothingSent ? Promise.resolve(NOTHING_SENT) : query(...args);
    }
    if (config === 'commit' && args.length === 2 && nothingSent && statements.length === 1) return Promise.resolve(NOTHING_SENT);
    // The answers of the statements held whose answers are wanted, or the message's error.
    const send = (all: readonly Outgoing[]) => sendInOneMessage(query, wire, all).then((results) => {
      statements.forEach((s, i) => s.pipelined?.answered({ rows: results[i]?.rows ?? [], changed: results[i]?.rowCount ?? 0 }));
      return results;
    }, (error: unknown) => {
      for (const s of statements) s.pipelined?.failed(error);
      throw error;
    });
    let next = outgoing(args);
    let after: Outgoing | undefined;
    const commitThen = next && next.values.length === 0 ? COMMIT_THEN.exec(next.text) : null;
    if (commitThen) {
      next = { text: 'commit', values: [] };
      after = { text: commitThen[1]!, values: [] };
    } else if (next && next.values.length === 0 && next.name === undefined && next.text !== 'commit') next = undefined;
    if (!next) return send(statements).then(() => query(...args));
    const all = [...statements, next, ...(after ? [after] : [])];
    return send(all).then((results) => results[statements.length] ?? NOTHING_SENT);
  };
  return (statement) => held.push(statement);
}

/**
 * readAll's statements (src/db/compiled.ts) in one message (sendInOneMessage). A prepared `select *` whose table's
 * columns changed runs the batch again with every statement unnamed, its texts run unnamed from then on
 * (keepPreparedOn).
 */
function runBatchesOn(client: pg.PoolClient, prepared: PreparedTexts): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const wire = (client as unknown as { connection: Wire }).connection;
  const send = async (statements: readonly BoundStatement<unknown>[], named: boolean): Promise<unknown> => {
    const outgoing = statements.map((s): Outgoing => {
      const name = named ? prepared.nameOf(s.sql, s.parameters.length) : undefined;
      return { text: s.sql, values: s.parameters, ...(name === undefined ? {} : { name }) };
    });
    try {
      const all = await sendInOneMessage(query, wire, outgoing);
      return { command: 'SELECT', rowCount: all.length, rows: all.map((r) => r.rows) };
    } catch (error) {
      if (!named || !resultTypeChanged(error)) throw error;
      outgoing.forEach((s) => s.name !== undefined && prepared.refuse(s.text));
      return send(statements, false);
    }
  };
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (text !== STATEMENT_BATCH || args.length !== 2 || !Array.isArray(values)) return query(...args);
    return send(values[0] as BoundStatement<unknown>[], true);
  };
}

/**
 * deferWrite's and alongside's statements (src/db/compiled.ts) held on the connection until the transaction's next
 * statement (sendHeldWithNext), under the name they are kept prepared by; alongside's are given their answers once that
 * message is answered. A write to a reference table runs at once, so that the reference stamp sees it
 * (PostgresReferenceStamp.track).
 */
function holdDeferredOn(client: pg.PoolClient, prepared: PreparedTexts, hold: (statement: Outgoing) => void): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if ((text !== DEFERRED_WRITE && text !== PIPELINED) || args.length !== 2 || !Array.isArray(values)) return query(...args);
    const statement = values[0] as BoundStatement<unknown>;
    const pipelined = text === PIPELINED ? statement as PipelinedStatement : undefined;
    if (REFERENCE_TABLES.test(statement.sql)) {
      return (query(statement.sql, [...statement.parameters]) as Promise<PgResult>).then((result) => {
        pipelined?.answered({ rows: result.rows, changed: result.rowCount ?? 0 });
        return NOTHING_SENT;
      }, (error: unknown) => {
        pipelined?.failed(error);
        throw error;
      });
    }
    const name = prepared.nameOf(statement.sql, statement.parameters.length);
    hold({ text: statement.sql, values: statement.parameters, ...(name === undefined ? {} : { name }), ...(pipelined ? { pipelined } : {}) });
    return Promise.resolve(NOTHING_SENT);
  };
}

/**
 * A prepared `select *` or `returning *` whose table gained or lost a column since (another process migrated the
 * database) fails with this, on every connection that prepared it, until the connection ends.
 */
function resultTypeChanged(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '0A000' && /cached plan must not change result type/.test(String((error as Error).message));
}

/**
 * Kysely's `query(text, values)` becomes `query({ name, text, values })` for the texts kept (PreparedTexts), and for
 * compiledQuery's (src/db/compiled.ts).
 */
function keepPreparedOn(client: pg.PoolClient, prepared: PreparedTexts): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    const name = typeof text === 'string' && Array.isArray(values) && args.length === 2 ? prepared.nameOf(text, values.length) : undefined;
    if (name === undefined) return query(...args);
    return (query({ name, text, values }) as Promise<unknown>).catch((error: unknown) => {
      if (!resultTypeChanged(error)) throw error;
      // Run as written from now on, on every connection. Inside a transaction the retry fails as the transaction
      // does (aborted by the error); outside one it answers.
      prepared.refuse(text as string);
      return query(text, values);
    });
  };
}

/**
 * Database.referenceStamp on PostgreSQL. Other processes' commits are heard as notifications on channel
 * `motu_reference` (migration 0011), through the process's one listener connection; this process's writes are seen on
 * the pooled connections themselves (`track`), as on SQLite, since their notification arrives only after the commit
 * has returned. While the listener is not up, the stamp is unknown and nothing may be cached.
 */
class PostgresReferenceStamp {
  private generation = 0;
  private subscribed = false;

  constructor(private readonly listener: PostgresListener) {}

  current(): number | undefined {
    if (this.listener.listening) return this.generation;
    if (!this.subscribed) {
      this.subscribed = true;
      this.listener.subscribe(REFERENCE_CHANNEL, { onNotify: () => this.generation++, onGap: () => this.generation++ });
    }
    return undefined;
  }

  /** Wraps a pooled connection's `query`: a write naming a reference table changes the stamp as on SQLite. */
  track(client: pg.PoolClient): void {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    let referenceWrite = false; // in the transaction still open on this connection
    const after = (role: 'write' | 'end' | undefined) => {
      if (role === 'write') this.generation++;
      else if (role === 'end' && referenceWrite) {
        referenceWrite = false;
        this.generation++;
      }
    };
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: unknown } | undefined)?.text;
      const role = typeof text === 'string' ? this.roleOf(text) : undefined;
      if (role === undefined) return query(...args);
      if (role === 'write') {
        referenceWrite = true; // a rollback or commit to come changes the stamp again
        this.generation++; // what other requests load from now on may be about to change
      }
      const callback = typeof args[args.length - 1] === 'function' ? (args[args.length - 1] as (...r: unknown[]) => void) : undefined;
      if (callback) {
        return query(...args.slice(0, -1), (...result: unknown[]) => {
          after(role);
          callback(...result);
        });
      }
      return (query(...args) as Promise<unknown>).then(
        (result) => {
          after(role);
          return result;
        },
        (error: unknown) => {
          after(role);
          throw error;
        },
      );
    };
  }

  /** Statement texts already classified (the same few texts run over and over; a regular expression on a 2 kB INSERT is not free). */
  private readonly roles = new Map<string, 'write' | 'end' | undefined>();

  private roleOf(text: string): 'write' | 'end' | undefined {
    if (this.roles.has(text)) return this.roles.get(text);
    const role = ENDS_PG_TRANSACTION.test(text) ? 'end' : !/^\s*select\b/i.test(text) && REFERENCE_TABLES.test(text) ? 'write' : undefined;
    if (this.roles.size >= 1024) this.roles.clear();
    this.roles.set(text, role);
    return role;
  }
}

const ENDS_PG_TRANSACTION = /^\s*(commit|end|rollback)\b/i;
