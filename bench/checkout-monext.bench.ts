// bench/checkout-monext: the server side of a card payment, simulator against the Monext connector, in the same run
// and on the same database: session created (merchant API), card entered (simulator: the token endpoint; Monext: a
// widget session asked of Motu, the card "typed" in the fake Monext's widget), authorized (the page's pay call,
// MANUAL), captured (merchant API). Three processes, as in production three machines' worth of roles would be:
// - Motu (`--motu`): the app as `motu serve` builds it, on a fresh database, without its worker (a live
//   notificationUrl must be a public https address: nothing is delivered here, in either path);
// - the fake Monext (`--fake-monext`, test/support/fake-monext.ts), at the default CPU priority, holding each answer
//   BENCH_MONEXT_LATENCY_MS (default 1 ms: a Monext close by; its network and its own work cost Motu no CPU). The
//   cardholder's typing in the widget happens at Monext too: the fake authorizes each widget session with a test card
//   as soon as it is made (FakeMonext.autoPay);
// - this process: the 16 customers (the page and the merchant's server), so that their HTTP clients take no CPU in
//   Motu's process.
// Per pass: payments/s, and the CPU per payment (user + system, from /proc) of Motu's process, of PostgreSQL's
// backends for the bench database, and of the fake Monext. Motu's CPU per payment is what the connector costs Motu
// itself, and depends on the machine's load much less than payments/s does (docs/performance.md, "The Monext path").
// Goal (docs/live.md): Monext ≥ 0.9 × the simulator's payments per second.
// Run: `node --import tsx bench/checkout-monext.bench.ts` (SQLite; also PostgreSQL when DATABASE_URL is set;
// BENCH_DIALECTS=postgres for one). Settings: BENCH_ROUNDS, BENCH_CHECKOUT_SECONDS (a pass), BENCH_CHECKOUT_CONCURRENCY,
// BENCH_MONEXT_LATENCY_MS, BENCH_MONEXT_NOTIFY (below), BENCH_FAKE_NICE (the fake's priority), BENCH_ONLY,
// BENCH_PROFILE (below), BENCH_VERBOSE=1 (each pass: CPU per payment, Motu's event loop, each step's median),
// BENCH_MOTU_MAIN=<tree>/dist/start/main.js (Motu as that tree's `npm run build` left it, as in bench/sessions.ts: two
// builds compared with one harness, one run each).
import { spawn, type ChildProcess } from 'node:child_process';
import fs, { mkdtempSync, rmSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { loadavg, setPriority, tmpdir } from 'node:os';
import path from 'node:path';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Dialect } from '../src/db/database.js';
import { FAKE_MONEXT_CREDENTIALS, FakeMonext, MONEXT_CARDS } from '../test/support/fake-monext.js';
import { cpuSeconds, freshPostgres, pgBackends } from './sessions.js';

// Short passes, many rounds (below): the host's drift is followed more closely than with a few long passes.
const SECONDS = Number(process.env.BENCH_CHECKOUT_SECONDS ?? process.env.BENCH_SECONDS ?? '2');
const CONCURRENCY = Number(process.env.BENCH_CHECKOUT_CONCURRENCY ?? '16');
const LATENCY_MS = Number(process.env.BENCH_MONEXT_LATENCY_MS ?? '1');
const NOTIFY = process.env.BENCH_MONEXT_NOTIFY === '1';
const ADMIN = 'bench-admin-token-0123456789';
const SELF = fileURLToPath(import.meta.url);

function cpuOf(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);
}

/** A child process of this file (`--motu`, `--fake-monext`) with an IPC channel: its first message, and ask/stop. */
async function child(role: string, env: Record<string, string>): Promise<{ process: ChildProcess; hello: any; ask(message: object): Promise<any>; stop(): Promise<void> }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', SELF, role], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const hello = await new Promise<any>((resolve, reject) => {
    proc.once('message', resolve);
    proc.once('exit', (code) => reject(new Error(`${role} exited (${code})`)));
  });
  let asked = 0;
  const ask = (message: object) => new Promise<any>((resolve) => {
    const id = ++asked;
    const on = (reply: any) => {
      if (reply?.id !== id) return;
      proc.off('message', on);
      resolve(reply);
    };
    proc.on('message', on);
    proc.send({ ...message, id });
  });
  const stop = async () => {
    if (proc.exitCode !== null) return;
    proc.removeAllListeners('exit');
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  };
  return { process: proc, hello, ask, stop };
}

interface Pass {
  perSecond: number;
  payments: number;
  /** CPU per payment, ms: Motu's process, PostgreSQL's backends (0 on SQLite), the fake Monext's process. */
  motuMs: number;
  pgMs: number;
  fakeMs: number;
  /** Per payment: statements sent to the database, COMMITs among them, fsyncs of SQLite's WAL (countStatements). */
  statements: number;
  commits: number;
  fsyncs: number;
}

interface Result {
  simulator: Pass[];
  monext: Pass[];
  ratios: number[];
  cpuRatios: number[];
  load: number;
  failures: { simulator: number; monext: number };
}

async function runOn(dialect: Dialect): Promise<Result> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'motu-bench-monext-'));
  const database = dialect === 'postgres' ? await freshPostgres(process.env.DATABASE_URL!) : undefined;
  const load = loadavg()[0]!;
  // The fake's priority: BENCH_FAKE_NICE (default 0, the same as Motu's and the database's).
  const fake = await child('--fake-monext', { BENCH_MONEXT_LATENCY_MS: String(LATENCY_MS) });
  setPriority(fake.process.pid!, Number(process.env.BENCH_FAKE_NICE ?? '0'));
  const motu = await child('--motu', {
    MOTU_DATA_DIR: dataDir, DATABASE_URL: database?.url ?? '', LOG_LEVEL: 'silent', MOTU_ADMIN_TOKEN: ADMIN, NODE_ENV: '',
    MOTU_RATE_LIMIT_MAX: '10000000', MOTU_TOKENS_PER_MINUTE: '10000000', PORT: '0', MOTU_MONEXT_API_URL: fake.hello.url,
    MOTU_SEED_DEMO: 'false',
  });
  try {
    const { address, merchant } = motu.hello as { address: string; merchant: { testSecretKey: string; liveSecretKey: string; defaultContractId: string } };
    const call = async (method: string, url: string, body: unknown, auth?: string) => {
      const res = await fetch(`${address}${url}`, {
        method, headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) }, body: JSON.stringify(body),
      });
      const json = (await res.json()) as any;
      if (res.status >= 300) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    await call('PATCH', `/admin/v1/contracts/${merchant.defaultContractId}`, {
      acquirer: 'monext', monext: { ...FAKE_MONEXT_CREDENTIALS, environment: 'homologation' },
    }, ADMIN);

    // BENCH_MONEXT_NOTIFY=1: after each Monext payment's pay call, what Monext sends Motu next in production: the
    // browser back to the return URL (a redirect) and its notification, each with the widget session's token (docs/live.md,
    // "Monext"), both answered from what the pay call recorded. Timed with the pay step.
    const afterWidget = async (sessionId: string, token: string) => {
      const q = `session=${encodeURIComponent(sessionId)}`;
      const back = await fetch(`${address}/acquirer/v1/monext/return?${q}&paylinetoken=${encodeURIComponent(token)}`, { redirect: 'manual' });
      await back.text();
      if (back.status !== 302 || !back.headers.get('location')?.startsWith('/checkout/success')) throw new Error(`return: ${back.status} ${back.headers.get('location')}`);
      const notified = await fetch(`${address}/acquirer/v1/monext/notify?${q}&token=${encodeURIComponent(token)}&notificationType=WEBTRS`);
      await notified.text();
      if (notified.status !== 200) throw new Error(`notify: ${notified.status}`);
    };
    let passes = 0;
    const failures = { simulator: 0, monext: 0 };
    let n = 0;
    const pass = async (live: boolean): Promise<Pass> => {
      const key = live ? merchant.liveSecretKey : merchant.testSecretKey;
      const label = live ? 'monext' : 'simulator';
      let done = 0;
      let failed = 0;
      if (process.env.BENCH_PROFILE) await motu.ask({ profile: 'start' });
      const pids = database ? await pgBackends(database.url) : [];
      const { elu: eluBefore, counts: countsBefore, usage: usageBefore } = await motu.ask({ elu: null });
      const before = { motu: cpuSeconds(motu.process.pid) ?? 0, fake: cpuSeconds(fake.process.pid) ?? 0, pg: cpuOf(pids) };
      const started = performance.now();
      const stopAt = started + SECONDS * 1000;
      const steps: number[][] = [[], [], [], []];
      const timed = async <T>(step: number, fn: () => Promise<T>): Promise<T> => {
        const t0 = performance.now();
        const out = await fn();
        steps[step]!.push(performance.now() - t0);
        return out;
      };
      const customer = async () => {
        while (performance.now() < stopAt) {
          const i = n++;
          try {
            const session = await timed(0, () => call('POST', '/api/v1/payments/sessions', {
              order: { reference: `B-${i}`, amount: 1000 + (i % 5000), currency: i % 2 ? 'XPF' : 'EUR' },
              captureMode: 'MANUAL', email: 'buyer@example.com', redirectUrl: 'https://shop.example/return', notificationUrl: 'https://shop.example/hook',
            }, key));
            const { token } = await timed(1, () => (live
              ? call('POST', '/acquirer/v1/monext/sessions', { session: session.sessionId })
              : call('POST', '/acquirer/v1/tokens', { mode: 'test', number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123', session: session.sessionId })));
            const paid = await timed(2, () => call('POST', `/checkout/${session.sessionId}/pay`, { token }));
            if (paid.next !== 'redirect') throw new Error(JSON.stringify(paid));
            if (live && NOTIFY) await timed(2, () => afterWidget(session.sessionId, token));
            await timed(3, () => call('POST', `/api/v1/payments/${session.paymentId}/capture`, {}, key));
            done += 1;
          } catch (err) {
            failed += 1;
            if (failed < 5) console.error(String(err));
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, customer));
      const elapsed = (performance.now() - started) / 1000;
      const after = { motu: cpuSeconds(motu.process.pid) ?? 0, fake: cpuSeconds(fake.process.pid) ?? 0, pg: cpuOf(pids) };
      const { elu, counts: countsAfter, usage: usageAfter } = await motu.ask({ elu: eluBefore });
      failures[label] += failed;
      if (failed > 0) console.error(`${label}: ${failed} failures`);
      if (process.env.BENCH_PROFILE) await motu.ask({ profile: 'stop', file: path.join(process.env.BENCH_PROFILE, `${label}-${++passes}-${done}.cpuprofile`) });
      const per = (seconds: number) => (seconds * 1000) / Math.max(done, 1);
      const counted = (k: 'statements' | 'commits' | 'fsyncs') => (countsAfter[k] - countsBefore[k]) / Math.max(done, 1);
      const result = {
        perSecond: done / elapsed, payments: done,
        motuMs: per(after.motu - before.motu), pgMs: per(after.pg - before.pg), fakeMs: per(after.fake - before.fake),
        statements: counted('statements'), commits: counted('commits'), fsyncs: counted('fsyncs'),
      };
      if (process.env.BENCH_VERBOSE) {
        console.error(`pass ${label}: ${done} payments, ${result.perSecond.toFixed(1)}/s, CPU per payment: Motu ${result.motuMs.toFixed(2)} ms, `
          + `PostgreSQL ${result.pgMs.toFixed(2)} ms, fake Monext ${result.fakeMs.toFixed(2)} ms; per payment ${result.statements.toFixed(1)} statements, `
          + `${result.commits.toFixed(2)} COMMITs, ${result.fsyncs.toFixed(2)} fsyncs; Motu's event loop busy ${(elu.utilization * 100).toFixed(0)} %; `
          + `p50 of session, card, pay, capture: ${steps.map((xs) => median(xs).toFixed(1)).join(' / ')} ms; `
          + `Motu per payment: user ${((usageAfter.userCPUTime - usageBefore.userCPUTime) / Math.max(done, 1) / 1000).toFixed(2)} ms, `
          + `system ${((usageAfter.systemCPUTime - usageBefore.systemCPUTime) / Math.max(done, 1) / 1000).toFixed(2)} ms, `
          + `context switches ${((usageAfter.voluntaryContextSwitches - usageBefore.voluntaryContextSwitches) / Math.max(done, 1)).toFixed(1)} voluntary, `
          + `${((usageAfter.involuntaryContextSwitches - usageBefore.involuntaryContextSwitches) / Math.max(done, 1)).toFixed(1)} involuntary`);
      }
      return result;
    };
    // Warm both paths, then measure in alternation: simulator, Monext, simulator, … (BENCH_ROUNDS Monext passes, default
    // 11, each between two simulator passes). On a shared machine the speed of the host drifts by tens of per cent within
    // a minute; each Monext pass is compared with the simulator passes just before and after it, and the median of those
    // ratios is the result (docs/live.md, "Performance").
    // BENCH_ONLY=monext|simulator: one path alone (with BENCH_PROFILE, to compare where each spends its time).
    const only = process.env.BENCH_ONLY;
    const rounds = Number(process.env.BENCH_ROUNDS ?? '11');
    const skipped: Pass = { perSecond: NaN, payments: 0, motuMs: NaN, pgMs: NaN, fakeMs: NaN, statements: NaN, commits: NaN, fsyncs: NaN };
    await pass(only === 'monext');
    if (only !== 'simulator') await pass(true);
    failures.simulator = failures.monext = 0;
    const simulator = [only === 'monext' ? skipped : await pass(false)];
    const monext: Pass[] = [];
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      monext.push(only === 'simulator' ? skipped : await pass(true));
      simulator.push(only === 'monext' ? skipped : await pass(false));
      const m = monext[round]!;
      const [s0, s1] = [simulator[round]!, simulator[round + 1]!];
      ratios.push(m.perSecond / ((s0.perSecond + s1.perSecond) / 2));
      cpuRatios.push(m.motuMs / ((s0.motuMs + s1.motuMs) / 2));
    }
    return { simulator, monext, ratios: ratios.sort((a, b) => a - b), cpuRatios: cpuRatios.sort((a, b) => a - b), load, failures };
  } finally {
    await motu.stop();
    await fake.stop();
    await database?.drop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** One line per database: the figures, the median ratio and its spread. */
async function measure(): Promise<string[]> {
  const dialects: Dialect[] = (process.env.BENCH_DIALECTS?.split(',') as Dialect[] | undefined) ?? (process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite']);
  const lines: string[] = [];
  for (const dialect of dialects) {
    const r = await runOn(dialect);
    const f = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(', ');
    const ms = (passes: Pass[], k: 'motuMs' | 'pgMs' | 'fakeMs' | 'commits') => median(passes.map((p) => p[k])).toFixed(2);
    const line = `${dialect} (load ${r.load.toFixed(1)}): simulator ${mean(r.simulator.map((x) => x.perSecond)).toFixed(1)} payments/s, `
      + `Monext (fake, ${LATENCY_MS} ms per answer${NOTIFY ? ", with its return and notification" : ""}) ${mean(r.monext.map((x) => x.perSecond)).toFixed(1)} payments/s, `
      + `ratio ${median(r.ratios).toFixed(2)} (median of ${f(r.ratios)}; goal ≥ 0.9); `
      + `Motu's CPU per payment: simulator ${ms(r.simulator, 'motuMs')} ms, Monext ${ms(r.monext, 'motuMs')} ms, `
      + `Monext ÷ simulator ${median(r.cpuRatios).toFixed(2)} (median of ${f(r.cpuRatios)})`
      + (dialect === 'postgres' ? `; PostgreSQL's backends per payment: simulator ${ms(r.simulator, 'pgMs')} ms, Monext ${ms(r.monext, 'pgMs')} ms` : '')
      + `; COMMITs per payment: simulator ${ms(r.simulator, 'commits')}, Monext ${ms(r.monext, 'commits')}`
      + `; the fake Monext's CPU per payment ${ms(r.monext, 'fakeMs')} ms`
      + (r.failures.simulator + r.failures.monext > 0 ? `; failed payments: simulator ${r.failures.simulator}, Monext ${r.failures.monext}` : '');
    console.log(line);
    lines.push(line);
  }
  return lines;
}

/** For `npm run bench` (bench/run.ts): the section of docs/performance.md this benchmark writes. */
export default async function run(): Promise<{ section: string; markdown: string }> {
  const lines = await measure();
  return {
    section: 'Checkout through the Monext connector',
    markdown: [
      'bench/checkout-monext.bench.ts: the server side of a card payment (session, card, MANUAL authorization, capture) through',
      'the simulator and through the Monext connector against its fake, in alternating passes on the same database; Motu,',
      'the fake Monext (default priority, a fixed delay per answer) and the customers each in a process of their own. The',
      'ratio is the median of each Monext pass against the simulator passes around it. Goal: ≥ 0.9. *The Monext path*',
      'explains the method and keeps the earlier runs.',
      '',
      ...lines.map((l) => `- ${l}`),
    ].join('\n'),
  };
}

if (process.argv.includes('--fake-monext')) {
  const fake = await new FakeMonext().start();
  fake.autoPay = MONEXT_CARDS.visa;
  fake.record = false;
  fake.latencyMs = Number(process.env.BENCH_MONEXT_LATENCY_MS ?? '0');
  process.send!({ url: fake.url });
  process.on('disconnect', () => process.exit(0));
} else if (process.argv.includes('--motu')) {
  await serveMotu();
} else if (process.argv[1] && SELF === process.argv[1]) {
  await measure();
}

/**
 * Motu's process: the app on the database the environment names (migrated, as `motu serve` opens it), one merchant
 * (its keys sent to the parent), no worker. Answers the parent's profile requests (BENCH_PROFILE=<dir>: each pass's CPU
 * profile, V8's sampling profiler through node:inspector, as <dir>/<path>-<pass>-<payments>.cpuprofile; `node --import
 * tsx bench/cpuprofile.ts <file>` summarises one).
 */
async function serveMotu(): Promise<void> {
  // The sources of this tree (through tsx), or the compiled tree BENCH_MOTU_MAIN names (its dist/ and node_modules/).
  const main = process.env.BENCH_MOTU_MAIN ? path.resolve(process.env.BENCH_MOTU_MAIN) : undefined;
  const root = main ? path.dirname(path.dirname(main)) : path.join(path.dirname(SELF), '..', 'src');
  const from = async (module: string) => import(pathToFileURL(path.join(root, main ? module.replace(/\.ts$/, '.js') : module)).href);
  const counts = countStatements(main ? path.join(root, '..', 'package.json') : SELF);
  const { buildApp } = await from('app.ts');
  const { parseConfig } = await from('config.ts');
  const { openMigrated } = await from('start/bootstrap.ts');
  const { MerchantsService } = await from('modules/merchants/merchants.service.ts');
  const { systemClock } = await from('shared/clock.ts');
  const { sha256Hex } = await from('shared/hash.ts');
  const { secretBoxFor } = await from('shared/secret-box.ts');
  const config = parseConfig(process.env);
  const db = await openMigrated(config);
  const app = await buildApp(config, { db, adminTokenHash: sha256Hex(ADMIN), clock: systemClock });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const merchant = await new MerchantsService(db, systemClock, secretBoxFor(config)).createMerchant({ name: 'Bench' });
  const { Session } = await import('node:inspector/promises');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  let session: InstanceType<typeof Session> | undefined;
  process.on('message', async (m: { id: number; profile?: 'start' | 'stop'; file?: string; elu?: EventLoopUtilization | null }) => {
    // The event loop's utilization since the one given back (`elu`), or so far (null); the statements counted so far; the
    // process's resource usage so far (user and system CPU, context switches: every thread's).
    if (m.elu !== undefined) {
      return process.send!({
        id: m.id, elu: m.elu ? performance.eventLoopUtilization(m.elu) : performance.eventLoopUtilization(), counts: { ...counts }, usage: process.resourceUsage(),
      });
    }
    if (m.profile === 'start') {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    } else if (m.profile === 'stop' && session) {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(path.dirname(m.file!), { recursive: true });
      writeFileSync(m.file!, JSON.stringify(profile));
      session.disconnect();
      session = undefined;
    }
    process.send!({ id: m.id });
  });
  const close = async () => {
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void close());
  process.on('disconnect', () => void close());
  process.send!({ address, merchant: { testSecretKey: merchant.testSecretKey, liveSecretKey: merchant.liveSecretKey, defaultContractId: merchant.defaultContractId } });
}

/**
 * Counts, in Motu's process, the statements sent to the database and the COMMITs among them (SQLite: better-sqlite3
 * statements run; PostgreSQL: queries sent, each a round trip), and the fsyncs of SQLite's WAL (the group commit's, in
 * the thread pool): per payment they tell the two paths' database work apart, whatever the machine's load. Installed
 * before the app is loaded, as bench/checkout-statements.ts does.
 */
function countStatements(resolveFrom: string): { statements: number; commits: number; fsyncs: number } {
  const counts = { statements: 0, commits: 0, fsyncs: 0 };
  // The drivers the app will load: those of its own tree (another build's node_modules with BENCH_MOTU_MAIN).
  const require = createRequire(resolveFrom);
  const SQLite = require('better-sqlite3') as { prototype: { prepare: (...a: unknown[]) => unknown } };
  const pg = require('pg') as typeof import('pg');
  const prepare = SQLite.prototype.prepare;
  SQLite.prototype.prepare = function (this: unknown, ...args: unknown[]) {
    const statement = prepare.apply(this, args) as Record<string, (...a: unknown[]) => unknown> & { source: string };
    const commit = /^\s*(commit|end)\b/i.test(statement.source);
    for (const method of ['run', 'get', 'all', 'iterate']) {
      const original = statement[method]!;
      statement[method] = function (this: unknown, ...a: unknown[]) {
        counts.statements += 1;
        if (commit) counts.commits += 1;
        return original.apply(this, a);
      };
    }
    return statement;
  };
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: import('pg').Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text ?? '';
    counts.statements += 1;
    if (/^\s*commit\b/i.test(text)) counts.commits += 1;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  const fdatasync = fs.fdatasync;
  fs.fdatasync = ((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
    counts.fsyncs += 1;
    fdatasync(fd, cb);
  }) as typeof fs.fdatasync;
  syncBuiltinESMExports();
  return counts;
}
