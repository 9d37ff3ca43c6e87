// bench/checkout-monext: the server side of a card payment, simulator against the Monext connector, in the same run
// and on the same database: session created (merchant API), card entered (simulator: the token endpoint; Monext: a
// widget session asked of Motu, the card "typed" in the fake Monext's widget in-process), authorized (the page's pay
// call, MANUAL), captured (merchant API). The fake Monext (test/support/fake-monext.ts) runs in its own process on
// 127.0.0.1, at the lowest CPU priority, and answers at once, so the ratio measures what the connector costs Motu
// itself (its HTTP calls and database rows), not what Monext's own servers do. The cardholder's typing in the widget
// happens at Monext too: the fake authorizes each widget session with a test card as soon as it is made
// (FakeMonext.autoPay).
// No worker runs in either pass (a live notificationUrl must be a public https address: nothing is delivered here).
// Goal (docs/live.md): Monext ≥ 0.9 × the simulator's payments per second.
// Run: `node --import tsx bench/checkout-monext.bench.ts` (SQLite; also PostgreSQL when DATABASE_URL is set).
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import type { Dialect } from '../src/db/database.js';
import { MerchantsService } from '../src/modules/merchants/merchants.service.js';
import { systemClock } from '../src/shared/clock.js';
import { sha256Hex } from '../src/shared/hash.js';
import { secretBoxFor } from '../src/shared/secret-box.js';
import { FAKE_MONEXT_CREDENTIALS, FakeMonext, MONEXT_CARDS } from '../test/support/fake-monext.js';
import { freshDatabase } from '../test/support/harness.js';

// Short passes, many rounds (below): the host's drift is followed more closely than with a few long passes.
const SECONDS = Number(process.env.BENCH_CHECKOUT_SECONDS ?? process.env.BENCH_SECONDS ?? '2');
const CONCURRENCY = Number(process.env.BENCH_CHECKOUT_CONCURRENCY ?? '16');
const ADMIN = 'bench-admin-token-0123456789';

/**
 * BENCH_PROFILE=<dir>: each pass's CPU profile of this process (V8's sampling profiler through node:inspector), written
 * as <dir>/<path>-<pass>-<payments>.cpuprofile: per pass, so neither start-up nor the other path is in it
 * (`node --import tsx bench/cpuprofile.ts <file>` summarises one).
 */
async function startProfile(): Promise<{ stop(name: string): Promise<void> } | null> {
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return null;
  const { Session } = await import('node:inspector/promises');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(name) {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(dir, { recursive: true });
      writeFileSync(`${dir}/${name}`, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/** The fake Monext in a child process (its own process, as Monext's servers are not Motu's): its URL, and a stop. */
async function fakeMonextProcess(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--fake-monext'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the fake Monext exited (${code})`)));
  });
  // Monext's servers are not Motu's CPUs, but here the fake shares the 2 cores with Motu and its database: at the
  // lowest priority (BENCH_FAKE_NICE, default 19; 0 to compare) it runs on what they leave, instead of taking its share
  // from them while they are busy (on PostgreSQL, whose server processes need the second core, that share cost the
  // live path about a tenth of its payments per second; docs/live.md, "Performance").
  setPriority(child.pid!, Number(process.env.BENCH_FAKE_NICE ?? '19'));
  return { url, stop: () => child.kill() };
}

async function runOn(dialect: Dialect): Promise<{ simulator: number; monext: number; simulatorCpuMs: number; monextCpuMs: number; ratios: number[] }> {
  const database = await freshDatabase(dialect);
  const fake = await fakeMonextProcess();
  const config = parseConfig({
    MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent', MOTU_ADMIN_TOKEN: ADMIN,
    MOTU_RATE_LIMIT_MAX: '10000000', MOTU_TOKENS_PER_MINUTE: '10000000', PORT: '0', MOTU_MONEXT_API_URL: fake.url,
  });
  const db = database.db;
  const app = await buildApp(config, { db, adminTokenHash: sha256Hex(ADMIN), clock: systemClock });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const merchant = await new MerchantsService(db, systemClock, secretBoxFor(config)).createMerchant({ name: 'Bench' });
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

  let passes = 0;
  const pass = async (live: boolean): Promise<{ perSecond: number; cpuMs: number }> => {
    const key = live ? merchant.liveSecretKey : merchant.testSecretKey;
    let done = 0;
    let failures = 0;
    let n = 0;
    const stopAt = performance.now() + SECONDS * 1000;
    const started = performance.now();
    const profiling = await startProfile();
    const cpu = process.cpuUsage();
    const elu = performance.eventLoopUtilization();
    const customer = async () => {
      while (performance.now() < stopAt) {
        const i = n++;
        try {
          const session = await call('POST', '/api/v1/payments/sessions', {
            order: { reference: `B-${i}`, amount: 1000 + (i % 5000), currency: i % 2 ? 'XPF' : 'EUR' },
            captureMode: 'MANUAL', email: 'buyer@example.com', redirectUrl: 'https://shop.example/return', notificationUrl: 'https://shop.example/hook',
          }, key);
          let token: string;
          if (live) {
            token = (await call('POST', '/acquirer/v1/monext/sessions', { session: session.sessionId })).token;
          } else {
            token = (await call('POST', '/acquirer/v1/tokens', { mode: 'test', number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123', session: session.sessionId })).token;
          }
          const paid = await call('POST', `/checkout/${session.sessionId}/pay`, { token });
          if (paid.next !== 'redirect') throw new Error(JSON.stringify(paid));
          await call('POST', `/api/v1/payments/${session.paymentId}/capture`, {}, key);
          done += 1;
        } catch (err) {
          failures += 1;
          if (failures < 5) console.error(String(err));
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, customer));
    if (failures > 0) console.error(`${live ? 'monext' : 'simulator'}: ${failures} failures`);
    const used = process.cpuUsage(cpu);
    const busy = performance.eventLoopUtilization(elu).utilization;
    await profiling?.stop(`${live ? 'monext' : 'simulator'}-${++passes}-${done}.cpuprofile`);
    if (process.env.BENCH_VERBOSE) console.error(`pass ${live ? 'monext' : 'simulator'}: ${done} payments, event loop busy ${(busy * 100).toFixed(0)} %`);
    return { perSecond: done / ((performance.now() - started) / 1000), cpuMs: (used.user + used.system) / 1000 / Math.max(done, 1) };
  };
  // Warm both paths, then measure in alternation: simulator, Monext, simulator, … (BENCH_ROUNDS Monext passes, default
  // 11, each between two simulator passes). On a shared machine the speed of the host drifts by tens of per cent within
  // a minute; each Monext pass is compared with the simulator passes just before and after it, and the median of those
  // ratios is the result (docs/live.md, "Performance").
  // BENCH_ONLY=monext|simulator: one path alone (under `node --cpu-prof`, to compare where each spends its time).
  const only = process.env.BENCH_ONLY;
  const rounds = Number(process.env.BENCH_ROUNDS ?? '11');
  const skipped = { perSecond: NaN, cpuMs: NaN };
  await pass(only === 'monext');
  if (only !== 'simulator') await pass(true);
  const simulator = [only === 'monext' ? skipped : await pass(false)];
  const monext: { perSecond: number; cpuMs: number }[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    monext.push(only === 'simulator' ? skipped : await pass(true));
    simulator.push(only === 'monext' ? skipped : await pass(false));
    ratios.push(monext[round]!.perSecond / ((simulator[round]!.perSecond + simulator[round + 1]!.perSecond) / 2));
  }
  await app.close();
  fake.stop();
  await database.drop();
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    simulator: mean(simulator.map((x) => x.perSecond)), monext: mean(monext.map((x) => x.perSecond)),
    simulatorCpuMs: mean(simulator.map((x) => x.cpuMs)), monextCpuMs: mean(monext.map((x) => x.cpuMs)),
    ratios: ratios.sort((a, b) => a - b),
  };
}

/** One line per database: the figures and the median ratio. */
async function measure(): Promise<string[]> {
  const dialects: Dialect[] = process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const lines: string[] = [];
  for (const dialect of dialects) {
    const r = await runOn(dialect);
    const median = r.ratios[Math.floor(r.ratios.length / 2)]!;
    const line = `${dialect}: simulator ${r.simulator.toFixed(1)} payments/s, Monext (fake) ${r.monext.toFixed(1)} payments/s, `
      + `ratio ${median.toFixed(2)} (median of ${r.ratios.map((x) => x.toFixed(2)).join(', ')}; goal ≥ 0.9); `
      + `CPU of this process per payment (Motu and the load generator): simulator ${r.simulatorCpuMs.toFixed(2)} ms, Monext ${r.monextCpuMs.toFixed(2)} ms`;
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
      'the simulator and through the Monext connector against its fake (its own process, lowest CPU priority), in',
      'alternating passes on the same database; the ratio is the median of each Monext pass against the simulator passes',
      'around it. Goal: ≥ 0.9. docs/live.md, "Performance", explains the method and keeps the earlier runs.',
      '',
      ...lines.map((l) => `- ${l}`),
    ].join('\n'),
  };
}

if (process.argv.includes('--fake-monext')) {
  const fake = await new FakeMonext().start();
  fake.autoPay = MONEXT_CARDS.visa;
  fake.record = false;
  console.log(fake.url);
} else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await measure();
}
