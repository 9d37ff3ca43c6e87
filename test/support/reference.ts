// PostgreSQL: changes to keys, stores and contracts made by another process (another connection), for the tests of the
// reference cache (src/db/reference-cache.ts, NOTIFY motu_reference).
import assert from 'node:assert/strict';
import pg from 'pg';
import type { TestApp } from './harness.js';

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
    `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'motu-reference-listener' and datname = current_database()`,
    [],
  ]);
}

/** Polls `check` every 20 ms until it holds; fails after `timeoutMs`. */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    assert.ok(Date.now() < deadline, `${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
