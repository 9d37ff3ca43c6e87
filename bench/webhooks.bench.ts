// bench/webhooks: events committed at a steady rate (one transaction each, as a state change would) and
// delivered by the real worker to a loopback receiver. Reports the rate actually committed, deliveries/s, the latency
// from each event's commit to its receipt, and the CPU each process (and PostgreSQL's backends) spent per event.
// Run alone: `node --import tsx bench/webhooks.bench.ts` (SQLite; also PostgreSQL when DATABASE_URL is set),
// or through `npm run bench`, which writes the "Webhooks" section of docs/performance.md.
//
// The receiver runs in a process of its own, and so does the producer on PostgreSQL (as the API's processes would,
// the worker woken by NOTIFY): the worker's process holds only the worker. On SQLite one process holds the database,
// so the producer commits from the worker's process (woken by the in-process signal), as `motu serve` would.
import { fork, type ChildProcess } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { secretBoxFor } from '../src/shared/secret-box.js';
import { parseConfig, type Config } from '../src/config.js';
import { openDatabase, type Database, type Dialect } from '../src/db/database.js';
import { keepEndpointsCached } from '../src/events/endpoint-cache.js';
import { recordEvent } from '../src/events/outbox.js';
import { payloads } from '../src/events/payloads.js';
import { MerchantsService } from '../src/modules/merchants/merchants.service.js';
import { WebhooksService } from '../src/modules/webhooks/webhooks.service.js';
import { systemClock } from '../src/shared/clock.js';
import { startWorkers } from '../src/start/workers.js';
import { customerData } from '../test/support/factories.js';
import { freshDatabase } from '../test/support/harness.js';
import { nowMs, produce, type Produced } from './webhooks-peers.js';
import { cpuSeconds as cpuSecondsOf } from './sessions.js';
import { startCounting, stopCounting, type StatementCount } from './statement-count.js';
import { checkClaimPlans, printClaimPlans } from './webhooks-claim-plan.js';

/** CPU seconds of a process so far, 0 when it is gone. */
const cpuSeconds = (pid: number | undefined): number => cpuSecondsOf(pid) ?? 0;

const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? '5');
const RATES = (process.env.BENCH_WEBHOOK_RATES ?? '500,1000,2000,3000').split(',').filter(Boolean).map(Number);
const DRAIN = Number(process.env.BENCH_WEBHOOK_DRAIN ?? '10000');
/** PostgreSQL: the producer's pooled connections (its concurrent transactions), and events per transaction. */
const PRODUCER_CONNECTIONS = Number(process.env.BENCH_WEBHOOK_PRODUCER_CONNECTIONS ?? '16');
const PER_TRANSACTION = Number(process.env.BENCH_WEBHOOK_PER_TRANSACTION ?? '1');
const DELIVERY = { perTarget: 64, concurrency: 256 };
/** BENCH_WEBHOOK_COUNT=1: the statements and transactions the worker sends in a drain, per delivered event. */
const COUNT = process.env.BENCH_WEBHOOK_COUNT === '1';
if (COUNT) void (startCounting(), stopCounting()); // installed before any connection is opened
const PEERS = new URL('./webhooks-peers.ts', import.meta.url).pathname;
const silent = { info() {}, warn() {}, error() {} };

interface Cpu {
  /** µs of CPU (user + system, from /proc) per delivered event. */
  worker: number;
  producer: number | null;
  receiver: number;
  /** PostgreSQL backends: those of the worker (its pool and listener), those of the producer. */
  pgWorker: number | null;
  pgProducer: number | null;
}

interface Run {
  dialect: Dialect;
  rate: number;
  /** The rate the producer actually committed at. */
  achieved: number;
  committed: number;
  delivered: number;
  duplicates: number;
  deliveriesPerSecond: number;
  p50: number;
  p99: number;
  max: number;
  drainedMs: number;
  cpu: Cpu;
  /** 1-minute load average when the run started. */
  load: number;
  /** BENCH_WEBHOOK_COUNT=1: this process's statements (on SQLite the producer's too). */
  count?: StatementCount;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * PostgreSQL's backends connected to the bench database, by the application name their pool gave them; their CPU is
 * read from /proc (the server runs on this machine). A backend that opens during the run counts from 0; one that
 * closes before the last reading is missed (the pools keep theirs open).
 */
async function pgBackends(url: string | undefined): Promise<Map<number, string>> {
  return new Map([...(await pgBackendsWithQuery(url))].map(([pid, b]) => [pid, b.name]));
}

/** The same, each with the text of its last statement (BENCH_WEBHOOK_BACKENDS=1 prints each backend's CPU). */
async function pgBackendsWithQuery(url: string | undefined): Promise<Map<number, { name: string; query: string }>> {
  if (!url) return new Map();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number; application_name: string; query: string }>(
      'select pid, application_name, query from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    return new Map(rows.map((r) => [r.pid, { name: r.application_name, query: r.query }]));
  } finally {
    await client.end();
  }
}

class CpuMeter {
  private readonly before = new Map<number, number>();
  constructor(private readonly url: string | undefined, private readonly pids: { producer?: number; receiver: number }) {}

  async start(): Promise<void> {
    for (const pid of [process.pid, this.pids.producer, this.pids.receiver, ...(await pgBackends(this.url)).keys()]) {
      if (pid !== undefined) this.before.set(pid, cpuSeconds(pid));
    }
  }

  async stop(events: number): Promise<Cpu> {
    const per = (pid: number | undefined) => Math.round(((cpuSeconds(pid) - (this.before.get(pid!) ?? 0)) * 1e6) / Math.max(1, events));
    const backends = await pgBackendsWithQuery(this.url);
    let pgWorker = 0;
    let pgProducer = 0;
    for (const [pid, { name, query }] of backends) {
      if (name === 'bench-producer') pgProducer += per(pid);
      else pgWorker += per(pid);
      if (process.env.BENCH_WEBHOOK_BACKENDS === '1') console.error(`    backend ${pid} ${name}: ${per(pid)} µs/event (${query.replace(/\s+/g, ' ').slice(0, 50)})`);
    }
    return {
      worker: per(process.pid),
      producer: this.pids.producer === undefined ? null : per(this.pids.producer),
      receiver: per(this.pids.receiver),
      pgWorker: this.url ? pgWorker : null,
      pgProducer: this.url ? pgProducer : null,
    };
  }
}

/** A peer process (webhooks-peers.ts) and the next message of a type from it. */
function peer(role: 'receiver' | 'producer') {
  // BENCH_WEBHOOK_PROFILE: each peer writes a CPU profile of its whole life there too (--cpu-prof, at its exit).
  const profile = process.env.BENCH_WEBHOOK_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WEBHOOK_PROFILE}`, `--cpu-prof-name=${role}-${Date.now()}.cpuprofile`] : [];
  const child = fork(PEERS, [role], { execArgv: [...profile, '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map<string, (m: Record<string, unknown>) => void>();
  const listeners: Array<(m: Record<string, unknown>) => void> = [];
  child.on('message', (m: Record<string, unknown>) => {
    for (const l of listeners) l(m);
    const w = waiting.get(String(m.type));
    if (w) {
      waiting.delete(String(m.type));
      w(m);
    }
  });
  return {
    child,
    next: <T = Record<string, unknown>>(type: string) => new Promise<T>((r) => waiting.set(type, r as (m: Record<string, unknown>) => void)),
    on: (l: (m: Record<string, unknown>) => void) => listeners.push(l),
  };
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

/** The connection string of the bench database with an application name (to tell the backends apart). */
function named(url: string | undefined, name: string): string | undefined {
  if (!url) return undefined;
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
}

/** The receiver process, and a merchant whose endpoint (every event) is the receiver. */
async function withEndpoint(config: Config, db: Database) {
  const receiver = peer('receiver');
  let received = 0;
  receiver.on((m) => {
    if (m.type === 'progress') received = Number(m.received);
  });
  const { port } = await receiver.next<{ port: number }>('ready');
  const merchant = await new MerchantsService(db, systemClock, secretBoxFor(config)).createMerchant({ name: 'Bench' });
  await new WebhooksService(config, db, systemClock).createEndpoint(
    { merchantId: merchant.id, mode: 'test' },
    { url: `http://127.0.0.1:${port}/hook`, events: ['*'] },
  );
  return {
    merchant,
    receiver,
    received: () => received,
    async report() {
      receiver.child.send({ type: 'report' });
      return receiver.next<{ receivedAt: Array<[string, number]>; duplicates: number }>('report');
    },
    async exit() {
      receiver.child.send({ type: 'exit' });
      await exited(receiver.child);
    },
  };
}

async function runAt(dialect: Dialect, rate: number): Promise<Run> {
  const database = await freshDatabase(dialect);
  const config = parseConfig({ MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent' });
  const endpoint = await withEndpoint(config, database.db);
  keepEndpointsCached(database.db); // as the application's composition does (SQLite: the producer is in this process)
  const options = { merchantId: endpoint.merchant.id, rate, seconds: SECONDS, perTransaction: dialect === 'postgres' ? PER_TRANSACTION : 1 };
  // The worker's own database handle on PostgreSQL, its backends named for the CPU reading.
  const workerDb = dialect === 'postgres' ? openDatabase({ databaseUrl: named(database.databaseUrl, 'bench-worker'), dataDir: database.dataDir }) : database.db;
  const workers = startWorkers(config, workerDb, systemClock, silent, { delivery: DELIVERY });
  const load = os.loadavg()[0]!;
  let meter: CpuMeter;
  let producer: ReturnType<typeof peer> | undefined;
  if (dialect === 'postgres') {
    producer = peer('producer');
    await producer.next('ready');
    meter = new CpuMeter(database.databaseUrl, { producer: producer.child.pid, receiver: endpoint.receiver.child.pid! });
    producer.child.send({ type: 'produce', databaseUrl: named(database.databaseUrl, 'bench-producer'), dataDir: database.dataDir, poolSize: PRODUCER_CONNECTIONS, options });
    await producer.next('started');
    await meter.start();
    if (COUNT) startCounting();
  } else {
    meter = new CpuMeter(undefined, { receiver: endpoint.receiver.child.pid! });
    await meter.start();
    if (COUNT) startCounting();
  }
  const produced = await profiled(`steady-${dialect}-${rate}`, async () => {
    const p = producer ? await producer.next<Produced>('produced') : await produce(database.db, options);
    const deadline = nowMs() + 30_000;
    while (endpoint.received() < p.committedAt.length && nowMs() < deadline) await new Promise((r) => setTimeout(r, 20));
    return p;
  });
  const count = COUNT ? stopCounting() : undefined;
  const { receivedAt, duplicates } = await endpoint.report();
  const cpu = await meter.stop(receivedAt.length);
  await endpoint.exit();
  if (producer) {
    producer.child.send({ type: 'exit' });
    await exited(producer.child);
  }
  await workers.stop();
  if (workerDb !== database.db) await workerDb.close();
  await database.drop();

  const received = new Map(receivedAt);
  const latencies: number[] = [];
  let lastReceipt = produced.startedAt;
  for (const [id, at] of produced.committedAt) {
    const r = received.get(id);
    if (r === undefined) continue;
    latencies.push(r - at);
    lastReceipt = Math.max(lastReceipt, r);
  }
  latencies.sort((a, b) => a - b);
  const round1 = (x: number) => Math.round(x * 10) / 10;
  return {
    dialect,
    rate,
    achieved: Math.round(produced.committedAt.length / ((produced.lastCommitAt - produced.startedAt) / 1000)),
    committed: produced.committedAt.length,
    delivered: latencies.length,
    duplicates,
    deliveriesPerSecond: Math.round(latencies.length / ((lastReceipt - produced.startedAt) / 1000)),
    p50: round1(percentile(latencies, 50)),
    p99: round1(percentile(latencies, 99)),
    max: round1(latencies[latencies.length - 1] ?? NaN),
    drainedMs: Math.round(Math.max(0, lastReceipt - produced.lastCommitAt)),
    cpu,
    load,
    count,
  };
}

interface Drain {
  dialect: Dialect;
  events: number;
  deliveriesPerSecond: number;
  cpu: Cpu;
  load: number;
  count?: StatementCount;
}

/** BENCH_WEBHOOK_PROFILE=<dir>: the worker's process is profiled during each steady run and drain (`node --import tsx bench/cpuprofile.ts <file>`). */
async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_WEBHOOK_PROFILE;
  if (!dir) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(`${dir}/${name}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  }
}

/** The worker alone: DRAIN events committed beforehand (100 per transaction), then the time to deliver them all. */
async function drain(dialect: Dialect, events: number): Promise<Drain> {
  const database = await freshDatabase(dialect);
  const config = parseConfig({ MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent' });
  const db = database.db;
  const endpoint = await withEndpoint(config, db);
  keepEndpointsCached(db);
  for (let i = 0; i < events; i += 100) {
    await db.transaction(async (trx) => {
      for (let j = i; j < Math.min(events, i + 100); j++) {
        await recordEvent(trx, { merchantId: endpoint.merchant.id, mode: 'test', ...payloads.customerCreated(customerData(`cus_${j}`, 'bench')) });
      }
    });
  }
  const workerDb = dialect === 'postgres' ? openDatabase({ databaseUrl: named(database.databaseUrl, 'bench-worker'), dataDir: database.dataDir }) : db;
  const load = os.loadavg()[0]!;
  const meter = new CpuMeter(database.databaseUrl, { receiver: endpoint.receiver.child.pid! });
  await meter.start();
  if (COUNT) startCounting();
  const start = nowMs();
  const workers = startWorkers(config, workerDb, systemClock, silent, { delivery: DELIVERY });
  const deadline = start + 120_000;
  await profiled(`drain-${dialect}`, async () => {
    while (endpoint.received() < events && nowMs() < deadline) await new Promise((r) => setTimeout(r, 5));
  });
  const elapsed = nowMs() - start;
  const count = COUNT ? stopCounting() : undefined;
  const { receivedAt } = await endpoint.report();
  const cpu = await meter.stop(receivedAt.length);
  await endpoint.exit();
  await workers.stop();
  if (workerDb !== db) await workerDb.close();
  await database.drop();
  return { dialect, events, deliveriesPerSecond: Math.round(receivedAt.length / (elapsed / 1000)), cpu, load, count };
}

const orDash = (n: number | null) => (n === null ? '—' : String(n));

function printCount(count: StatementCount, events: number): void {
  const per = (n: number) => (n / Math.max(1, events)).toFixed(3);
  console.error(`  statements ${per(count.statements)}/event, transactions ${per(count.commits)}/event`);
  for (const [text, n] of [...count.byText].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.error(`    ${n}  ${text}`);
}

export default async function bench(): Promise<{ section: string; markdown: string }> {
  const dialects: Dialect[] = (process.env.DATABASE_URL ? ['sqlite', 'postgres'] as Dialect[] : ['sqlite'] as Dialect[]).filter(
    (d) => !process.env.BENCH_WEBHOOK_DIALECTS || process.env.BENCH_WEBHOOK_DIALECTS.split(',').includes(d),
  );
  if (dialects.includes('postgres')) {
    // The claim's plans first: a generic plan that reads the whole table would decide every figure below.
    const plans = await checkClaimPlans();
    printClaimPlans(plans);
    if (plans.some((c) => !c.ok)) throw new Error('the claim of pending rows no longer walks the pending index (bench/webhooks-claim-plan.ts)');
  }
  const runs: Run[] = [];
  const drains: Drain[] = [];
  for (const dialect of dialects) {
    for (const rate of RATES) {
      const r = await runAt(dialect, rate);
      runs.push(r);
      console.error(
        `webhooks ${dialect} @${rate}/s: committed ${r.achieved}/s, ${r.deliveriesPerSecond} deliveries/s, p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms, ` +
          `${r.delivered}/${r.committed} (${r.duplicates} twice), CPU µs/event worker ${r.cpu.worker} producer ${orDash(r.cpu.producer)} receiver ${r.cpu.receiver} ` +
          `pg(worker) ${orDash(r.cpu.pgWorker)} pg(producer) ${orDash(r.cpu.pgProducer)}, load ${r.load.toFixed(2)}`,
      );
      if (r.count) printCount(r.count, r.delivered);
    }
    if (DRAIN > 0) {
      const d = await drain(dialect, DRAIN);
      drains.push(d);
      console.error(`webhooks ${dialect} drain of ${d.events}: ${d.deliveriesPerSecond} deliveries/s, CPU µs/event worker ${d.cpu.worker} pg ${orDash(d.cpu.pgWorker)}, load ${d.load.toFixed(2)}`);
      if (d.count) printCount(d.count, d.events);
    }
  }
  const lines = [
    `Method: \`bench/webhooks.bench.ts\` (\`BENCH_ONLY=webhooks npm run bench\`, or \`node --import tsx bench/webhooks.bench.ts\`;`,
    '`BENCH_WEBHOOK_RATES`, `BENCH_WEBHOOK_SECONDS`, `BENCH_WEBHOOK_DRAIN`, `BENCH_WEBHOOK_DIALECTS`,',
    '`BENCH_WEBHOOK_PRODUCER_CONNECTIONS`, `BENCH_WEBHOOK_PER_TRANSACTION`). Two measurements, each on a fresh database, one',
    'registered endpoint: a loopback HTTP receiver answering 204 in a process of its own (bench/webhooks-peers.ts), and the',
    `real delivery worker (claim, sign, send, record the attempt; \`perTarget\` ${DELIVERY.perTarget}, \`concurrency\` ${DELIVERY.concurrency}) alone in the bench's process.`,
    '',
    `- **Steady rate**: \`customer.created\` events committed at the offered rate for ${SECONDS} s, each in its own transaction`,
    `  (as a state change would${PER_TRANSACTION > 1 ? `; on PostgreSQL ${PER_TRANSACTION} per transaction` : ''}). On PostgreSQL the producer is a process of its own with ${PRODUCER_CONNECTIONS} pooled`,
    '  connections, as the API\'s processes would be (the worker is woken by NOTIFY); on SQLite, where one process holds the',
    '  database, it commits from the worker\'s process (woken in-process), so the worker\'s CPU there includes the producer\'s.',
    '  "Committed/s" is the rate the producer achieved. Latency is from each commit returning to the receiver reading the',
    '  request (the machine\'s monotonic clock, the same in every process); "drain" is how long after the last commit the',
    '  last delivery arrived. Deliveries/s counts from the first commit to the last receipt.',
    `- **Backlog drain**: ${DRAIN} events committed first (100 per transaction), then the worker started: deliveries/s is the`,
    '  worker alone, without the producer competing.',
    '',
    'CPU is user + system time from /proc per delivered event: the worker\'s process, the producer\'s, the receiver\'s, and',
    'PostgreSQL\'s backends connected to the bench database, told apart by the application name their pool gave them',
    '(the worker\'s pool and listener; the producer\'s pool). It depends much less than throughput on the other jobs of the',
    'shared 2-core machine. "Load" is the 1-minute load average when the run started. "Twice" counts events the receiver got',
    'more than once.',
    '',
    '| Database | Offered events/s | Committed/s | Delivered | Twice | Deliveries/s | p50 (ms) | p99 (ms) | Drain after last commit (ms) | Worker CPU µs/event | PostgreSQL (worker) µs/event | Producer µs/event | PostgreSQL (producer) µs/event | Receiver µs/event | Load |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...runs.map(
      (r) =>
        `| ${r.dialect} | ${r.rate} | ${r.achieved} | ${r.delivered}/${r.committed} | ${r.duplicates} | ${r.deliveriesPerSecond} | ${r.p50} | ${r.p99} | ${r.drainedMs} | ` +
        `${r.cpu.worker} | ${orDash(r.cpu.pgWorker)} | ${orDash(r.cpu.producer)} | ${orDash(r.cpu.pgProducer)} | ${r.cpu.receiver} | ${r.load.toFixed(1)} |`,
    ),
    '',
    '| Database | Backlog drained | Deliveries/s | Worker CPU µs/event | PostgreSQL µs/event | Receiver µs/event | Load |',
    '|---|---|---|---|---|---|---|',
    ...drains.map((d) => `| ${d.dialect} | ${d.events} | ${d.deliveriesPerSecond} | ${d.cpu.worker} | ${orDash(d.cpu.pgWorker)} | ${d.cpu.receiver} | ${d.load.toFixed(1)} |`),
  ];
  return { section: 'Webhooks', markdown: lines.join('\n') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await bench();
  console.log(markdown);
}
