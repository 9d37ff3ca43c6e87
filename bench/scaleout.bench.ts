// bench/scaleout: session creation (POST /api/v1/payments/sessions) on PostgreSQL with 1, 2 and 4
// `motu serve --role api` processes, plus 2 `motu serve --role worker` processes running throughout, all on one
// fresh database. The load is one autocannon instance per api process, all running at once, with the same total
// number of connections split evenly (64: 64, 2 × 32, 4 × 16), so only the process count changes between runs.
// Without a load balancer in front this is the simplest round-robin: each process gets its share of connections.
// Run alone: `DATABASE_URL=postgres://… node --import tsx bench/scaleout.bench.ts`, or through `npm run bench`,
// which writes the "Scale-out" section of docs/performance.md. Without DATABASE_URL the section is left as it is.
// BENCH_SCALEOUT_PROCESSES (default 1,2,4) sets the process counts, in order; 4,2,1 warms every process first.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { cpuSeconds as cpuSecondsOf, freshPostgres } from './sessions.js';

/** CPU seconds of a process so far, 0 when it is gone. */
const cpuSeconds = (pid: number | undefined): number => cpuSecondsOf(pid) ?? 0;

const ROOT = path.resolve(import.meta.dirname, '..');
const SECTION = 'Scale-out';
const SECONDS = Number(process.env.BENCH_SECONDS ?? '10');
const TOTAL_CONNECTIONS = 64;
const COUNTS = (process.env.BENCH_SCALEOUT_PROCESSES ?? '1,2,4').split(',').map(Number);
const WORKERS = 2;
/** Set by whoever pinned the processes (taskset) before the run, to say so in the figures: e.g. "database on core 1, the rest on core 0". */
const PINNED = process.env.BENCH_SCALEOUT_PINNED ?? '';

interface Proc {
  child: ChildProcess;
  output: string;
  url?: string;
}

function start(role: 'api' | 'worker', env: Record<string, string>): Promise<Proc> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/start/main.ts', 'serve', '--role', role], {
      cwd: ROOT,
      env: { ...process.env, ...env, LOG_LEVEL: role === 'worker' ? 'info' : 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc: Proc = { child, output: '' };
    const ready = role === 'worker' ? /motu started/ : /listening on (http:\/\/\S+)/;
    const onData = (chunk: Buffer) => {
      proc.output = (proc.output + chunk.toString()).slice(-20_000);
      const match = ready.exec(proc.output);
      if (match) {
        proc.url = match[1];
        child.once('exit', () => {});
        resolve(proc);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (proc.output = (proc.output + chunk.toString()).slice(-20_000)));
    child.once('exit', (code) => reject(new Error(`motu serve --role ${role} exited with ${code}:\n${proc.output}`)));
  });
}

async function stop(p: Proc): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.removeAllListeners('exit');
  await new Promise<void>((resolve) => {
    p.child.once('exit', () => resolve());
    p.child.kill('SIGTERM');
  });
}

/**
 * CPU seconds used so far by the PostgreSQL backends serving `database` (their process title names it), or 0 where
 * /proc cannot tell. The server's shared processes (WAL writer, checkpointer) are not counted.
 */
function databaseCpuSeconds(database: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (title.startsWith('postgres: ') && title.split(' ').includes(database)) total += cpuSeconds(Number(entry));
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

let sequence = 0;
const body = () => JSON.stringify({
  order: { reference: `scale-${process.pid}-${sequence++}`, amount: 2500, currency: 'XPF' },
  redirectUrl: 'https://shop.example.com/return',
  notificationUrl: 'https://shop.example.com/hooks/motu',
  storeId: 'web',
});

interface Row {
  processes: number;
  requestsPerSecond: number;
  perProcess: number[];
  p50: number;
  p99: number;
  failures: number;
  apiCpuMicros: number;
  /** The database's backends' CPU per request (µs), where /proc shows them. */
  dbCpuMicros: number;
  load: string;
}

async function measure(apis: Proc[], key: string, seconds: number, database: string): Promise<Omit<Row, 'processes' | 'load'>> {
  const each = TOTAL_CONNECTIONS / apis.length;
  const options = (p: Proc) => ({
    url: `${p.url}/api/v1/payments/sessions`,
    connections: each,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: body() }) }],
  });
  await Promise.all(apis.map((p) => autocannon({ ...options(p), duration: 2 }))); // warm-up, not counted
  const cpuBefore = apis.reduce((s, p) => s + cpuSeconds(p.child.pid), 0);
  const dbBefore = databaseCpuSeconds(database);
  const results = await Promise.all(apis.map((p) => autocannon({ ...options(p), duration: seconds })));
  const cpuAfter = apis.reduce((s, p) => s + cpuSeconds(p.child.pid), 0);
  const dbAfter = databaseCpuSeconds(database);
  const total = results.reduce((s, r) => s + r.requests.total, 0);
  // Latency: the slowest process's percentile (autocannon does not merge histograms across instances).
  return {
    requestsPerSecond: Math.round(total / seconds),
    perProcess: results.map((r) => Math.round(r.requests.total / seconds)),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    failures: results.reduce((s, r) => s + r.non2xx + r.errors, 0),
    apiCpuMicros: total ? Math.round(((cpuAfter - cpuBefore) * 1e6) / total) : 0,
    dbCpuMicros: total ? Math.round(((dbAfter - dbBefore) * 1e6) / total) : 0,
  };
}

function existingSection(): string {
  const doc = path.join(ROOT, 'docs', 'performance.md');
  if (!existsSync(doc)) return '';
  const text = readFileSync(doc, 'utf8');
  const match = new RegExp(`^## ${SECTION}\\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, 'm').exec(text);
  return match?.[1]?.trim() ?? '';
}

export async function runScaleout(log: (line: string) => void = console.log): Promise<Row[]> {
  const database = await freshPostgres(process.env.DATABASE_URL!, 'motu_scale');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'motu-scale-'));
  const env = {
    DATABASE_URL: database.url, MOTU_DATA_DIR: dataDir, PORT: '0', NODE_ENV: '', MOTU_ADMIN_TOKEN: '',
    MOTU_RATE_LIMIT_MAX: '10000000', MOTU_TOKENS_PER_MINUTE: '10000000', MOTU_SECRETS_KEY: randomBytes(32).toString('hex'),
  };
  const procs: Proc[] = [];
  try {
    // The first api process migrates the database and seeds the demo merchant (its key is printed once).
    const first = await start('api', { ...env, MOTU_SEED_DEMO: 'true' });
    procs.push(first);
    const key = /Demo test secret key:\s+(\S+)/.exec(first.output)?.[1];
    if (!key) throw new Error(`no demo key printed:\n${first.output}`);
    for (let i = 0; i < WORKERS; i++) procs.push(await start('worker', { ...env, MOTU_SEED_DEMO: 'false' }));
    const apis = [first];
    const rows: Row[] = [];
    for (const count of COUNTS) {
      while (apis.length < count) {
        const p = await start('api', { ...env, MOTU_SEED_DEMO: 'false' });
        procs.push(p);
        apis.push(p);
      }
      const load = os.loadavg().map((l) => l.toFixed(1)).join(' / ');
      log(`scale-out: ${count} api process(es) + ${WORKERS} workers, ${TOTAL_CONNECTIONS} connections, ${SECONDS} s (load ${load})…`);
      const figures = await measure(apis.slice(0, count), key, SECONDS, new URL(database.url).pathname.slice(1));
      rows.push({ processes: count, load, ...figures });
      log(`  ${figures.requestsPerSecond} sessions/s (${figures.perProcess.join(' + ')}), p50 ${figures.p50} ms, p99 ${figures.p99} ms, failures ${figures.failures}, `
        + `CPU per session: api ${figures.apiCpuMicros} µs, database ${figures.dbCpuMicros} µs`);
    }
    return rows;
  } finally {
    for (const p of procs.reverse()) await stop(p).catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop().catch(() => {});
  }
}

export default async function scaleout(): Promise<{ section: string; markdown: string }> {
  if (!process.env.DATABASE_URL) {
    console.log('scale-out: needs DATABASE_URL (PostgreSQL); section left as it is');
    return { section: SECTION, markdown: existingSection() };
  }
  const rows = await runScaleout();
  const one = rows.find((r) => r.processes === 1)?.requestsPerSecond ?? rows[0]!.requestsPerSecond;
  const cpus = os.cpus();
  const out = [
    `Method: \`bench/scaleout.bench.ts\` on PostgreSQL: one fresh database, ${WORKERS} \`motu serve --role worker\` processes`,
    `running throughout, and ${COUNTS.join(', ')} \`motu serve --role api\` processes in turn (each its own port). The load is one autocannon`,
    `instance per api process, all at once, ${TOTAL_CONNECTIONS} connections in total split evenly between the processes, so only the`,
    `process count changes; each run is ${SECONDS} s after a 2 s warm-up, \`POST /api/v1/payments/sessions\` with a unique body.`,
    'p50/p99 are the slowest process\'s (autocannon does not merge histograms). "API CPU" is the api processes\' user + system',
    'time per request, "database CPU" that of the PostgreSQL backends serving the benchmark\'s database (both from /proc).',
    ...(PINNED ? [
      `Pinned with taskset before the run: ${PINNED} (docs/performance.md, "Scale-out: the arithmetic", says how).`,
    ] : [
      'Everything — PostgreSQL, the api and worker processes and the load generator — runs on',
      `the same ${cpus.length} cores, so this measures whether adding processes helps on this machine, not a cluster.`,
    ]),
    '',
    '| API processes | Sessions/s | per process | vs 1 process | p50 (ms) | p99 (ms) | API CPU µs/request | database CPU µs/request | failures | load average (1 / 5 / 15 min) at start |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) =>
      `| ${r.processes} | ${r.requestsPerSecond} | ${r.perProcess.join(' + ')} | ${(r.requestsPerSecond / one).toFixed(2)} × | ${r.p50} | ${r.p99} | ${r.apiCpuMicros} | ${r.dbCpuMicros} | ${r.failures} | ${r.load} |`),
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown'}.`,
  ];
  return { section: SECTION, markdown: out.join('\n') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await scaleout();
  console.log(markdown);
}
