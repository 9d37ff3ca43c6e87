// bench/checkout: the full server side of a card payment through HTTP, without a browser, as the hosted page and
// the merchant's server would drive it: session created (merchant API), card tokenized (acquirer's token endpoint),
// authorized (the checkout page's pay call, MANUAL capture), captured (merchant API), and both events
// (payment.authorized, payment.captured) delivered by the real worker to a loopback receiver (the notificationUrl).
// Reports payments/s and the share of time by stage.
// Run alone: `node --import tsx bench/checkout.bench.ts` (SQLite; also PostgreSQL when DATABASE_URL is set),
// or through `npm run bench`, which writes the "Checkout" section of docs/performance.md.
import { secretBoxFor } from '../src/shared/secret-box.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import type { Dialect } from '../src/db/database.js';
import { MerchantsService } from '../src/modules/merchants/merchants.service.js';
import { systemClock } from '../src/shared/clock.js';
import { sha256Hex } from '../src/shared/hash.js';
import { startWorkers } from '../src/start/workers.js';
import { linkSeller } from '../src/modules/platforms/platform-links.js';
import { freshDatabase } from '../test/support/harness.js';

const SECONDS = Number(process.env.BENCH_CHECKOUT_SECONDS ?? process.env.BENCH_SECONDS ?? '10');
const CONCURRENCY = Number(process.env.BENCH_CHECKOUT_CONCURRENCY ?? '16');
const STAGES = ['session', 'tokenize', 'authorize', 'capture'] as const;
type Stage = (typeof STAGES)[number];
const silent = { info() {}, warn() {}, error() {} };

interface Run {
  dialect: Dialect;
  payments: number;
  paymentsPerSecond: number;
  stageMs: Record<Stage, number>;
  stageP50: Record<Stage, number>;
  /** From the capture's 200 to the receiver reading payment.captured. */
  deliveryP50: number;
  deliveryP99: number;
  delivered: number;
  failures: number;
  /** The same path for a split payment between 10 sellers, measured right after in the same app (BENCH_CHECKOUT_SPLIT=0 skips it). */
  split?: SplitRun;
}

interface SplitRun {
  payments: number;
  paymentsPerSecond: number;
  failures: number;
  /** Split payments/s ÷ single-merchant payments/s. */
  ratio: number;
}

const SPLIT_SELLERS = 10;

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const round = (n: number) => Math.round(n * 10) / 10;

export type Post = (url: string, body: unknown, auth?: string) => Promise<any>;

/** A JSON POST to the app at `address`, as the page or the merchant's server sends it; a non-2xx answer throws. */
export function poster(address: string): Post {
  return async (url, body, auth) => {
    const res = await fetch(`${address}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
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
  const token = await timed('tokenize', () => post('/acquirer/v1/tokens', { mode: 'test', number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123', session: session.sessionId }));
  await timed('authorize', () => post(`/checkout/${session.sessionId}/pay`, { token: token.token }));
  await timed('capture', () => post(`/api/v1/payments/${session.paymentId}/capture`, {}, key));
  return session;
}

async function runOn(dialect: Dialect): Promise<Run> {
  const database = await freshDatabase(dialect);
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

  const config = parseConfig({
    MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent',
    MOTU_ADMIN_TOKEN: 'bench-admin-token-0123456789', MOTU_RATE_LIMIT_MAX: '10000000', MOTU_TOKENS_PER_MINUTE: '10000000', PORT: '0',
  });
  const db = database.db;
  const app = await buildApp(config, { db, adminTokenHash: sha256Hex('bench-admin-token-0123456789'), clock: systemClock });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const workers = startWorkers(config, db, systemClock, silent, { delivery: { perTarget: 64, concurrency: 256 } });
  const merchant = await new MerchantsService(db, systemClock, secretBoxFor(config)).createMerchant({ name: 'Bench' });
  const key = merchant.testSecretKey;

  const post = poster(address);

  const durations: Record<Stage, number[]> = { session: [], tokenize: [], authorize: [], capture: [] };
  const capturedAt = new Map<string, number>();
  let failures = 0;
  let n = 0;
  const stopAt = performance.now() + SECONDS * 1000;
  const timed = async <T>(stage: Stage, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const out = await fn();
    durations[stage].push(performance.now() - t0);
    return out;
  };
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
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, customer));
  const elapsed = (performance.now() - start) / 1000;
  const singlePerSecond = capturedAt.size / elapsed;
  const split = process.env.BENCH_CHECKOUT_SPLIT === '0' ? undefined : await splitRun(new MerchantsService(db, systemClock, secretBoxFor(config)), db, post, `${hook}-split`, singlePerSecond);
  // Wait (up to 30 s) for the captured events to arrive.
  const deadline = performance.now() + 30_000;
  while (receivedAt.size < capturedAt.size && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const latencies = [...capturedAt].filter(([id]) => receivedAt.has(id)).map(([id, at]) => Math.max(0, receivedAt.get(id)! - at));

  await workers.stop();
  await app.close();
  receiver.close();
  await database.drop();
  const stageMs = Object.fromEntries(STAGES.map((s) => [s, durations[s].reduce((a, b) => a + b, 0)])) as Record<Stage, number>;
  const stageP50 = Object.fromEntries(STAGES.map((s) => [s, round(percentile(durations[s], 50))])) as Record<Stage, number>;
  return {
    dialect, payments: capturedAt.size, paymentsPerSecond: Math.round(capturedAt.size / elapsed), stageMs, stageP50,
    deliveryP50: round(percentile(latencies, 50)), deliveryP99: round(percentile(latencies, 99)), delivered: receivedAt.size, failures,
    ...(split ? { split } : {}),
  };
}

/**
 * Split payments (docs/platforms.md) through the same path, in the same app right after the single-merchant run: a
 * platform and 10 linked sellers, each payment split between all 10 with commissions and a discount, session → token →
 * pay → capture (both events with platformDistribution, each seller's postings), for the same duration and concurrency.
 */
async function splitRun(merchants: MerchantsService, db: Awaited<ReturnType<typeof freshDatabase>>['db'], post: Post, hook: string, singlePerSecond: number): Promise<SplitRun> {
  const platform = await merchants.createMerchant({ name: 'Bench Market' });
  await merchants.updateMerchant(platform.id, { platform: true });
  const sellers: string[] = [];
  for (let i = 0; i < SPLIT_SELLERS; i++) {
    const seller = await merchants.createMerchant({ name: `Bench Seller ${i}` });
    await db.transaction((trx) => linkSeller(trx, { platformId: platform.id, sellerId: seller.id, mode: 'test', at: new Date() }));
    sellers.push(seller.id);
  }
  const key = platform.testSecretKey;
  let payments = 0;
  let failures = 0;
  let n = 0;
  const stopAt = performance.now() + SECONDS * 1000;
  const customer = async () => {
    while (performance.now() < stopAt) {
      const i = n++;
      const each = 100 + (i % 500);
      try {
        const session = await post('/api/v1/payments/sessions', {
          order: {
            reference: `S-${i}`, amount: each * SPLIT_SELLERS - 50, currency: i % 2 ? 'XPF' : 'EUR',
            platformConfig: { distribution: sellers.map((merchantId, k) => ({ merchantId, amount: each, commission: { rate: 1000, fixed: 5 }, ...(k === 0 ? { discount: 50 } : {}) })) },
          },
          captureMode: 'MANUAL', email: 'buyer@example.com', redirectUrl: 'https://shop.example/return', notificationUrl: hook,
        }, key);
        const token = await post('/acquirer/v1/tokens', { mode: 'test', number: '4242424242424242', expMonth: 12, expYear: 2040, cvc: '123', session: session.sessionId });
        await post(`/checkout/${session.sessionId}/pay`, { token: token.token });
        await post(`/api/v1/payments/${session.paymentId}/capture`, {}, key);
        payments += 1;
      } catch (err) {
        failures += 1;
        if (failures < 5) console.error(String(err));
      }
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, customer));
  const perSecond = payments / ((performance.now() - start) / 1000);
  return { payments, paymentsPerSecond: Math.round(perSecond), failures, ratio: Math.round((100 * perSecond) / singlePerSecond) / 100 };
}

export default async function bench(): Promise<{ section: string; markdown: string }> {
  const dialects: Dialect[] = process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const runs: Run[] = [];
  for (const dialect of dialects) {
    const r = await runOn(dialect);
    runs.push(r);
    console.error(`checkout ${dialect}: ${r.paymentsPerSecond} payments/s, ${r.payments} payments, ${r.delivered} delivered, ${r.failures} failures`);
    if (r.split) console.error(`checkout ${dialect}, split between ${SPLIT_SELLERS} sellers: ${r.split.paymentsPerSecond} payments/s, ${r.split.payments} payments, ${r.split.failures} failures, ${r.split.ratio}× the single-merchant rate`);
  }
  const share = (r: Run, s: Stage) => {
    const total = STAGES.reduce((a, k) => a + r.stageMs[k], 0);
    return `${Math.round((100 * r.stageMs[s]) / total)} % (p50 ${r.stageP50[s]} ms)`;
  };
  const lines = [
    `Method: \`bench/checkout.bench.ts\` runs the app on a real port and the real delivery worker in one process, and`,
    `${CONCURRENCY} simulated customers loop for ${SECONDS} s, each payment through HTTP exactly as the page and the merchant would:`,
    '`POST /api/v1/payments/sessions` (MANUAL, EUR and XPF alternately) → `POST /acquirer/v1/tokens` (test card 4242…) →',
    '`POST /checkout/{sessionId}/pay` (authorization, `payment.authorized`) → `POST /api/v1/payments/{id}/capture`',
    '(`payment.captured`). Both events go to the session\'s notificationUrl, a loopback receiver in the same process;',
    'delivery latency is from the capture\'s 200 to the receiver reading `payment.captured`. A payment counts once captured.',
    'Shares are of the summed time customers spent waiting on each call. Everything (server, worker, receiver, load)',
    'shares the same 2 cores, so treat the figures as a floor.',
    '',
    '| Database | Payments/s | Payments | Session | Tokenize | Authorize | Capture | Delivery p50 / p99 (ms) | Delivered | Failures |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...runs.map((r) => `| ${r.dialect} | ${r.paymentsPerSecond} | ${r.payments} | ${STAGES.map((s) => share(r, s)).join(' | ')} | ${r.deliveryP50} / ${r.deliveryP99} | ${r.delivered}/${r.payments} | ${r.failures} |`),
    ...runs.filter((r) => r.split).map((r) => `\nSplit between ${SPLIT_SELLERS} sellers, same path right after (${r.dialect}): ${r.split!.paymentsPerSecond} payments/s, ${r.split!.payments} payments, ${r.split!.failures} failures: ${r.split!.ratio}× the single-merchant rate.`),
  ];
  return { section: 'Checkout', markdown: lines.join('\n') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await bench();
  console.log(markdown);
}
