// bench/sessions: throughput and latency of session creation through the real `motu serve`, against a bare
// Fastify route with the same key lookup answering the same JSON (bench/bare.ts), in one run, at 32 and 256
// connections; with each server's CPU per request, RSS idle and under load, and start-up time to /readyz.
// Until POST /api/v1/payments/sessions exists, POST /api/v1/customers (one unique customer per request) stands in.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import pg from 'pg';

export interface Figures {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  total: number;
  /** Server CPU time (user + system) per request, from /proc (Linux); undefined elsewhere. */
  cpuMicrosPerRequest?: number;
  /** The client's (autocannon's, in this process) CPU time per request. */
  clientCpuMicrosPerRequest?: number;
  connections: number;
  /** Which round of the run (1, 2, …): each round measures every variant, then the bare route. */
  round?: number;
  /** Highest resident set size seen during the measured run (sampled every 100 ms), MiB; Linux only. */
  rssLoadMiB?: number;
}

/** One start of a server: time from spawn to the first 200 of /readyz (or to "listening" for the bare route), RSS when idle. */
export interface StartFigures {
  label: string;
  startupMs: number;
  rssIdleMiB?: number;
}

export interface SessionsResult {
  dialect: 'sqlite' | 'postgres';
  route: string;
  durationSeconds: number;
  /** The bare route at each connection count. */
  bares: Figures[];
  runs: Figures[];
  starts: StartFigures[];
}

const ROOT = path.resolve(import.meta.dirname, '..');
export const CONNECTIONS = [32, 256];

interface Started {
  child: ChildProcess;
  url: string;
  output: string;
}

export function startProcess(args: string[], env: Record<string, string | undefined>, nodeArgs: string[] = []): Promise<Started> {
  return new Promise((resolve, reject) => {
    // A compiled entry (.js) runs as `motu` does in production; TypeScript sources through tsx.
    const loader = args[0]?.endsWith('.js') ? [] : ['--import', 'tsx'];
    const child = spawn(process.execPath, [...nodeArgs, ...loader, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        child.stdout!.off('data', onData);
        resolve({ child, url: match[1]!, output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`)));
  });
}

/**
 * `motu serve` as bench/profile.ts and bench/threads.ts measure it: compiled (motuCommand), on `dataDir` (SQLite, or
 * PROFILE_DATABASE_URL), demo seed, logs at warn, no rate limit; with `nodeArgs` (e.g. --cpu-prof). Also the demo test key.
 */
export async function startMeasuredMotu(dataDir: string, nodeArgs: string[] = [], log: (line: string) => void = () => {}): Promise<Started & { key: string }> {
  const motu = await startProcess(
    motuCommand(log).args,
    {
      MOTU_DATA_DIR: dataDir, DATABASE_URL: process.env.PROFILE_DATABASE_URL ?? '', PORT: '0', LOG_LEVEL: 'warn', NODE_ENV: '',
      MOTU_SEED_DEMO: 'true', MOTU_ADMIN_TOKEN: '', MOTU_RATE_LIMIT_MAX: '10000000', MOTU_TOKENS_PER_MINUTE: '10000000',
    },
    nodeArgs,
  );
  return { ...motu, key: /Demo test secret key:\s+(\S+)/.exec(motu.output)?.[1] ?? '' };
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.removeAllListeners('exit');
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

let sequence = 0;
function body(route: string): string {
  const n = `${process.pid}-${Date.now()}-${sequence++}`;
  if (route === '/api/v1/customers') return JSON.stringify({ externalId: `bench-${n}`, name: 'Bench customer' });
  return JSON.stringify({
    order: { reference: `bench-${n}`, amount: 2500, currency: 'XPF' },
    redirectUrl: 'https://shop.example.com/return',
    notificationUrl: 'https://shop.example.com/hooks/motu',
    storeId: 'web',
  });
}

async function post(url: string, route: string, key: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url + route, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body(route),
  });
  return { status: res.status, text: await res.text() };
}

/** A copy of the project's layout: package.json beside dist/, as `npm run build` leaves them (the CLI reads its version there). */
const COMPILED_ROOT = path.join(ROOT, 'node_modules', '.cache', 'motu-bench');
const COMPILED = path.join(COMPILED_ROOT, 'dist');

/**
 * The command line of `motu serve` for the benchmarks: the application compiled as `npm run build` does (into
 * node_modules/.cache/motu-bench/dist, leaving dist/ alone), so that memory and start-up are those of production,
 * not of tsx compiling on load. The browser bundles (the SDK, the back-office) are taken from dist/, which
 * `npm install` builds, and package.json is copied beside them, so the compiled copy finds what the installed one finds.
 * BENCH_SOURCE=1, or a build that fails, runs the sources through tsx instead.
 */
export function motuCommand(log: (line: string) => void = () => {}): { args: string[]; compiled: boolean } {
  // BENCH_MOTU_MAIN=<tree>/dist/start/main.js: that tree's `npm run build` instead (two builds side by side, one harness).
  if (process.env.BENCH_MOTU_MAIN) return { args: [path.resolve(process.env.BENCH_MOTU_MAIN), 'serve'], compiled: true };
  if (process.env.BENCH_SOURCE !== '1') {
    const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', COMPILED], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (tsc.status === 0) {
      copyFileSync(path.join(ROOT, 'package.json'), path.join(COMPILED_ROOT, 'package.json'));
      for (const bundle of ['sdk/motu.js', 'dashboard/app.js', 'dashboard/app.css']) {
        const built = path.join(ROOT, 'dist', bundle);
        if (!existsSync(built)) continue;
        mkdirSync(path.dirname(path.join(COMPILED, bundle)), { recursive: true });
        copyFileSync(built, path.join(COMPILED, bundle));
      }
      return { args: [path.join(COMPILED, 'start', 'main.js'), 'serve'], compiled: true };
    }
    log(`the build failed, running the sources through tsx:\n${(tsc.stdout + tsc.stderr).slice(0, 2000)}`);
  }
  return { args: ['src/start/main.ts', 'serve'], compiled: false };
}

/** Resident set size of a process in MiB, from /proc (Linux); undefined elsewhere. */
export function rssMiB(pid: number | undefined): number | undefined {
  try {
    const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return line ? Math.round(Number(line[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** Starts a server and times it up to its first 200 on /readyz (`readyPath`), then reads its idle RSS. */
async function startTimed(label: string, args: string[], env: Record<string, string | undefined>, readyPath?: string): Promise<Started & { start: StartFigures }> {
  const t0 = performance.now();
  const started = await startProcess(args, env);
  if (readyPath) {
    for (;;) {
      const res = await fetch(started.url + readyPath).catch(() => undefined);
      if (res?.status === 200) break;
      if (performance.now() - t0 > 60_000) throw new Error(`${label}: ${readyPath} not ready after 60 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const startupMs = Math.round(performance.now() - t0);
  await new Promise((r) => setTimeout(r, 500)); // idle: after start-up work settles
  return { ...started, start: { label, startupMs, rssIdleMiB: rssMiB(started.child.pid) } };
}

/** CPU seconds (user + system) the process has used so far, or undefined without /proc. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks (USER_HZ = 100)
  } catch {
    return undefined;
  }
}

/**
 * PostgreSQL's CPU spent for the bench database: the backends connected to it (pg_stat_activity), read from /proc
 * (the server runs on this machine). Backends that come and go between two readings are missed; Motu's pools keep
 * theirs open. WAL writer, checkpointer and the other shared processes are not counted.
 */
export async function pgBackends(url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    return rows.map((r) => r.pid);
  } finally {
    await client.end();
  }
}

export async function load(label: string, url: string, route: string, key: string, seconds: number, pid?: number, connections = 32): Promise<Figures> {
  const options = {
    url: url + route,
    connections,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: body(route) }) }],
  };
  await autocannon({ ...options, duration: Math.min(2, seconds) }); // warm-up, not counted
  const cpuBefore = cpuSeconds(pid);
  let rssLoadMiB = rssMiB(pid);
  const sampler = setInterval(() => {
    const rss = rssMiB(pid);
    if (rss !== undefined && (rssLoadMiB === undefined || rss > rssLoadMiB)) rssLoadMiB = rss;
  }, 100);
  let r: Awaited<ReturnType<typeof autocannon>>;
  const clientBefore = process.cpuUsage();
  try {
    r = await autocannon({ ...options, duration: seconds });
  } finally {
    clearInterval(sampler);
  }
  const client = process.cpuUsage(clientBefore);
  const cpuAfter = cpuSeconds(pid);
  return {
    connections,
    rssLoadMiB,
    cpuMicrosPerRequest:
      cpuBefore === undefined || cpuAfter === undefined || !r.requests.total ? undefined : Math.round(((cpuAfter - cpuBefore) * 1e6) / r.requests.total),
    clientCpuMicrosPerRequest: r.requests.total ? Math.round((client.user + client.system) / r.requests.total) : undefined,
    label,
    requestsPerSecond: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    total: r.requests.total,
  };
}

/** A new, empty PostgreSQL database next to `base`'s, and how to drop it. */
export async function freshPostgres(base: string, prefix = 'motu_bench'): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** One motu configuration to measure against the same bare ceiling. */
export interface Variant {
  label: string;
  env: Record<string, string>;
  /** Connection counts to measure it at (default all of CONNECTIONS). */
  connections?: number[];
  /** Measured in the first round only (a reference point, not part of the target). */
  firstRoundOnly?: boolean;
}

export async function runSessionsBench(options: {
  dialect: 'sqlite' | 'postgres';
  seconds: number;
  variants: Variant[];
  log?: (line: string) => void;
  /** `motu serve`'s command line (motuCommand). */
  command?: string[];
  /**
   * Rounds (default 1): each measures every variant, then the bare route, so that a ratio compares runs minutes apart
   * at most; on a shared machine the rounds show how much the figures move.
   */
  rounds?: number;
}): Promise<SessionsResult> {
  const log = options.log ?? (() => {});
  const dataDir = mkdtempSync(path.join(tmpdir(), 'motu-bench-'));
  const database = options.dialect === 'postgres' ? await freshPostgres(process.env.DATABASE_URL!) : undefined;
  const baseEnv = {
    MOTU_DATA_DIR: dataDir,
    DATABASE_URL: database?.url ?? '',
    PORT: '0',
    LOG_LEVEL: 'warn',
    NODE_ENV: '',
    MOTU_SEED_DEMO: 'true',
    MOTU_ADMIN_TOKEN: '',
    MOTU_RATE_LIMIT_MAX: '10000000', MOTU_TOKENS_PER_MINUTE: '10000000',
  };
  try {
    let route = '/api/v1/payments/sessions';
    let key = '';
    let sample = '';
    const runs: Figures[] = [];
    const starts: StartFigures[] = [];
    let fresh = true;
    const bares: Figures[] = [];
    for (let round = 1; round <= (options.rounds ?? 1); round++) {
      const tag = options.rounds && options.rounds > 1 ? ` (round ${round})` : '';
      for (const variant of options.variants) {
        if (variant.firstRoundOnly && round > 1) continue;
        const startLabel = `motu, ${variant.label}${fresh ? ' (fresh database: migrations and seed)' : ' (existing database)'}`;
        fresh = false;
        const motu = await startTimed(startLabel, options.command ?? ['src/start/main.ts', 'serve'], { ...baseEnv, ...variant.env }, '/readyz');
        if (round === 1) starts.push(motu.start);
        try {
          key ||= /Demo test secret key:\s+(\S+)/.exec(motu.output)?.[1] ?? '';
          if (!key) throw new Error(`no demo key printed:\n${motu.output}`);
          if (!sample) {
            const probe = await post(motu.url, route, key);
            if (probe.status === 404 && probe.text.includes('ROUTE_NOT_FOUND')) {
              route = '/api/v1/customers';
              log('POST /api/v1/payments/sessions does not exist yet: measuring POST /api/v1/customers instead');
            }
            const first = await post(motu.url, route, key);
            if (first.status !== 201) throw new Error(`POST ${route} answered ${first.status}: ${first.text}`);
            sample = first.text;
          }
          for (const connections of variant.connections ?? CONNECTIONS) {
            log(`${options.dialect}: motu (${variant.label}) on ${route}, ${connections} connections, ${options.seconds} s${tag}…`);
            runs.push({ ...(await load(`motu, ${variant.label}`, motu.url, route, key, options.seconds, motu.child.pid, connections)), round });
          }
        } finally {
          await stop(motu.child);
        }
      }
      const bareProcess = await startTimed('bare Fastify route', ['bench/bare.ts'], { ...baseEnv, BARE_ROUTE: route, BARE_RESPONSE: sample });
      if (round === 1) starts.push(bareProcess.start);
      try {
        for (const connections of CONNECTIONS) {
          log(`${options.dialect}: bare Fastify route, ${connections} connections, ${options.seconds} s${tag}…`);
          bares.push({ ...(await load('bare Fastify route', bareProcess.url, route, key, options.seconds, bareProcess.child.pid, connections)), round });
        }
      } finally {
        await stop(bareProcess.child);
      }
    }
    return { dialect: options.dialect, route, durationSeconds: options.seconds, bares, runs, starts };
  } finally {
    await database?.drop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}
