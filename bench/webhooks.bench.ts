// bench/webhooks: events committed at a steady rate (one transaction each, as a state change would) and
// delivered by the real worker to a loopback receiver. Reports deliveries/s and commit-to-receipt latency.
// Run alone: `node --import tsx bench/webhooks.bench.ts` (SQLite; also PostgreSQL when DATABASE_URL is set),
// or through `npm run bench`, which writes the "Webhooks" section of docs/performance.md.
import { secretBoxFor } from '../src/shared/secret-box.js';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { parseConfig, type Config } from '../src/config.js';
import type { Database, Dialect } from '../src/db/database.js';
import { recordEvent } from '../src/events/outbox.js';
import { payloads } from '../src/events/payloads.js';
import { MerchantsService } from '../src/modules/merchants/merchants.service.js';
import { WebhooksService } from '../src/modules/webhooks/webhooks.service.js';
import { systemClock } from '../src/shared/clock.js';
import { startWorkers } from '../src/start/workers.js';
import { customerData } from '../test/support/factories.js';
import { freshDatabase } from '../test/support/harness.js';

const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? '5');
const RATES = (process.env.BENCH_WEBHOOK_RATES ?? '500,1000,2000,3000').split(',').filter(Boolean).map(Number);
const DRAIN = Number(process.env.BENCH_WEBHOOK_DRAIN ?? '10000');
const silent = { info() {}, warn() {}, error() {} };

interface Run {
  dialect: Dialect;
  rate: number;
  committed: number;
  delivered: number;
  deliveriesPerSecond: number;
  p50: number;
  p99: number;
  drainedMs: number;
  /** This process's CPU time (user + system) per delivery: worker, producer and receiver together. */
  cpuMicrosPerDelivery: number;
  /** 1-minute load average when the run started. */
  load: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Starts the loopback receiver and registers it as a merchant's endpoint for every event; returns the merchant. */
async function listenAsEndpoint(receiver: http.Server, config: Config, db: Database) {
  receiver.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as AddressInfo).port;
  const merchant = await new MerchantsService(db, systemClock, secretBoxFor(config)).createMerchant({ name: 'Bench' });
  await new WebhooksService(config, db, systemClock).createEndpoint(
    { merchantId: merchant.id, mode: 'test' },
    { url: `http://127.0.0.1:${port}/hook`, events: ['*'] },
  );
  return merchant;
}

async function runAt(dialect: Dialect, rate: number): Promise<Run> {
  const database = await freshDatabase(dialect);
  const config = parseConfig({ MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent' });
  const db = database.db;
  const committedAt = new Map<string, number>();
  const latencies: number[] = [];
  let firstCommit = 0;
  let lastReceipt = 0;
  const receiver = http.createServer((req, res) => {
    const id = String(req.headers['x-service-event-id']);
    req.resume();
    req.on('end', () => {
      const now = performance.now();
      const at = committedAt.get(id);
      if (at !== undefined) latencies.push(now - at);
      lastReceipt = now;
      res.writeHead(204).end();
    });
  });
  const merchant = await listenAsEndpoint(receiver, config, db);
  const workers = startWorkers(config, db, systemClock, silent, { delivery: { perTarget: 64, concurrency: 256 } });

  // Steady rate: every 10 ms, the events due by now, each in its own transaction.
  const total = rate * SECONDS;
  let sent = 0;
  const load = os.loadavg()[0]!;
  const start = performance.now();
  const cpuBefore = process.cpuUsage();
  firstCommit = start;
  const inFlight = new Set<Promise<void>>();
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
    for (; sent < due; sent++) {
      const n = sent;
      const p = db
        .transaction((trx) => recordEvent(trx, { merchantId: merchant.id, mode: 'test', ...payloads.customerCreated(customerData(`cus_${n}`, 'bench')) }))
        .then((e) => void committedAt.set(e.id, performance.now()));
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  await Promise.all([...inFlight]);
  const producedAt = performance.now();
  const deadline = producedAt + 30_000;
  while (latencies.length < total && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const cpu = process.cpuUsage(cpuBefore);
  await workers.stop();
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
  await database.drop();
  latencies.sort((a, b) => a - b);
  return {
    dialect,
    rate,
    committed: total,
    delivered: latencies.length,
    deliveriesPerSecond: Math.round(latencies.length / ((lastReceipt - firstCommit) / 1000)),
    p50: Math.round(percentile(latencies, 50) * 10) / 10,
    p99: Math.round(percentile(latencies, 99) * 10) / 10,
    drainedMs: Math.round(Math.max(0, lastReceipt - producedAt)),
    cpuMicrosPerDelivery: Math.round((cpu.user + cpu.system) / Math.max(1, latencies.length)),
    load,
  };
}

interface Drain {
  dialect: Dialect;
  events: number;
  deliveriesPerSecond: number;
  cpuMicrosPerDelivery: number;
  load: number;
}

/** The worker alone: DRAIN events committed beforehand (100 per transaction), then the time to deliver them all. */
async function drain(dialect: Dialect, events: number): Promise<Drain> {
  const database = await freshDatabase(dialect);
  const config = parseConfig({ MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent' });
  const db = database.db;
  let received = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  const merchant = await listenAsEndpoint(receiver, config, db);
  for (let i = 0; i < events; i += 100) {
    await db.transaction(async (trx) => {
      for (let j = i; j < Math.min(events, i + 100); j++) {
        await recordEvent(trx, { merchantId: merchant.id, mode: 'test', ...payloads.customerCreated(customerData(`cus_${j}`, 'bench')) });
      }
    });
  }
  const load = os.loadavg()[0]!;
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  const workers = startWorkers(config, db, systemClock, silent, { delivery: { perTarget: 64, concurrency: 256 } });
  const deadline = start + 120_000;
  while (received < events && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const elapsed = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  await workers.stop();
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
  await database.drop();
  return {
    dialect,
    events,
    deliveriesPerSecond: Math.round(received / (elapsed / 1000)),
    cpuMicrosPerDelivery: Math.round((cpu.user + cpu.system) / Math.max(1, received)),
    load,
  };
}

export default async function bench(): Promise<{ section: string; markdown: string }> {
  const dialects: Dialect[] = (process.env.DATABASE_URL ? ['sqlite', 'postgres'] as Dialect[] : ['sqlite'] as Dialect[]).filter(
    (d) => !process.env.BENCH_WEBHOOK_DIALECTS || process.env.BENCH_WEBHOOK_DIALECTS.split(',').includes(d),
  );
  const runs: Run[] = [];
  const drains: Drain[] = [];
  for (const dialect of dialects) {
    for (const rate of RATES) {
      const r = await runAt(dialect, rate);
      runs.push(r);
      console.error(`webhooks ${dialect} @${rate}/s: ${r.deliveriesPerSecond} deliveries/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.delivered}/${r.committed}, CPU ${r.cpuMicrosPerDelivery} µs/delivery, load ${r.load.toFixed(2)}`);
    }
    if (DRAIN > 0) {
      const d = await drain(dialect, DRAIN);
      drains.push(d);
      console.error(`webhooks ${dialect} drain of ${d.events}: ${d.deliveriesPerSecond} deliveries/s, CPU ${d.cpuMicrosPerDelivery} µs/delivery, load ${d.load.toFixed(2)}`);
    }
  }
  const lines = [
    `Method: \`bench/webhooks.bench.ts\` (\`BENCH_ONLY=webhooks npm run bench\`, or \`node --import tsx bench/webhooks.bench.ts\`;`,
    '`BENCH_WEBHOOK_RATES`, `BENCH_WEBHOOK_SECONDS`, `BENCH_WEBHOOK_DRAIN`, `BENCH_WEBHOOK_DIALECTS`). Two measurements, each on a',
    'fresh database, one registered endpoint: a loopback HTTP receiver in the same process answering 204, and the real',
    'delivery worker (claim, sign, send, record the attempt; `perTarget` 64, `concurrency` 256) in the same process too.',
    '',
    `- **Steady rate**: \`customer.created\` events committed at the offered rate for ${SECONDS} s, each in its own transaction`,
    '  (as a state change would). Latency is from the commit returning to the receiver reading the request; "drain" is how',
    '  long after the last commit the last delivery arrived. Deliveries/s counts from the first commit to the last receipt,',
    '  so it cannot exceed what the producer managed to commit.',
    `- **Backlog drain**: ${DRAIN} events committed first (100 per transaction), then the worker started: deliveries/s is the`,
    '  worker alone, without the producer competing.',
    '',
    '"CPU" is this process\'s user + system time per delivery (worker, producer and receiver together; PostgreSQL\'s own CPU',
    'is not in it): it depends much less than throughput on the other jobs of the shared 2-core machine. "Load" is the',
    '1-minute load average when the run started.',
    '',
    '| Database | Offered events/s | Delivered | Deliveries/s | p50 (ms) | p99 (ms) | Drain after last commit (ms) | CPU µs/delivery | Load |',
    '|---|---|---|---|---|---|---|---|---|',
    ...runs.map(
      (r) => `| ${r.dialect} | ${r.rate} | ${r.delivered}/${r.committed} | ${r.deliveriesPerSecond} | ${r.p50} | ${r.p99} | ${r.drainedMs} | ${r.cpuMicrosPerDelivery} | ${r.load.toFixed(1)} |`,
    ),
    '',
    '| Database | Backlog drained | Deliveries/s | CPU µs/delivery | Load |',
    '|---|---|---|---|---|',
    ...drains.map((d) => `| ${d.dialect} | ${d.events} | ${d.deliveriesPerSecond} | ${d.cpuMicrosPerDelivery} | ${d.load.toFixed(1)} |`),
  ];
  return { section: 'Webhooks', markdown: lines.join('\n') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await bench();
  console.log(markdown);
}
