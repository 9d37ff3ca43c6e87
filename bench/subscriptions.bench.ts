// bench/subscriptions: 10,000 subscriptions (BENCH_SUBSCRIPTIONS) due at the same instant, charged by the worker's
// subscription engine, while merchants charge saved cards through `POST /api/v1/payments` on the same service (API and
// worker in one process). Reports due-date charges per second and merchant-initiated payments per second in the same
// run (the target: charges at least half as fast), and merchant-initiated payments per second alone before it.
// Run alone: `node --import tsx bench/subscriptions.bench.ts` (SQLite; also PostgreSQL when DATABASE_URL is set), or
// through `npm run bench`, which writes the "Subscriptions" section of docs/performance.md.
import { buildApp } from '../src/app.js';
import { buildServices } from '../src/compose.js';
import { parseConfig } from '../src/config.js';
import type { Database, Dialect } from '../src/db/database.js';
import { MerchantsService } from '../src/modules/merchants/merchants.service.js';
import { realTime } from '../src/modules/test-clocks/clock-time.js';
import { systemClock } from '../src/shared/clock.js';
import { sha256Hex } from '../src/shared/hash.js';
import { secretBoxFor } from '../src/shared/secret-box.js';
import { freshDatabase } from '../test/support/harness.js';

const COUNT = Number(process.env.BENCH_SUBSCRIPTIONS ?? '10000');
const BASELINE_SECONDS = Number(process.env.BENCH_SECONDS ?? '10');
const CONCURRENCY = 16;
const ADMIN = 'bench-admin-token-0123456789';

interface Run {
  dialect: Dialect;
  subscriptions: number;
  runSeconds: number;
  chargesPerSecond: number;
  paymentsAlonePerSecond: number;
  paymentsDuringRunPerSecond: number;
  ratio: number;
  failures: number;
  ok: boolean;
}

/** `count` customers of `merchantId`, each with a saved card (its acquirer card too) and, if asked, a subscription due now. */
async function seed(db: Database, merchantId: string, prefix: string, count: number, due: Date | null): Promise<string[]> {
  const at = new Date(Date.now() - 60_000).toISOString();
  const pms: string[] = [];
  for (let start = 0; start < count; start += 500) {
    const n = Math.min(500, count - start);
    const ids = Array.from({ length: n }, (_, i) => `${prefix}${String(start + i).padStart(12, '0')}`);
    await db.transaction(async (trx) => {
      await trx.insertInto('acquirer_cards').values(ids.map((id) => ({
        id: `card_${id}`, mode: 'test' as const, fingerprint: `fp_${id}`, brand: 'visa', network: 'VISA', networks: '["VISA"]', last4: '4242',
        exp_month: 12, exp_year: 2040, behaviour: 'approve', saved: 1, state: 'active', created_at: at,
      }))).execute();
      await trx.insertInto('customers').values(ids.map((id) => ({
        id: `cus_${id}`, merchant_id: merchantId, mode: 'test' as const, email: null, email_key: null, external_id: null, name: null, phone: null,
        address: null, metadata: null, test_clock_id: null, created_at: at, updated_at: at,
      }))).execute();
      await trx.insertInto('payment_methods').values(ids.map((id) => ({
        id: `pm_${id}`, merchant_id: merchantId, mode: 'test' as const, customer_id: `cus_${id}`, acquirer_card_ref: `card_${id}`, brand: 'visa',
        network: 'VISA', networks: '["VISA"]', last4: '4242', exp_month: 12, exp_year: 2040, fingerprint: `fp_${id}`, status: 'active' as const,
        removed_reason: null, removed_at: null, created_at: at,
      }))).execute();
      if (due) {
        await trx.insertInto('subscriptions').values(ids.map((id) => ({
          id: `sub_${id}`, merchant_id: merchantId, mode: 'test' as const, store_id: null, customer_id: `cus_${id}`, payment_method_id: `pm_${id}`,
          amount: 1990, currency: 'EUR', interval: 'month' as const, interval_count: 1, start_date: due.toISOString(), description: null,
          retry_schedule: '[1,3,5,7]', end_after: null, invoicing: null, private_data: null, status: 'active' as const,
          next_due_date: due.toISOString(), due_count: 0, cancel_at: null, cancelled_at: null, test_clock_id: null, created_at: at, updated_at: at,
        }))).execute();
      }
    });
    pms.push(...ids.map((id) => `pm_${id}`));
  }
  return pms;
}

async function runOn(dialect: Dialect): Promise<Run> {
  const database = await freshDatabase(dialect);
  const config = parseConfig({
    MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent', MOTU_ADMIN_TOKEN: ADMIN,
    MOTU_RATE_LIMIT_MAX: '10000000', MOTU_TOKENS_PER_MINUTE: '10000000', PORT: '0',
  });
  const db = database.db;
  const services = buildServices(config, db, systemClock);
  const merchants = new MerchantsService(db, systemClock, secretBoxFor(config));
  const subscriber = await merchants.createMerchant({ name: 'Subscriptions' });
  const shop = await merchants.createMerchant({ name: 'Shop' });
  const due = new Date(Date.now() - 1000);
  await seed(db, subscriber.id, 'bsub', COUNT, due);
  const cards = await seed(db, shop.id, 'bshop', CONCURRENCY, null);
  const app = await buildApp(config, { db, adminTokenHash: sha256Hex(ADMIN), clock: systemClock });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  let failures = 0;
  /** Merchant-initiated payments by CONCURRENCY merchants' servers until `done()`; returns how many. */
  const payments = async (done: () => boolean) => {
    let made = 0;
    await Promise.all(cards.map(async (paymentMethodId, c) => {
      for (let i = 0; !done(); i++) {
        const res = await fetch(`${address}/api/v1/payments`, {
          method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${shop.testSecretKey}` },
          body: JSON.stringify({ paymentMethodId, order: { reference: `B-${c}-${i}`, amount: 1500, currency: 'EUR' }, notificationUrl: 'https://shop.example/hook' }),
        });
        await res.arrayBuffer();
        if (res.status === 201 || res.status === 200) made += 1;
        else failures += 1;
      }
    }));
    return made;
  };
  await payments(((until) => () => performance.now() > until)(performance.now() + 2000)); // warm-up
  const aloneStart = performance.now();
  const alone = await payments(() => performance.now() - aloneStart > BASELINE_SECONDS * 1000);
  const aloneSeconds = (performance.now() - aloneStart) / 1000;

  const engine = services.subscriptionsEngine;
  let running = true;
  const runStart = performance.now();
  const charge = async () => {
    let charged = 0;
    for (;;) {
      const scope = realTime(new Date());
      const t0 = performance.now();
      const opened = await engine.openDue(scope);
      const t1 = performance.now();
      const made = await engine.chargeDue(scope);
      if (process.env.BENCH_DEBUG) console.error(`opened ${opened} in ${Math.round(t1 - t0)} ms, charged ${made} in ${Math.round(performance.now() - t1)} ms`);
      charged += made;
      if (opened === 0 && made === 0) return charged;
    }
  };
  const [charged, during] = await Promise.all([charge().finally(() => { running = false; }), payments(() => !running)]);
  const runSeconds = (performance.now() - runStart) / 1000;
  const paid = await db.kysely.selectFrom('subscription_due_dates').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'paid').executeTakeFirstOrThrow();
  await app.close();
  await database.drop();
  const chargesPerSecond = Math.round(charged / runSeconds);
  const paymentsDuringRunPerSecond = Math.round(during / runSeconds);
  const run: Run = {
    dialect, subscriptions: COUNT, runSeconds: Math.round(runSeconds * 10) / 10, chargesPerSecond,
    paymentsAlonePerSecond: Math.round(alone / aloneSeconds), paymentsDuringRunPerSecond,
    ratio: Math.round((chargesPerSecond / Math.max(1, paymentsDuringRunPerSecond)) * 100) / 100, failures, ok: Number(paid.n) === COUNT && charged === COUNT,
  };
  console.error(`subscriptions ${dialect}: ${JSON.stringify(run)}`);
  return run;
}

export default async function bench(): Promise<{ section: string; markdown: string }> {
  const dialects: Dialect[] = process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const runs: Run[] = [];
  for (const dialect of dialects) runs.push(await runOn(dialect));
  const lines = [
    `Method: \`bench/subscriptions.bench.ts\` writes ${COUNT.toLocaleString('en')} active monthly subscriptions of one merchant, each`,
    'with its own customer and saved card, all due at the same instant, starts the service in the process (API and worker',
    `together), measures \`POST /api/v1/payments\` (another merchant's ${CONCURRENCY} servers charging saved cards) for ${BASELINE_SECONDS} s, then`,
    'runs the subscription engine (due dates opened a hundred to a transaction, then charged sixteen at a time, each a merchant-initiated payment under',
    'its derived id, with its due date\'s row and event) until every due date is paid, while the same payments go on.',
    '',
    '| Database | Subscriptions | Run (s) | Due-date charges per second | `POST /api/v1/payments` per second alone | … during the run | Charges ÷ payments | Clean |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of runs) {
    lines.push(`| ${r.dialect} | ${r.subscriptions.toLocaleString('en')} | ${r.runSeconds} | ${r.chargesPerSecond} | ${r.paymentsAlonePerSecond} | ${r.paymentsDuringRunPerSecond} | ${r.ratio}× | ${r.ok && r.failures === 0 ? 'yes' : 'NO'} |`);
  }
  return { section: 'Subscriptions', markdown: lines.join('\n') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await bench();
  console.log(markdown);
}
