// Telling other processes that something committed (the delivery workers that rows are due), dialect by dialect.
import { PostgresAdapter, sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Trx } from './adapter.js';
import { afterCommit } from './postgres/postgres.js';
import type { DB } from './schema.js';

/**
 * Once `trx` commits, `local` runs (this process's listeners) and, on PostgreSQL, every process listening on
 * `channel` is notified. A NOTIFY inside a transaction holds a database-wide lock from its commit's start to its end,
 * WAL flush included, so every notifying transaction would commit one after the other: it is sent after the commit,
 * outside any transaction, and coalesced (one in flight at a time, one more for everything committed meanwhile). A
 * transaction opened outside Database.transaction runs no hooks: NOTIFY then goes in it, delivered when (and only if)
 * it commits. On SQLite one process holds the database: `local` runs at once, and a worker it wakes queues behind this
 * transaction and sees its rows right after the commit.
 */
export async function notifyAfterCommit(trx: Trx, channel: string, local: () => void): Promise<void> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) {
    if (afterCommit(trx, (kysely) => {
      local();
      notifyCoalesced(kysely, channel);
    })) return;
    await sql`select pg_notify(${channel}, '')`.execute(trx);
  }
  local();
}

const notifying = new WeakMap<Kysely<DB>, Map<string, { running: boolean; again: boolean }>>();

function notifyCoalesced(kysely: Kysely<DB>, channel: string): void {
  let byChannel = notifying.get(kysely);
  if (!byChannel) notifying.set(kysely, (byChannel = new Map()));
  let state = byChannel.get(channel);
  if (!state) byChannel.set(channel, (state = { running: false, again: false }));
  if (state.running) {
    state.again = true;
    return;
  }
  state.running = true;
  const s = state;
  void sql`select pg_notify(${channel}, '')`
    .execute(kysely)
    .catch(() => {}) // the listeners' poll covers a lost wake-up
    .finally(() => {
      s.running = false;
      if (s.again) {
        s.again = false;
        notifyCoalesced(kysely, channel);
      }
    });
}
