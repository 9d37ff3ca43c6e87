// PostgreSQL: changes to keys, stores and contracts made by another process (another connection), for the tests of the
// reference cache (src/db/reference-cache.ts, NOTIFY motu_reference).
import pg from 'pg';
import type { TestApp } from './harness.js';
import { eventually } from './wait.js';

/** The app's listener's server process, in pg_stat_activity. */
const LISTENER_BACKEND = `application_name = 'motu-reference-listener' and datname = current_database()`;

/** Runs `statements` on a connection of its own, as another process would, and closes it. */
export async function fromAnotherProcess(t: TestApp, ...statements: Array<[string, unknown[]]>): Promise<void> {
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try {
    for (const [text, values] of statements) await client.query(text, values);
  } finally {
    await client.end();
  }
}

/** Resolves once the app's process listens for other processes' changes (before that nothing is cached). */
export async function listening(t: TestApp): Promise<void> {
  await eventually('the reference listener connects', async () => t.db.referenceStamp() !== undefined);
}

/** Ends the app's listener connection from the server side, as a restart of PostgreSQL or a network cut would. */
export async function cutListener(t: TestApp): Promise<void> {
  await fromAnotherProcess(t, [
    `select pg_terminate_backend(pid) from pg_stat_activity where ${LISTENER_BACKEND}`,
    [],
  ]);
}

/**
 * The process id of the app's listener's server process, when PostgreSQL runs on this machine (its backends can then
 * be signalled); undefined otherwise.
 */
export async function listenerBackendPid(t: TestApp): Promise<number | undefined> {
  const host = new URL(t.databaseUrl!).hostname;
  if (!['127.0.0.1', 'localhost', '::1', '[::1]', ''].includes(host)) return undefined;
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(`select pid from pg_stat_activity where ${LISTENER_BACKEND}`);
    return rows.length === 1 ? rows[0]!.pid : undefined;
  } finally {
    await client.end();
  }
}

/**
 * Resolves once the app's reference stamp has not changed for `quietMs`: the notifications of the app's own recent writes
 * (the triggers notify for every process's commits, this one's too) have arrived.
 */
export async function settled(t: TestApp, quietMs = 150): Promise<void> {
  let stamp = t.db.referenceStamp();
  let since = Date.now();
  const quiet = () => {
    const now = t.db.referenceStamp();
    if (now !== stamp) {
      stamp = now;
      since = Date.now();
    }
    return Date.now() - since >= quietMs;
  };
  await eventually(`the reference stamp unchanged for ${quietMs} ms`, quiet, 10_000, 10);
}

