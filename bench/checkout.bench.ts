// bench/checkout: the full server side of a card payment through HTTP, without a browser, as the hosted page and
// the merchant's server would drive it: session created (merchant API), card tokenized (acquirer's token endpoint),
// authorized (the checkout page's pay call, MANUAL capture), captured (merchant API), and both events
// (payment.authorized, payment.captured) delivered by the real worker to a loopback receiver (the notificationUrl).
// Reports payments/s, each step's p50 and p99, the server's CPU per payment (and PostgreSQL's), and the four requests of
// a payment against a bare Fastify route measured in the same run (bench/bare.ts, the sessions benchmark's ceiling).
// Motu runs as in production: `motu serve` compiled, in a process of its own with its delivery worker (bench/sessions.ts's
// motuCommand); the customers and the webhook receiver run in this process, so that they do not take the server's CPU
// inside its own event loop.
// Run alone: `node --import tsx bench/checkout.bench.ts` (SQLite; also PostgreSQL when DATABASE_URL is set),
// or through `npm run bench`, which writes the "Checkout" section of docs/performance.md.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { openDatabase, type Database, type Dialect } from '../src/db/database.js';
import { linkSeller } from '../src/modules/platforms/platform-links.js';
import { cpuSeconds, freshPostgres, load, motuCommand, pgBackends, startProcess, stop } from './sessions.js';

const SECONDS = Number(process.env.BENCH_CHECKOUT_SECONDS ?? process.env.BENCH_SECONDS ?? '10');
const CONCURRENCY = Number(process.env.BENCH_CHECKOUT_CONCURRENCY ?? '16');
const STAGES = ['session', 'tokenize', 'authorize', 'capture'] as const;
type Stage = (typeof STAGES)[number];

interface Run {
  dialect: Dialect;
  payments: number;
  paymentsPerSecond: number;
  stageMs: Record<Stage, number>;
  stageP50: Record<Stage, number>;
  stageP99: Record<Stage, number>;
  /** The server process's CPU (user + system, all threads) per payment, µs. */
  cpuPerPayment?: number;
  /** PostgreSQL's backends of the bench database, CPU per payment, µs (PostgreSQL only). */
  pgCpuPerPayment?: number;
  /** This process's CPU per payment: the 16 customers' client and the webhook receiver, µs. */
  clientCpuPerPayment: number;
  /** The bare route in the same run: requests/s, its server's CPU per request and its client's (autocannon). */
  bare: { requestsPerSecond: number; cpuMicrosPerRequest?: number; clientCpuMicrosPerRequest?: number; p99: number };
  load: number;
  /** From the capture's 200 to the receiver reading payment.captured. */
  deliveryP50: number;
  deliveryP99: number;
  delivered: number;
  failures: number;
  /** The same path for a split payment between 10 sellers, right after on the same server (BENCH_CHECKOUT_SPLIT=0 skips it). */
  split?: SplitRun;
}

interface SplitRun {
  payments: number;
  paymentsPerSecond: number;
  failures: number;
  /** Split payments/s ÷ single-merchant payments/s. */
  ratio: number;
  /** The server's CPU per split payment, µs, and PostgreSQL's backends' (PostgreSQL only), as for the single run. */
  cpuPerPayment?: number;
  pgCpuPerPayment?: number;
}

const SPLIT_SELLERS = 10;
const ADMIN_TOKEN = 'bench-admin-token-0123456789';

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const round = (n: number) => Math.round(n * 10) / 10;

export type Post = (url: string, body: unknown, auth?: string) => Promise<any>;

/**
 * A JSON POST to the app at `address`, as the page or the merchant's server sends it; a non-2xx answer throws.
 * Through undici's Pool (kept-alive connections, as many as `connections`), not `fetch`: fetch is built on the same
 * client but adds the WHATWG Request, Headers and streams to every call, which cost this process about as much CPU
 * per payment as the server itself (docs/performance.md, "The bench's client"); the bare route it is compared with is
 * driven by autocannon, which writes raw requests. A lean client keeps the comparison one of servers.
 */
export function poster(address: string, connections = 16): Post & { close: () => Promise<void> } {
  const pool = new Pool(address, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const post = async (url: string, body: unknown, auth?: string) => {
    const res = await pool.request({
      path: url,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
      body: JSON.stringify(body),
    });
    const json = (await res.body.json()) as any;
    if (res.statusCode >= 300) throw new Error(`${url}: ${res.statusCode} ${JSON.stringify(json)}`);
    return json;
  };
  return Object.assign(post, { close: () => pool.close() });
}

/**
 * The `i`-th payment, whole, through HTTP (bench/growth too): session (MANUAL) → card token → pay → capture, each
 * stage run through `timed`.
 */
export async function payThrough(
  post: Post, key: string, hook: string, i: number,
  timed: <T>(stage: Stage, fn: () => Promise<T>) => Promise<T> = (_stage, fn) => fn(),
): Promise<{ sessionId: string; paymentId: string }> {
  const session = await timed('session', () => post('/api/v1/payments/sessions', {
    order: { reference: `B-${i}`, amount: 1000 + (i % 5000), currency: i % 2 ? 'XPF' : 'EUR' },
    captureMode: 'MANUAL', email: 'buyer@example.com', redirectUrl: 'https://shop.example/return', notificationUrl: hook,
  }, key));
  return payAndCapture(post, key, session, timed);
}

/** A session's card token → pay → capture, each stage run through `timed`. */
async function payAndCapture(
  post: Post, key: string, session: { sessionId: string; paymentId: string },
  timed: <T>(stage: Stage, fn: () => Promise<T>) => Promise<T>,
): Promise<{ sessionId: string; paymentId: string }> {
  const token = await timed('tokenize', () => post('/acquirer/v1/tokens', { mode: 'test', number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123', session: session.sessionId }));
  await timed('authorize', () => post(`/checkout/${session.sessionId}/pay`, { token: token.token }));
  await timed('capture', () => post(`/api/v1/payments/${session.paymentId}/capture`, {}, key));
  return session;
}

/**
 * The `i`-th split payment between `sellers` (linked to the platform whose key is `key`), whole, through HTTP: a
 * commission on each share and a discount on the first; session (MANUAL) → card token → pay → capture, each stage run
 * through `timed` (bench/checkout-statements.ts counts them).
 */
export async function paySplitThrough(
  post: Post, key: string, hook: string, sellers: string[], i: number,
  timed: <T>(stage: Stage, fn: () => Promise<T>) => Promise<T> = (_stage, fn) => fn(),
): Promise<{ sessionId: string; paymentId: string }> {
  const each = 100 + (i % 500);
  const session = await timed('session', () => post('/api/v1/payments/sessions', {
    order: {
      reference: `S-${i}`, amount: each * sellers.length - 50, currency: i % 2 ? 'XPF' : 'EUR',
      platformConfig: { distribution: sellers.map((merchantId, k) => ({ merchantId, amount: each, commission: { rate: 1000, fixed: 5 }, ...(k === 0 ? { discount: 50 } : {}) })) },
    },
    captureMode: 'MANUAL', email: 'buyer@example.com', redirectUrl: 'https://shop.example/return', notificationUrl: hook,
  }, key));
  return payAndCapture(post, key, session, timed);
}

function sumCpu(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    const s = cpuSeconds(pid);
    if (s !== undefined) out.set(pid, s);
  }
  return out;
}

async function runOn(dialect: Dialect, command: string[]): Promise<Run> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'motu-bench-checkout-'));
  const database = dialect === 'postgres' ? await freshPostgres(process.env.DATABASE_URL!) : undefined;
  const receivedAt = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString()) as { type: string; data: { paymentId: string } };
      if (event.type === 'payment.captured' && req.url === '/hook') receivedAt.set(event.data.paymentId, performance.now());
      res.writeHead(204).end();
    });
  });
  receiver.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const env = {
    MOTU_DATA_DIR: dataDir, DATABASE_URL: database?.url ?? '', PORT: '0', LOG_LEVEL: 'warn', NODE_ENV: '',
    MOTU_SEED_DEMO: 'true', MOTU_ADMIN_TOKEN: ADMIN_TOKEN, MOTU_RATE_LIMIT_MAX: '10000000', MOTU_TOKENS_PER_MINUTE: '10000000',
  };
  const load1 = loadavg()[0]!;
  try {
    // BENCH_CHECKOUT_PROFILE=<dir>: the server runs with --cpu-prof into <dir> (`node --import tsx bench/cpuprofile.ts <file>`).
    const profile = process.env.BENCH_CHECKOUT_PROFILE;
    const motu = await startProcess(command, env, profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []);
    let run: Omit<Run, 'bare'>;
    let sample = '';
    const key = /Demo test secret key:\s+(\S+)/.exec(motu.output)?.[1] ?? '';
    const post = poster(motu.url, CONCURRENCY);
    try {
      if (!key) throw new Error(`no demo key printed:\n${motu.output}`);
      sample = JSON.stringify(await post('/api/v1/payments/sessions', {
        order: { reference: 'sample', amount: 1000, currency: 'EUR' }, redirectUrl: 'https://shop.example/return', notificationUrl: hook,
      }, key));
      // Warm-up (not counted): a second of payments.
      const warmStop = performance.now() + 1000;
      let w = 0;
      await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < warmStop) await payThrough(post, key, hook, 1_000_000 + w++);
      }));
      const durations: Record<Stage, number[]> = { session: [], tokenize: [], authorize: [], capture: [] };
      const capturedAt = new Map<string, number>();
      let failures = 0;
      let n = 0;
      const timed = async <T>(stage: Stage, fn: () => Promise<T>): Promise<T> => {
        const t0 = performance.now();
        const out = await fn();
        durations[stage].push(performance.now() - t0);
        return out;
      };
      const pids = database ? await pgBackends(database.url) : [];
      const pgBefore = sumCpu(pids);
      const cpuBefore = cpuSeconds(motu.child.pid);
      const clientBefore = process.cpuUsage();
      const start = performance.now();
      const stopAt = start + SECONDS * 1000;
      const customer = async () => {
        while (performance.now() < stopAt) {
          const i = n++;
          try {
            const session = await payThrough(post, key, hook, i, timed);
            capturedAt.set(session.paymentId, performance.now());
          } catch (err) {
            failures += 1;
            if (failures < 5) console.error(String(err));
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, customer));
      const elapsed = (performance.now() - start) / 1000;
      const cpuAfter = cpuSeconds(motu.child.pid);
      const client = process.cpuUsage(clientBefore);
      const pgAfter = sumCpu(pids);
      // Wait (up to 30 s) for the captured events to arrive.
      const deadline = performance.now() + 30_000;
      while ([...capturedAt.keys()].some((id) => !receivedAt.has(id)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const latencies = [...capturedAt].filter(([id]) => receivedAt.has(id)).map(([id, at]) => Math.max(0, receivedAt.get(id)! - at));
      const payments = capturedAt.size;
      let pgCpu = 0;
      for (const [pid, after] of pgAfter) pgCpu += after - (pgBefore.get(pid) ?? after);
      const split = process.env.BENCH_CHECKOUT_SPLIT === '0' ? undefined
        : await splitRun(motu.url, { dataDir, databaseUrl: database?.url, pid: motu.child.pid }, `${hook}-split`, payments / elapsed);
      run = {
        ...(split ? { split } : {}),
        dialect, payments, paymentsPerSecond: Math.round(payments / elapsed),
        stageMs: Object.fromEntries(STAGES.map((s) => [s, durations[s].reduce((a, b) => a + b, 0)])) as Record<Stage, number>,
        stageP50: Object.fromEntries(STAGES.map((s) => [s, round(percentile(durations[s], 50))])) as Record<Stage, number>,
        stageP99: Object.fromEntries(STAGES.map((s) => [s, round(percentile(durations[s], 99))])) as Record<Stage, number>,
        cpuPerPayment: cpuBefore === undefined || cpuAfter === undefined || !payments ? undefined : Math.round(((cpuAfter - cpuBefore) * 1e6) / payments),
        pgCpuPerPayment: database && payments ? Math.round((pgCpu * 1e6) / payments) : undefined,
        clientCpuPerPayment: payments ? Math.round((client.user + client.system) / payments) : NaN,
        deliveryP50: round(percentile(latencies, 50)), deliveryP99: round(percentile(latencies, 99)),
        delivered: [...capturedAt.keys()].filter((id) => receivedAt.has(id)).length, failures, load: load1,
      };
    } finally {
      await stop(motu.child);
      await post.close();
    }
    // The ceiling, in the same run and on the same database: the bare route (key lookup, the same JSON), 32 connections.
    const bareProcess = await startProcess(['bench/bare.ts'], { ...env, BARE_ROUTE: '/api/v1/payments/sessions', BARE_RESPONSE: sample });
    try {
      const f = await load('bare Fastify route', bareProcess.url, '/api/v1/payments/sessions', key, SECONDS, bareProcess.child.pid, 32);
      return { ...run, bare: { requestsPerSecond: f.requestsPerSecond, cpuMicrosPerRequest: f.cpuMicrosPerRequest, clientCpuMicrosPerRequest: f.clientCpuMicrosPerRequest, p99: f.p99 } };
    } finally {
      await stop(bareProcess.child);
    }
  } finally {
    receiver.close();
    await database?.drop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * A platform and SPLIT_SELLERS sellers, made through the server's admin API at `url` as the operator makes them, and
 * linked to it on `db`, the server's database (onboarding ten sellers through the hosted page is not what is
 * measured): the platform's test key and the sellers' ids (bench/checkout-statements.ts too).
 */
export async function splitPlatform(db: Database, url: string): Promise<{ key: string; sellers: string[] }> {
  const admin = async (method: string, route: string, body: unknown) => {
    const res = await fetch(`${url}/admin/v1${route}`, {
      method, headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` }, body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${route}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string; testSecretKey: string };
  };
  const platform = await admin('POST', '/merchants', { name: 'Bench Market' });
  await admin('PATCH', `/merchants/${platform.id}`, { platform: true });
  const sellers: string[] = [];
  for (let i = 0; i < SPLIT_SELLERS; i++) sellers.push((await admin('POST', '/merchants', { name: `Bench Seller ${i}` })).id);
  await db.transaction(async (trx) => {
    for (const sellerId of sellers) await linkSeller(trx, { platformId: platform.id, sellerId, mode: 'test', at: new Date() });
  });
  return { key: platform.testSecretKey, sellers };
}

/**
 * Split payments (docs/platforms.md) through the same path, on the same server right after the single-merchant run: a
 * platform and 10 sellers linked to it, each payment split between all 10 with commissions and a discount, session →
 * token → pay → capture (both events carry platformDistribution; each seller gets its postings), for the same duration
 * and concurrency. The platform and its sellers are made through the admin API; the links are written through the
 * platforms module on the server's database (onboarding ten sellers through the hosted page is not what is measured).
 */
async function splitRun(url: string, where: { dataDir: string; databaseUrl?: string; pid?: number }, hook: string, singlePerSecond: number): Promise<SplitRun> {
  const db = openDatabase({ dataDir: where.dataDir, databaseUrl: where.databaseUrl, poolSize: 2 });
  let platform: { key: string; sellers: string[] };
  try {
    platform = await splitPlatform(db, url);
  } finally {
    await db.close();
  }
  const { key, sellers } = platform;
  const post = poster(url, CONCURRENCY);
  let payments = 0;
  let failures = 0;
  let n = 0;
  const stopAt = performance.now() + SECONDS * 1000;
  const customer = async () => {
    while (performance.now() < stopAt) {
      const i = n++;
      try {
        await paySplitThrough(post, key, hook, sellers, i);
        payments += 1;
      } catch (err) {
        failures += 1;
        if (failures < 5) console.error(String(err));
      }
    }
  };
  const pids = where.databaseUrl ? await pgBackends(where.databaseUrl) : [];
  const pgBefore = sumCpu(pids);
  const cpuBefore = cpuSeconds(where.pid);
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, customer));
  const perSecond = payments / ((performance.now() - start) / 1000);
  await post.close();
  const cpuAfter = cpuSeconds(where.pid);
  let pgCpu = 0;
  for (const [pid, after] of sumCpu(pids)) pgCpu += after - (pgBefore.get(pid) ?? after);
  return {
    payments, paymentsPerSecond: Math.round(perSecond), failures, ratio: Math.round((100 * perSecond) / singlePerSecond) / 100,
    cpuPerPayment: cpuBefore === undefined || cpuAfter === undefined || !payments ? undefined : Math.round(((cpuAfter - cpuBefore) * 1e6) / payments),
    pgCpuPerPayment: where.databaseUrl && payments ? Math.round((pgCpu * 1e6) / payments) : undefined,
  };
}

/** The four requests of a payment per second, against the bare route's requests per second. */
export function ofBare(r: Pick<Run, 'paymentsPerSecond' | 'bare'>): number {
  return r.bare.requestsPerSecond ? (400 * r.paymentsPerSecond) / r.bare.requestsPerSecond : NaN;
}

/**
 * The same comparison by CPU, which depends far less on what else the machine runs: four bare requests' CPU against
 * a payment's CPU in Motu's process (and PostgreSQL's backends: the bare route's key lookup has its own there too,
 * but is not measured, so the PostgreSQL figure leaves both databases' CPU out).
 */
export function ofBareByCpu(r: Pick<Run, 'cpuPerPayment' | 'bare'>): number {
  return r.cpuPerPayment && r.bare.cpuMicrosPerRequest ? (400 * r.bare.cpuMicrosPerRequest) / r.cpuPerPayment : NaN;
}

export default async function bench(): Promise<{ section: string; markdown: string }> {
  const dialects: Dialect[] = process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  if (process.env.BENCH_CHECKOUT_DIALECTS) dialects.splice(0, dialects.length, ...(process.env.BENCH_CHECKOUT_DIALECTS.split(',') as Dialect[]));
  const command = motuCommand().args;
  const runs: Run[] = [];
  for (const dialect of dialects) {
    const r = await runOn(dialect, command);
    runs.push(r);
    console.error(
      `checkout ${dialect}: ${r.paymentsPerSecond} payments/s (${ofBare(r).toFixed(1)} % of bare ${r.bare.requestsPerSecond}/s), ` +
      `p50/p99 ${STAGES.map((s) => `${s} ${r.stageP50[s]}/${r.stageP99[s]}`).join(', ')} ms, CPU ${r.cpuPerPayment} µs/payment` +
      `${r.pgCpuPerPayment !== undefined ? ` + PostgreSQL ${r.pgCpuPerPayment}` : ''}, bare ${r.bare.cpuMicrosPerRequest} µs/request, ` +
      `by CPU ${ofBareByCpu(r).toFixed(1)} % of bare, client ${r.clientCpuPerPayment} µs/payment (autocannon ${r.bare.clientCpuMicrosPerRequest} µs/request), ` +
      `delivery ${r.deliveryP50}/${r.deliveryP99} ms, ${r.delivered}/${r.payments} delivered, ${r.failures} failures, load ${r.load.toFixed(1)}`,
    );
    if (r.split) {
      console.error(`checkout ${dialect}, split between ${SPLIT_SELLERS} sellers: ${r.split.paymentsPerSecond} payments/s, ${r.split.payments} payments, ` +
        `${r.split.failures} failures, ${r.split.ratio}× the single-merchant rate, CPU ${r.split.cpuPerPayment} µs/payment` +
        `${r.split.pgCpuPerPayment !== undefined ? ` + PostgreSQL ${r.split.pgCpuPerPayment}` : ''}`);
    }
  }
  const share = (r: Run, s: Stage) => {
    const total = STAGES.reduce((a, k) => a + r.stageMs[k], 0);
    return `${Math.round((100 * r.stageMs[s]) / total)} % (${r.stageP50[s]} / ${r.stageP99[s]})`;
  };
  const lines = [
    '`node --import tsx bench/checkout.bench.ts` or `BENCH_ONLY=checkout npm run bench`. Method: `motu serve`, compiled as in',
    'production, runs in a process of its own on a fresh database (demo seed) with its delivery worker; in the bench\'s',
    `process ${CONCURRENCY} customers loop for ${SECONDS} s (after 1 s of warm-up), each payment through HTTP as the page and the merchant would:`,
    '`POST /api/v1/payments/sessions` (MANUAL, EUR and XPF alternately) → `POST /acquirer/v1/tokens` (test card 4242…) →',
    '`POST /checkout/{sessionId}/pay` (authorization, `payment.authorized`) → `POST /api/v1/payments/{id}/capture`',
    '(`payment.captured`). Both events go to the session\'s notificationUrl, a loopback receiver in the bench\'s process;',
    'delivery latency is from the capture\'s 200 to the receiver reading `payment.captured`. A payment counts once captured.',
    'Then, in the same run and on the same database, the bare Fastify route of the sessions benchmark (bench/bare.ts: the',
    `key lookup and the same JSON) under autocannon, 32 connections, ${SECONDS} s. "of bare" is the payment's four requests per`,
    'second against the bare route\'s requests per second. CPU is from /proc: the server process (all threads) per payment,',
    'and on PostgreSQL its backends connected to the bench database; "of bare by CPU" is four bare requests\' server CPU',
    'against a payment\'s in Motu\'s process. The customers post through undici\'s Pool; "client" is this process\'s CPU',
    'per payment (the customers and the receiver), beside autocannon\'s per bare request. Steps: share of the customers\'',
    'waiting time (p50 / p99 ms).',
    '',
    '| Database | Payments/s | of bare (bare req/s) | of bare by CPU | Session | Tokenize | Authorize | Capture | Motu CPU µs/payment | PostgreSQL CPU µs/payment | bare CPU µs/request | Client CPU µs/payment (autocannon µs/request) | Delivery p50 / p99 (ms) | Delivered | Failures | Load |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...runs.map((r) => `| ${r.dialect} | ${r.paymentsPerSecond} | ${ofBare(r).toFixed(1)} % (${r.bare.requestsPerSecond}) | ${ofBareByCpu(r).toFixed(1)} % | ${STAGES.map((s) => share(r, s)).join(' | ')} | ${r.cpuPerPayment ?? 'n/a'} | ${r.pgCpuPerPayment ?? '—'} | ${r.bare.cpuMicrosPerRequest ?? 'n/a'} | ${r.clientCpuPerPayment} (${r.bare.clientCpuMicrosPerRequest ?? 'n/a'}) | ${r.deliveryP50} / ${r.deliveryP99} | ${r.delivered}/${r.payments} | ${r.failures} | ${r.load.toFixed(1)} |`),
    ...runs.filter((r) => r.split).map((r) => `\nSplit between ${SPLIT_SELLERS} sellers, the same path right after on the same server (${r.dialect}): ${r.split!.paymentsPerSecond} payments/s, ${r.split!.payments} payments, ${r.split!.failures} failures: ${r.split!.ratio}× the single-merchant rate (target ≥ 0.7×); Motu CPU ${r.split!.cpuPerPayment ?? 'n/a'} µs/payment${r.split!.pgCpuPerPayment !== undefined ? `, PostgreSQL ${r.split!.pgCpuPerPayment}` : ''}.`),
  ];
  return { section: 'Checkout', markdown: lines.join('\n') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await bench();
  console.log(markdown);
}
