// What each step of a payment asks of the database: `node --import tsx bench/checkout-statements.ts` (SQLite; also
// PostgreSQL when DATABASE_URL is set). The app runs in this process, without its workers, and pays BENCH_PAYMENTS
// (default 50) payments one after the other through HTTP, as bench/checkout.bench.ts does (session, tokenize,
// authorize, capture). Per step and payment it counts:
// - statements sent to the database (SQLite: better-sqlite3 statements run; PostgreSQL: queries sent, each a round trip);
// - SQLite: how often the step took the one connection (Kysely's connection mutex: each time it may wait for a group
//   commit's batch and its fsync), COMMITs, and fdatasyncs of the WAL on the event loop (a write outside any
//   transaction) and in the thread pool (a group commit's);
// - PostgreSQL: BEGINs (transactions);
// - this process's CPU (all its threads: the app, its client, SQLite's checkpointer and fsyncs) from the step's start to
//   5 ms after its answer, which says in which step a kind of payment spends more (a split payment: in its capture).
// These counts do not depend on the machine's load, unlike throughput. Beside them, the CPU per payment of this process (the
// app and its client) and of PostgreSQL's backends of the database (/proc), the payments paid one at a time.
// BENCH_PATH=monext: the same payments in live mode through the Monext connector, against the fake Monext
// (test/support/fake-monext.ts, in this process: its CPU is counted with the app's), the card "typed" in its widget
// as bench/checkout-monext.bench.ts does it (the tokenize step is then the widget session asked of Motu).
// BENCH_SPLIT=1: split payments instead (docs/platforms.md), as bench/checkout.bench.ts's split phase pays them: a
// platform and 10 linked sellers, each payment split between all 10 with commissions and a discount.
import { syncBuiltinESMExports } from 'node:module';
import fs from 'node:fs';
import SQLite from 'better-sqlite3';
import { SqliteDriver } from 'kysely';
import pg from 'pg';
import type { Post } from './checkout.bench.js';

// BENCH_TRACE=1 prints the statements of the last payment, step by step.
const trace: string[] | undefined = process.env.BENCH_TRACE === '1' ? [] : undefined;
const counts = { statements: 0, acquires: 0, commits: 0, begins: 0, loopSyncs: 0, poolSyncs: 0, cpu: 0 };
type Counts = typeof counts;
const origSync = fs.fdatasyncSync;
const origAsync = fs.fdatasync;
fs.fdatasyncSync = (fd: number) => {
  counts.loopSyncs += 1;
  origSync(fd);
};
fs.fdatasync = ((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
  counts.poolSyncs += 1;
  origAsync(fd, cb);
}) as typeof fs.fdatasync;
syncBuiltinESMExports();
const statementProto = (SQLite as unknown as { prototype: { prepare: (...a: unknown[]) => unknown } }).prototype;
const prepare = statementProto.prepare;
statementProto.prepare = function (this: unknown, ...args: unknown[]) {
  const statement = prepare.apply(this, args) as Record<string, (...a: unknown[]) => unknown> & { source: string };
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = statement[method]!;
    statement[method] = function (this: unknown, ...a: unknown[]) {
      counts.statements += 1;
      trace?.push(statement.source.slice(0, 110));
      if (/^\s*(commit|end)\b/i.test(statement.source)) counts.commits += 1;
      return original.apply(this, a);
    };
  }
  return statement;
};
const acquire = SqliteDriver.prototype.acquireConnection;
SqliteDriver.prototype.acquireConnection = function (this: SqliteDriver) {
  counts.acquires += 1;
  return acquire.call(this);
};
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text ?? '';
  counts.statements += 1;
  trace?.push(text.slice(0, 110));
  if (/^\s*begin\b/i.test(text)) counts.begins += 1;
  if (/^\s*commit\b/i.test(text)) counts.commits += 1;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

const { buildApp } = await import('../src/app.js');
const { parseConfig } = await import('../src/config.js');
const { MerchantsService } = await import('../src/modules/merchants/merchants.service.js');
const { systemClock } = await import('../src/shared/clock.js');
const { sha256Hex } = await import('../src/shared/hash.js');
const { secretBoxFor } = await import('../src/shared/secret-box.js');
const { freshDatabase } = await import('../test/support/harness.js');
const { payThrough, paySplitThrough, poster, splitPlatform } = await import('./checkout.bench.js');
const { FAKE_MONEXT_CREDENTIALS, FakeMonext, MONEXT_CARDS } = await import('../test/support/fake-monext.js');
const MONEXT = process.env.BENCH_PATH === 'monext';
const SPLIT = process.env.BENCH_SPLIT === '1';
const SPLIT_SELLERS = 10;

const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? '50');
const { cpuSeconds, pgBackends } = await import('./sessions.js');
/** CPU per payment, µs: this process (the app and its client) and PostgreSQL's backends of the database. */
const cpu: Record<string, { process: number; postgres: number | undefined }> = {};
const STAGES = ['session', 'tokenize', 'authorize', 'capture'] as const;

async function countOn(dialect: 'sqlite' | 'postgres'): Promise<Record<string, Counts>> {
  const database = await freshDatabase(dialect);
  const fake = MONEXT ? await new FakeMonext().start() : undefined;
  if (fake) {
    fake.autoPay = MONEXT_CARDS.visa;
    fake.record = false;
  }
  const config = parseConfig({
    MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent', MOTU_ADMIN_TOKEN: 'bench-admin-token-0123456789',
    MOTU_RATE_LIMIT_MAX: '10000000', MOTU_TOKENS_PER_MINUTE: '10000000', PORT: '0', ...(fake ? { MOTU_MONEXT_API_URL: fake.url } : {}),
  });
  const app = await buildApp(config, { db: database.db, adminTokenHash: sha256Hex('bench-admin-token-0123456789'), clock: systemClock });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const merchant = await new MerchantsService(database.db, systemClock, secretBoxFor(config)).createMerchant({ name: 'Bench' });
  const key = MONEXT ? merchant.liveSecretKey : merchant.testSecretKey;
  const post = poster(address);
  if (fake) {
    const res = await fetch(`${address}/admin/v1/contracts/${merchant.defaultContractId}`, {
      method: 'PATCH', headers: { 'content-type': 'application/json', authorization: 'Bearer bench-admin-token-0123456789' },
      body: JSON.stringify({ acquirer: 'monext', monext: { ...FAKE_MONEXT_CREDENTIALS, environment: 'homologation' } }),
    });
    if (res.status !== 200) throw new Error(`contract: ${res.status} ${await res.text()}`);
  }
  // Through Monext, the card step is the widget session asked of Motu (the fake's widget pays it at once).
  const widget: Post | undefined = fake
    ? (url, body, auth) => (url === '/acquirer/v1/tokens' ? post('/acquirer/v1/monext/sessions', { session: (body as { session: string }).session }) : post(url, body, auth))
    : undefined;
  // A live payment's notificationUrl must be a public https address (nothing is delivered here: no worker).
  const hook = fake ? 'https://shop.example/hook' : 'http://127.0.0.1:9/hook';
  const split = SPLIT ? await splitPlatform(database.db, address) : undefined;
  const pay = (i: number, t?: Parameters<typeof payThrough>[4]) => split
    ? paySplitThrough(post, split.key, hook, split.sellers, i, t)
    : payThrough(widget ?? post, key, hook, i, t);
  const totals: Record<string, Counts> = Object.fromEntries(STAGES.map((s) => [s, { statements: 0, acquires: 0, commits: 0, begins: 0, loopSyncs: 0, poolSyncs: 0, cpu: 0 }]));
  const timed = async <T>(stage: (typeof STAGES)[number], fn: () => Promise<T>): Promise<T> => {
    const cpuBefore = process.cpuUsage();
    const before = { ...counts };
    if (trace) trace.length = 0;
    const out = await fn();
    if (trace) console.log(`-- ${stage}\n${trace.join('\n')}`);
    await new Promise((r) => setTimeout(r, 5)); // what the request left running (a sync after its answer)
    const used = process.cpuUsage(cpuBefore);
    counts.cpu += used.user + used.system;
    for (const k of Object.keys(counts) as (keyof Counts)[]) totals[stage]![k] += counts[k] - before[k];
    return out;
  };
  for (let i = 0; i < 3; i++) await pay(i); // warm: caches filled
  // PostgreSQL: its backends' CPU over the payments, each paid alone (no contention, no delivery worker), from /proc.
  const pids = database.databaseUrl ? await pgBackends(database.databaseUrl) : [];
  const pgBefore = pids.map((pid) => cpuSeconds(pid));
  const ownBefore = process.cpuUsage();
  for (let i = 0; i < PAYMENTS; i++) await pay(100 + i, timed);
  const own = process.cpuUsage(ownBefore);
  const pgCpu = pids.reduce((sum, pid, i) => sum + ((cpuSeconds(pid) ?? pgBefore[i] ?? 0) - (pgBefore[i] ?? 0)), 0);
  cpu[dialect] = { process: Math.round((own.user + own.system) / PAYMENTS), postgres: pids.length ? Math.round((pgCpu * 1e6) / PAYMENTS) : undefined };
  await post.close();
  await app.close();
  await fake?.stop();
  await database.drop();
  return totals;
}

// BENCH_STATEMENTS_DIALECTS=postgres: PostgreSQL only.
const only = process.env.BENCH_STATEMENTS_DIALECTS?.split(',');
for (const dialect of (process.env.DATABASE_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const)).filter((d) => !only || only.includes(d))) {
  const totals = await countOn(dialect);
  console.log(`\n${dialect}, ${MONEXT ? 'through the Monext connector (its fake in this process)' : 'through the simulator'}${SPLIT ? `, split between ${SPLIT_SELLERS} sellers` : ''}, per payment (${PAYMENTS} payments):`);
  console.log('| Step | Statements | Connection taken (SQLite) | BEGINs | COMMITs | fdatasync on the loop | fdatasync in the pool | CPU µs |');
  console.log('|---|---|---|---|---|---|---|---|');
  const f = (n: number) => (n / PAYMENTS).toFixed(1);
  const sum = { statements: 0, acquires: 0, commits: 0, begins: 0, loopSyncs: 0, poolSyncs: 0, cpu: 0 };
  for (const s of STAGES) {
    const c = totals[s]!;
    for (const k of Object.keys(sum) as (keyof Counts)[]) sum[k] += c[k];
    console.log(`| ${s} | ${f(c.statements)} | ${dialect === 'sqlite' ? f(c.acquires) : '—'} | ${f(c.begins)} | ${f(c.commits)} | ${f(c.loopSyncs)} | ${f(c.poolSyncs)} | ${Math.round(c.cpu / PAYMENTS)} |`);
  }
  console.log(`| whole payment | ${f(sum.statements)} | ${dialect === 'sqlite' ? f(sum.acquires) : '—'} | ${f(sum.begins)} | ${f(sum.commits)} | ${f(sum.loopSyncs)} | ${f(sum.poolSyncs)} | ${Math.round(sum.cpu / PAYMENTS)} |`);
  const used = cpu[dialect]!;
  console.log(`CPU per payment (paid one after the other): this process (app and client) ${used.process} µs${used.postgres !== undefined ? `, PostgreSQL's backends ${used.postgres} µs` : ''}`);
}
