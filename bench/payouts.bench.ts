// bench/payouts: the daily automatic payout run for 10,000 merchants (BENCH_PAYOUT_MERCHANTS), each with a default
// EUR bank account and an available balance, while customers keep creating payment sessions through HTTP on the same
// service (API and worker in one process, as `motu serve` runs by default). Reports payouts per second during the run,
// and session creations per second before it (alone) and during it. Then checks that every merchant got exactly one
// payout of its whole balance and that `ledger verify` is clean.
// Run alone: `node --import tsx bench/payouts.bench.ts` (SQLite; also PostgreSQL when DATABASE_URL is set), or through
// `npm run bench`, which writes the "Payouts" section of docs/performance.md.
import { buildApp } from '../src/app.js';
import { buildServices } from '../src/compose.js';
import { parseConfig } from '../src/config.js';
import type { Database, Dialect } from '../src/db/database.js';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { post } from '../src/modules/ledger/postings.js';
import { MerchantsService } from '../src/modules/merchants/merchants.service.js';
import { systemClock } from '../src/shared/clock.js';
import { sha256Hex } from '../src/shared/hash.js';
import { secretBoxFor } from '../src/shared/secret-box.js';
import { freshDatabase } from '../test/support/harness.js';

const MERCHANTS = Number(process.env.BENCH_PAYOUT_MERCHANTS ?? '10000');
const BASELINE_SECONDS = Number(process.env.BENCH_SECONDS ?? '10');
const CONCURRENCY = 16;
const ADMIN = 'bench-admin-token-0123456789';

interface Run {
  dialect: Dialect;
  merchants: number;
  setupSeconds: number;
  runSeconds: number;
  payouts: number;
  payoutsPerSecond: number;
  sessionsAlonePerSecond: number;
  sessionsDuringRunPerSecond: number;
  failures: number;
  ok: boolean;
}

/** 10,000 merchants, each with a default EUR account and one available adjustment, written in batches. */
async function setup(db: Database, services: ReturnType<typeof buildServices>): Promise<void> {
  const at = new Date('2026-11-01T00:00:00.000Z');
  for (let start = 0; start < MERCHANTS; start += 500) {
    const ids = Array.from({ length: Math.min(500, MERCHANTS - start) }, (_, i) => `mer_payout${String(start + i).padStart(12, '0')}`);
    await db.kysely.insertInto('merchants').values(ids.map((id) => ({
      id, name: id, created_at: at.toISOString(), display_name: null, primary_color: null, accent_color: null, timezone: null,
    }))).execute();
    await db.transaction(async (trx) => {
      for (const [i, id] of ids.entries()) {
        await post(trx, { owner: { merchantId: id, mode: 'test', storeId: null }, type: 'adjustment', amount: 1000 + ((start + i) % 9000), currency: 'EUR', source: { type: 'adjustment', id: `txn_seed${id}` }, description: 'seed', at });
      }
    });
    for (const id of ids) {
      await services.bankAccounts.create({ merchantId: id, mode: 'test', storeId: null }, { iban: 'FR7630006000010000000000152', holderName: id, currency: 'EUR' });
    }
  }
}

async function runOn(dialect: Dialect): Promise<Run> {
  const database = await freshDatabase(dialect);
  const config = parseConfig({
    MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent', MOTU_ADMIN_TOKEN: ADMIN,
    MOTU_RATE_LIMIT_MAX: '10000000', MOTU_TOKENS_PER_MINUTE: '10000000', PORT: '0',
  });
  const db = database.db;
  const services = buildServices(config, db, systemClock);
  const t0 = performance.now();
  await setup(db, services);
  const setupSeconds = Math.round((performance.now() - t0) / 100) / 10;
  console.error(`payouts ${dialect}: ${MERCHANTS} merchants set up in ${setupSeconds} s`);

  const app = await buildApp(config, { db, adminTokenHash: sha256Hex(ADMIN), clock: systemClock });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const shop = await new MerchantsService(db, systemClock, secretBoxFor(config)).createMerchant({ name: 'Shop' });
  let failures = 0;
  /** Session creations by CONCURRENCY customers until `done()`; returns how many. */
  const sessions = async (done: () => boolean) => {
    let created = 0;
    const customer = async () => {
      while (!done()) {
        const res = await fetch(`${address}/api/v1/payments/sessions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${shop.testSecretKey}` },
          body: JSON.stringify({ order: { reference: `P-${created}`, amount: 1500, currency: 'EUR' }, email: 'buyer@example.com', redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/hook' }),
        });
        await res.arrayBuffer();
        if (res.status === 201) created += 1;
        else failures += 1;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, customer));
    return created;
  };

  await sessions(((until) => () => performance.now() > until)(performance.now() + 2000)); // warm-up
  const aloneStart = performance.now();
  const alone = await sessions(() => performance.now() - aloneStart > BASELINE_SECONDS * 1000);
  const aloneSeconds = (performance.now() - aloneStart) / 1000;

  let running = true;
  const runStart = performance.now();
  const [payouts, during] = await Promise.all([
    services.payoutSchedule.runDue(new Date()).finally(() => { running = false; }),
    sessions(() => !running),
  ]);
  const runSeconds = (performance.now() - runStart) / 1000;

  const paid = await db.kysely.selectFrom('payouts').select((eb) => eb.fn.countAll<number>().as('n')).where('automatic', '=', 1).executeTakeFirstOrThrow();
  const books = await verifyLedger(db);
  await app.close();
  await database.drop();
  const run: Run = {
    dialect, merchants: MERCHANTS, setupSeconds, runSeconds: Math.round(runSeconds * 10) / 10, payouts,
    payoutsPerSecond: Math.round(payouts / runSeconds), sessionsAlonePerSecond: Math.round(alone / aloneSeconds),
    sessionsDuringRunPerSecond: Math.round(during / runSeconds), failures, ok: books.ok && Number(paid.n) === MERCHANTS && payouts === MERCHANTS,
  };
  console.error(`payouts ${dialect}: ${JSON.stringify(run)}`);
  return run;
}

export default async function bench(): Promise<{ section: string; markdown: string }> {
  const dialects: Dialect[] = process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const runs: Run[] = [];
  for (const dialect of dialects) runs.push(await runOn(dialect));
  const lines = [
    `Method: \`bench/payouts.bench.ts\` sets up ${MERCHANTS.toLocaleString('en')} merchants, each with a default EUR bank account`,
    'and an available balance, starts the service in the process (API and worker together, as `motu serve` runs by',
    `default), measures session creations per second for ${BASELINE_SECONDS} s with ${CONCURRENCY} concurrent customers, then runs the daily`,
    'automatic payout run (`PayoutScheduleService.runDue`: every merchant\'s day claimed, its balance paid out with its',
    'payout transaction, carried transactions and `payout.created`) while the same customers go on, until the run ends.',
    'It then checks that every merchant got exactly one payout and that `ledger verify` is clean.',
    '',
    '| Database | Merchants | Run (s) | Payouts per second | Sessions per second alone | Sessions per second during the run | Clean |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of runs) {
    lines.push(`| ${r.dialect} | ${r.merchants.toLocaleString('en')} | ${r.runSeconds} | ${r.payoutsPerSecond} | ${r.sessionsAlonePerSecond} | ${r.sessionsDuringRunPerSecond} | ${r.ok && r.failures === 0 ? 'yes' : 'NO'} |`);
  }
  lines.push(
    '',
    'The run pays four merchants side by side; each payout is its own short transaction (the merchant\'s row locked on',
    'PostgreSQL while its balance is read and debited), so session creations go on during the run. On PostgreSQL a',
    'payout is a dozen round trips (claim the day, read the balance, lock, insert the payout, the transactions it',
    'carries, its ledger posting and its event), which bounds it well below SQLite, where each is a call in the process.',
  );
  return { section: 'Payouts', markdown: lines.join('\n') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await bench();
  console.log(markdown);
}
