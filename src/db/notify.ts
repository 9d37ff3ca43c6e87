// Telling other processes that something committed (the delivery workers that rows are due), dialect by dialect.
import { PostgresAdapter, sql } from 'kysely';
import type { Trx } from './adapter.js';
import { afterCommit, notifyWithCommit } from './postgres/postgres.js';

/**
 * Once `trx` commits, `local` runs (this process's listeners) and, on PostgreSQL, every process listening on
 * `channel` is notified. A NOTIFY inside a transaction holds a database-wide lock from its commit's start to its end,
 * WAL flush included, so every notifying transaction would commit one after the other: it is sent after the commit,
 * outside any transaction, in the COMMIT's own message (notifyWithCommit: no round trip or connection of its own; while
 * one of the process's notifications is in flight, a later one sent after this commit stands for it). A
 * transaction opened outside Database.transaction runs no hooks: NOTIFY then goes in it, delivered when (and only if)
 * it commits. On SQLite one process holds the database: `local` runs at once, and a worker it wakes queues behind this
 * transaction and sees its rows right after the commit.
 */
export async function notifyAfterCommit(trx: Trx, channel: string, local: () => void): Promise<void> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) {
    if (await notifyWithCommit(trx, channel)) {
      afterCommit(trx, local);
      return;
    }
    await sql`select pg_notify(${channel}, '')`.execute(trx);
  }
  local();
}
