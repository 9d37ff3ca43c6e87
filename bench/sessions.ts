// bench/sessions: throughput and latency of session creation through the real `motu serve`, against a bare
// Fastify route with the same key lookup answering the same JSON (bench/bare.ts), in one run, 32 connections.
// Until POST /api/v1/payments/sessions exists, POST /api/v1/customers (one unique customer per request) stands in.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
}

export interface SessionsResult {
  dialect: 'sqlite' | 'postgres';
  route: string;
  connections: number;
  durationSeconds: number;
  bare: Figures;
  runs: Figures[];
}

const ROOT = path.resolve(import.meta.dirname, '..');
const CONNECTIONS = 32;

interface Started {
  child: ChildProcess;
  url: string;
  output: string;
}

export function startProcess(args: string[], env: Record<string, string | undefined>, nodeArgs: string[] = []): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', ...args], {
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

/** CPU seconds (user + system) the process has used so far, or undefined without /proc. */
function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks (USER_HZ = 100)
  } catch {
    return undefined;
  }
}

export async function load(label: string, url: string, route: string, key: string, seconds: number, pid?: number): Promise<Figures> {
  const options = {
    url: url + route,
    connections: CONNECTIONS,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: body(route) }) }],
  };
  await autocannon({ ...options, duration: Math.min(2, seconds) }); // warm-up, not counted
  const cpuBefore = cpuSeconds(pid);
  const r = await autocannon({ ...options, duration: seconds });
  const cpuAfter = cpuSeconds(pid);
  return {
    cpuMicrosPerRequest:
      cpuBefore === undefined || cpuAfter === undefined || !r.requests.total ? undefined : Math.round(((cpuAfter - cpuBefore) * 1e6) / r.requests.total),
    label,
    requestsPerSecond: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    total: r.requests.total,
  };
}

async function freshPostgres(base: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `motu_bench_${randomBytes(5).toString('hex')}`;
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
}

export async function runSessionsBench(options: {
  dialect: 'sqlite' | 'postgres';
  seconds: number;
  variants: Variant[];
  log?: (line: string) => void;
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
    MOTU_RATE_LIMIT_MAX: '10000000',
  };
  try {
    let route = '/api/v1/payments/sessions';
    let key = '';
    let sample = '';
    const runs: Figures[] = [];
    for (const variant of options.variants) {
      const motu = await startProcess(['src/start/main.ts', 'serve'], { ...baseEnv, ...variant.env });
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
        log(`${options.dialect}: motu (${variant.label}) on ${route} for ${options.seconds} s…`);
        runs.push(await load(`motu, ${variant.label}`, motu.url, route, key, options.seconds, motu.child.pid));
      } finally {
        await stop(motu.child);
      }
    }
    const bareProcess = await startProcess(['bench/bare.ts'], { ...baseEnv, BARE_ROUTE: route, BARE_RESPONSE: sample });
    let bare: Figures;
    try {
      log(`${options.dialect}: bare Fastify route for ${options.seconds} s…`);
      bare = await load('bare Fastify route', bareProcess.url, route, key, options.seconds, bareProcess.child.pid);
    } finally {
      await stop(bareProcess.child);
    }
    return { dialect: options.dialect, route, connections: CONNECTIONS, durationSeconds: options.seconds, bare, runs };
  } finally {
    await database?.drop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}
