// What PostgreSQL's backends of a benchmark's database wait on while it runs: `DATABASE_URL=… node --import tsx
// bench/pg-waits.ts` beside a PostgreSQL benchmark (bench/checkout.bench.ts, say), started before it. Every
// BENCH_WAITS_INTERVAL ms (20) for BENCH_WAITS_SECONDS (60) it reads pg_stat_activity of the newest `motu_bench_*`
// database (BENCH_WAITS_DATABASE names another) and the row or object locks its backends wait for (pg_locks not
// granted, with the statement of the backend holding them), and prints per sample how many backends were in each state
// and wait: "idle in transaction | Client:ClientRead" is a transaction waiting for Motu's next statement,
// "Lock:transactionid" or "Lock:tuple" a row lock held by another transaction, "IO:WALSync" and "LWLock:WALWrite" a
// commit's flush. Samples with no backend connected (before Motu starts, after it stops) are not counted. It reads
// the catalog only, from a connection of its own to the server's `postgres` database.
import pg from 'pg';

const INTERVAL = Number(process.env.BENCH_WAITS_INTERVAL ?? '20');
const SECONDS = Number(process.env.BENCH_WAITS_SECONDS ?? '60');
const base = process.env.DATABASE_URL;
if (!base) throw new Error('DATABASE_URL is required');
const admin = new URL(base);
admin.pathname = '/postgres';
const client = new pg.Client({ connectionString: admin.toString() });
await client.connect();

const states = new Map<string, number>();
const locks = new Map<string, number>();
const bump = (m: Map<string, number>, key: string) => m.set(key, (m.get(key) ?? 0) + 1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let database = process.env.BENCH_WAITS_DATABASE;
let samples = 0;
const end = Date.now() + SECONDS * 1000;
while (Date.now() < end) {
  if (!database) {
    const found = await client.query<{ datname: string }>("select datname from pg_database where datname like 'motu_bench_%' order by oid desc limit 1");
    database = found.rows[0]?.datname;
    if (!database) {
      await sleep(200);
      continue;
    }
  }
  const activity = await client.query<{ state: string | null; wait: string; query: string }>(
    `select state, coalesce(wait_event_type, '-') || ':' || coalesce(wait_event, '-') as wait, left(regexp_replace(query, '\\s+', ' ', 'g'), 80) as query
     from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [database]);
  if (activity.rows.length > 0) {
    samples += 1;
    for (const row of activity.rows) {
      bump(states, `${row.state} | ${row.wait}`);
      if (row.wait.startsWith('Lock:') || row.wait.startsWith('LWLock:')) bump(states, `    ${row.wait} in: ${row.query}`);
    }
    const waiting = await client.query<{ lock: string; query: string; holder: string | null }>(
      `select l.locktype || ' ' || l.mode || coalesce(' on ' || l.relation::regclass::text, '') as lock,
         left(regexp_replace(a.query, '\\s+', ' ', 'g'), 80) as query,
         (select left(regexp_replace(h.query, '\\s+', ' ', 'g'), 80) from pg_stat_activity h where h.pid = (pg_blocking_pids(l.pid))[1]) as holder
       from pg_locks l join pg_stat_activity a on a.pid = l.pid where not l.granted and a.datname = $1`, [database]);
    for (const row of waiting.rows) bump(locks, `${row.lock}: ${row.query} — held by: ${row.holder ?? '?'}`);
  }
  await sleep(INTERVAL);
}
await client.end();

const table = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([key, n]) => `${(n / Math.max(samples, 1)).toFixed(3)}\t${key}`).join('\n');
console.log(`${database ?? 'no motu_bench_* database'}: ${samples} samples, every ${INTERVAL} ms; backends per sample by state | wait`);
console.log(table(states));
console.log(`locks waited for, per sample (none: ${locks.size === 0})`);
if (locks.size > 0) console.log(table(locks));
