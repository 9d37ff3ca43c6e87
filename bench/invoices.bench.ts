// bench/invoices: invoice finalization under 32 concurrent clients, against payment session creations in the same run
// (API in one process). Finalizing takes the next number of a series (one counter row per merchant, mode, series and
// year): the clients of one merchant take turns on that row, those of different merchants do not. Reports, for one
// merchant and for eight, finalizations per second with session creations per second beside them, and checks that
// every series is continuous (1…n, no gap, no duplicate).
// Run alone: `node --import tsx bench/invoices.bench.ts` (SQLite; also PostgreSQL when DATABASE_URL is set), or
// through `npm run bench`, which writes the "Invoices" section of docs/performance.md.
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import type { Dialect } from '../src/db/database.js';
import { MerchantsService } from '../src/modules/merchants/merchants.service.js';
import { systemClock } from '../src/shared/clock.js';
import { sha256Hex } from '../src/shared/hash.js';
import { secretBoxFor } from '../src/shared/secret-box.js';
import { freshDatabase } from '../test/support/harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? '10');
const CLIENTS = 32;
const ADMIN = 'bench-admin-token-0123456789';

interface Run { dialect: Dialect; merchants: number; finalizationsPerSecond: number; sessionsPerSecond: number; sessionsAlonePerSecond: number; continuous: boolean; failures: number }

async function runOn(dialect: Dialect, merchantCount: number): Promise<Run> {
  const database = await freshDatabase(dialect);
  const config = parseConfig({
    MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent', MOTU_ADMIN_TOKEN: ADMIN,
    MOTU_RATE_LIMIT_MAX: '10000000', MOTU_TOKENS_PER_MINUTE: '10000000', PORT: '0',
  });
  const db = database.db;
  const app = await buildApp(config, { db, adminTokenHash: sha256Hex(ADMIN), clock: systemClock });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const merchants = new MerchantsService(db, systemClock, secretBoxFor(config));
  const call = async (key: string, method: string, url: string, body?: unknown) => {
    const res = await fetch(`${address}${url}`, {
      method, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const sellers: Array<{ key: string; customerId: string }> = [];
  for (let i = 0; i < merchantCount; i++) {
    const m = await merchants.createMerchant({ name: `Seller ${i}` });
    await merchants.updateMerchant(m.id, { legalName: `Seller ${i} SARL`, address: { line1: '1 rue', postalCode: '98713', city: 'Papeete', country: 'PF' }, registrationNumber: `T${i}` });
    const customer = await call(m.testSecretKey, 'POST', '/api/v1/customers', { name: 'C' });
    sellers.push({ key: m.testSecretKey, customerId: customer.body.id });
  }
  const shop = await merchants.createMerchant({ name: 'Shop' });
  let failures = 0;
  const sessionLoop = async (done: () => boolean) => {
    let made = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = 0; !done(); i++) {
        const res = await call(shop.testSecretKey, 'POST', '/api/v1/payments/sessions', { order: { reference: `S-${c}-${i}`, amount: 1000, currency: 'EUR' }, redirectUrl: 'https://shop.example/r', notificationUrl: 'https://shop.example/h' });
        if (res.status === 201) made += 1; else failures += 1;
      }
    }));
    return made;
  };
  const finalizeLoop = async (done: () => boolean) => {
    let made = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
      const seller = sellers[c % sellers.length]!;
      while (!done()) {
        const draft = await call(seller.key, 'POST', '/api/v1/billing/invoices', { customerId: seller.customerId, currency: 'XPF', lines: [{ description: 'L', quantity: 1, unitPrice: 1000, taxRate: 1300 }] });
        const res = await call(seller.key, 'POST', `/api/v1/billing/invoices/${draft.body.id}/finalize`);
        if (res.status === 200) made += 1; else failures += 1;
      }
    }));
    return made;
  };
  const timed = (ms: number) => { const until = performance.now() + ms; return () => performance.now() > until; };
  await sessionLoop(timed(2000));
  let t0 = performance.now();
  const alone = await sessionLoop(timed(SECONDS * 1000));
  const aloneSeconds = (performance.now() - t0) / 1000;
  t0 = performance.now();
  const stop = timed(SECONDS * 1000);
  const [finalized, sessions] = await Promise.all([finalizeLoop(stop), sessionLoop(stop)]);
  const seconds = (performance.now() - t0) / 1000;
  const series = await db.kysely.selectFrom('invoices').select(['merchant_id', 'number']).where('number', 'is not', null).execute();
  let continuous = true;
  for (const merchantId of new Set(series.map((r) => r.merchant_id))) {
    const numbers = series.filter((r) => r.merchant_id === merchantId).map((r) => Number(r.number!.split('-')[2])).sort((a, b) => a - b);
    continuous &&= numbers.every((n, i) => n === i + 1);
  }
  await app.close();
  await database.drop();
  const run = {
    dialect, merchants: merchantCount, finalizationsPerSecond: Math.round(finalized / seconds), sessionsPerSecond: Math.round(sessions / seconds),
    sessionsAlonePerSecond: Math.round(alone / aloneSeconds), continuous, failures,
  };
  console.error(`invoices ${dialect}: ${JSON.stringify(run)}`);
  return run;
}

export default async function bench(): Promise<{ section: string; markdown: string }> {
  const dialects: Dialect[] = process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const runs: Run[] = [];
  for (const dialect of dialects) for (const count of [1, 8]) runs.push(await runOn(dialect, count));
  const lines = [
    `Method: \`bench/invoices.bench.ts\` runs the API in the process, measures session creations for ${SECONDS} s with ${CLIENTS} clients,`,
    `then for ${SECONDS} s ${CLIENTS} clients create and finalize invoices (of one merchant, or spread over eight) while ${CLIENTS} others go on`,
    'creating sessions, and checks that every merchant\'s series is 1…n with no gap and no duplicate.',
    '',
    '| Database | Merchants finalizing | Finalizations per second | Session creations per second, same run | … alone | Series continuous |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of runs) lines.push(`| ${r.dialect} | ${r.merchants} | ${r.finalizationsPerSecond} | ${r.sessionsPerSecond} | ${r.sessionsAlonePerSecond} | ${r.continuous && r.failures === 0 ? 'yes' : 'NO'} |`);
  lines.push(
    '',
    'A finalization is one short transaction: the counter row of the series incremented by one upsert (which holds the',
    'other finalizations of that series until it commits, on PostgreSQL), the invoice updated and its event recorded.',
    'Nothing else waits on it: other merchants, modes and the credit-note series have their own rows.',
  );
  return { section: 'Invoices', markdown: lines.join('\n') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await bench();
  console.log(markdown);
}
