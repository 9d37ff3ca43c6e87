// bench/payments-list: the payments list a back-office lives on, with 1,000,000 payments of one merchant
// (BENCH_PAYMENTS). The payments (and 20,000 customers) are written straight into the database in multi-row inserts;
// then the service listens on a real port and one client measures over HTTP, in the same run:
// GET /api/v1/payments/{id} (a single read, the yardstick), the list's first page, a page filtered by status and a
// 30-day range, a search by SPR reference (and by order reference through `q`), a customer email, a card's last 4,
// and the CSV export of every payment (rows per second, and the process's RSS before, during and after it).
// Run alone: `node --import tsx bench/payments-list.bench.ts` (SQLite; also PostgreSQL when DATABASE_URL is set), or
// through `npm run bench` (BENCH_ONLY=payments-list), which writes the "Payments list" section of docs/performance.md.
import os from 'node:os';
import { CompiledQuery, sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import type { Database, Dialect } from '../src/db/database.js';
import { MerchantsService } from '../src/modules/merchants/merchants.service.js';
import type { PaymentStatus } from '../src/modules/payments/payments.table.js';
import { systemClock } from '../src/shared/clock.js';
import { sha256Hex } from '../src/shared/hash.js';
import { newId, newPaymentReference } from '../src/shared/ids.js';
import { xpfToEurCents } from '../src/shared/money.js';
import { secretBoxFor } from '../src/shared/secret-box.js';
import { freshDatabase } from '../test/support/harness.js';

const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? '1000000');
const CUSTOMERS = 20_000;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? '300');
const ADMIN = 'bench-admin-token-0123456789';
export const YEAR_MS = 365 * 86_400_000;
/** The newest payment's time; the oldest is a year before. */
export const END = Date.parse('2026-11-01T00:00:00.000Z');

/** A deterministic pseudo-random sequence (the same data on both databases). */
function prng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x / 2 ** 32;
  };
}

/** Out of 100 payments: 62 captured, 10 failed, 12 expired, 3 cancelled, 4 refunded, 3 partially refunded, 5 pending, 1 in transit. */
const STATUS_MIX: [PaymentStatus, number][] = [
  ['captured', 62], ['failed', 10], ['expired', 12], ['cancelled', 3], ['refunded', 4], ['partially_refunded', 3], ['pending', 5], ['transit', 1],
];
const STATUS_OF: PaymentStatus[] = STATUS_MIX.flatMap(([s, n]) => Array<PaymentStatus>(n).fill(s));

export interface Seeded {
  /** A few payments to look up: id, SPR reference, order reference, email, last 4. */
  samples: { id: string; reference: string; orderReference: string; email: string | null; last4: string | null }[];
  insertSeconds: number;
}

/** `payments` payments of one merchant (and its 20,000 customers), a year of them, written in bulk (bench/growth too). */
export async function seed(db: Database, dialect: Dialect, merchantId: string, contractId: string, storeIds: string[], payments = PAYMENTS): Promise<Seeded> {
  const rand = prng(42);
  const t0 = performance.now();
  const at = new Date(END - YEAR_MS).toISOString();
  for (let start = 0; start < CUSTOMERS; start += 1000) {
    await db.kysely.insertInto('customers').values(Array.from({ length: 1000 }, (_, i) => {
      const n = start + i;
      return {
        id: `cus_bench${String(n).padStart(8, '0')}`, merchant_id: merchantId, mode: 'test' as const, email: `Customer${n}@Example.com`,
        email_key: `customer${n}@example.com`, external_id: null, name: null, phone: null, address: null, metadata: null, test_clock_id: null,
        created_at: at, updated_at: at,
      };
    })).execute();
  }
  const samples: Seeded['samples'] = [];
  // PostgreSQL allows 65,535 parameters a statement, SQLite 32,766: rows × ~50 columns under both.
  const batch = dialect === 'postgres' ? 1200 : 600;
  const orderJson = (ref: string, amount: number, currency: string) => JSON.stringify({ reference: ref, amount, currency });
  // As a bulk load is done: the rows written ten statements a transaction (one commit, one fsync), the table's
  // secondary indexes built again after (bulkLoad).
  const pending: CompiledQuery[] = [];
  const inFlight: Promise<void>[] = [];
  await bulkLoad(db, dialect, ['payments'], async () => {
    for (let start = 0; start < payments; start += batch) {
      const rows = [];
      for (let i = start; i < Math.min(start + batch, payments); i++) {
        const createdMs = END - YEAR_MS + Math.floor((i * YEAR_MS) / payments);
        const created = new Date(createdMs).toISOString();
        const status = STATUS_OF[Math.floor(rand() * 100)]!;
        const currency = rand() < 0.7 ? 'XPF' : 'EUR';
        const amount = currency === 'XPF' ? 500 + Math.floor(rand() * 50_000) : 100 + Math.floor(rand() * 40_000);
        const amountEur = currency === 'XPF' ? xpfToEurCents(amount) : amount;
        const who = rand();
        // 45 %: a known customer paying with its email; 10 %: a saved card charged (no email on the payment); 45 %: anonymous.
        const customer = who < 0.55 ? Math.floor(rand() * CUSTOMERS) : null;
        const email = who < 0.45 ? `customer${customer}@example.com` : who < 0.55 ? null : `buyer${i}@mail.example`;
        const carded = status !== 'pending' && status !== 'expired';
        const last4 = carded ? String(Math.floor(rand() * 10_000)).padStart(4, '0') : null;
        const paid = status === 'captured' || status === 'refunded' || status === 'partially_refunded';
        const refunded = status === 'refunded' ? amount : status === 'partially_refunded' ? Math.floor(amount / 2) : 0;
        const orderReference = `ORD-${String(i).padStart(7, '0')}`;
        const row = {
          id: newId('pay'), merchant_id: merchantId, mode: 'test' as const, session_id: null, status, reference: newPaymentReference(createdMs),
          order_reference: orderReference, external_id: null, amount, currency, amount_eur_cents: amountEur, tax_amount: 0, is_incl_tax_amount: 1,
          order_json: orderJson(orderReference, amount, currency), capture_mode: 'AUTO' as const, store_id: storeIds[i % storeIds.length]!,
          contract_id: contractId, customer_id: customer === null ? null : `cus_bench${String(customer).padStart(8, '0')}`, customer_created: 0,
          email, save_customer: 0, notification_url: 'https://shop.example/hook', private_data: null,
          authorized_amount: paid || status === 'transit' ? amount : 0, captured_amount: paid ? amount : 0, disputed_amount: 0,
          refunded_amount: refunded, refusal_code: status === 'failed' ? 'insufficient_funds' : null, refusal_message: null,
          payment_method_id: null, card_brand: carded ? (rand() < 0.6 ? 'visa' : 'mastercard') : null, card_last4: last4,
          card_network: carded ? 'CB' : null, authorized_at: paid ? created : null, captured_at: paid ? created : null, settled: paid ? 1 : 0,
          acquirer_authorization_id: null, operation: null, operation_at: null, refund_reserved: 0, authorization_attempts: carded ? 1 : 0,
          settled_at: paid ? created : null, invoice_id: null, subscription_id: null, due_date: null, test_clock_id: null,
          created_at: created, updated_at: created,
        };
        rows.push(row);
        if (i % Math.max(1, Math.floor(payments / 50)) === 7) samples.push({ id: row.id, reference: row.reference, orderReference, email, last4 });
      }
      pending.push(insertStatement(dialect, rows));
      if (pending.length === 10 || start + batch >= payments) {
        const statements = pending.splice(0);
        const write = db.transaction(async (trx) => {
          for (const statement of statements) await trx.executeQuery(statement);
        });
        // PostgreSQL: up to three transactions in flight (its own processes write them side by side).
        inFlight.push(write);
        if (dialect === 'sqlite' || inFlight.length >= 3) await inFlight.shift();
      }
    }
    await Promise.all(inFlight);
  });
  return { samples, insertSeconds: (performance.now() - t0) / 1000 };
}

/**
 * Runs `load` as a bulk load is done: the tables' secondary indexes dropped, then each built again from its own
 * definition, in one sort; on SQLite with a larger page cache while loading only. PostgreSQL's autovacuum analyzes
 * tables this size within a minute of the load; the benchmark does not wait for it and analyzes them.
 */
export async function bulkLoad(db: Database, dialect: Dialect, tables: string[], load: () => Promise<void>): Promise<void> {
  const indexes: { name: string; definition: string }[] = [];
  for (const table of tables) {
    indexes.push(...(dialect === 'sqlite'
      ? (await sql<{ name: string; definition: string }>`select name, sql as definition from sqlite_master where type = 'index' and tbl_name = ${table} and sql is not null`.execute(db.kysely)).rows
      : (await sql<{ name: string; definition: string }>`select indexname as name, indexdef as definition from pg_indexes where tablename = ${table} and indexname not in (select conname from pg_constraint)`.execute(db.kysely)).rows));
  }
  for (const index of indexes) await sql`drop index ${sql.id(index.name)}`.execute(db.kysely);
  const cacheSize = dialect === 'sqlite' ? (await sql<{ cache_size: number }>`pragma cache_size`.execute(db.kysely)).rows[0]!.cache_size : 0;
  if (dialect === 'sqlite') await sql`pragma cache_size = -262144`.execute(db.kysely);
  try {
    await load();
  } finally {
    for (const index of indexes) await sql.raw(index.definition).execute(db.kysely);
    if (dialect === 'sqlite') await sql.raw(`pragma cache_size = ${cacheSize}`).execute(db.kysely);
    if (dialect === 'postgres') for (const table of tables) await sql`analyze ${sql.id(table)}`.execute(db.kysely);
  }
}

/**
 * One multi-row INSERT, its text and parameters written here: Kysely's compiler, made to check every value of every
 * row, took longer than the database to write them.
 */
function insertStatement(dialect: Dialect, rows: Record<string, unknown>[]): CompiledQuery {
  const columns = Object.keys(rows[0]!);
  const parameters: unknown[] = [];
  const tuples = rows.map((row) => `(${columns.map((c) => {
    parameters.push(row[c]);
    return dialect === 'postgres' ? `$${parameters.length}` : '?';
  }).join(',')})`);
  return CompiledQuery.raw(`insert into payments (${columns.map((c) => `"${c}"`).join(',')}) values ${tuples.join(',')}`, parameters);
}

interface Timing {
  label: string;
  url: string;
  p50: number;
  p95: number;
  rows: number;
}

interface Run {
  dialect: Dialect;
  payments: number;
  insertSeconds: number;
  insertRowsPerSecond: number;
  timings: Timing[];
  csv: {
    rows: number; seconds: number; rowsPerSecond: number; mib: number; rssBefore: number; rssDuring: number; rssAfter: number;
    /** The highest RSS and V8 heap in use (MiB) over each quarter of the rows: flat when nothing piles up. */
    quarters: { rss: number; heap: number }[];
  };
  ok: boolean;
  failures: string[];
}

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function runOn(dialect: Dialect): Promise<Run> {
  const database = await freshDatabase(dialect);
  const config = parseConfig({
    MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent', MOTU_ADMIN_TOKEN: ADMIN,
    MOTU_RATE_LIMIT_MAX: '10000000', MOTU_TOKENS_PER_MINUTE: '10000000', PORT: '0',
  });
  const db = database.db;
  const shop = await new MerchantsService(db, systemClock, secretBoxFor(config)).createMerchant({ name: 'Shop' });
  const stores = ['web', 'papeete', 'moorea'].map((code) => ({
    id: newId('sto'), merchant_id: shop.id, code, name: code, kind: code === 'web' ? 'online' as const : 'physical' as const, active: 1,
    contract_id: null, created_at: new Date(END - YEAR_MS).toISOString(),
  }));
  await db.kysely.insertInto('stores').values(stores).execute();
  const seeded = await seed(db, dialect, shop.id, shop.defaultContractId, stores.map((s) => s.id));
  console.error(`payments-list ${dialect}: ${PAYMENTS} payments written in ${seeded.insertSeconds.toFixed(1)} s`);

  const app = await buildApp(config, { db, adminTokenHash: sha256Hex(ADMIN), clock: systemClock });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const headers = { authorization: `Bearer ${shop.testSecretKey}` };
  const failures: string[] = [];
  const get = async (url: string) => {
    const res = await fetch(`${address}${url}`, { headers });
    const body = await res.json() as { data?: unknown[]; id?: string };
    if (res.status !== 200) failures.push(`${url}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
    return body;
  };
  /** SAMPLES sequential requests (after 20 to warm up), each URL made by `url(i)`; median and 95th percentile in ms. */
  const measure = async (label: string, url: (i: number) => string, expectRows?: (rows: number) => boolean): Promise<Timing> => {
    for (let i = 0; i < 20; i++) await get(url(i));
    const times: number[] = [];
    let rows = 0;
    for (let i = 0; i < SAMPLES; i++) {
      const t = performance.now();
      const body = await get(url(i));
      times.push(performance.now() - t);
      rows = Array.isArray(body.data) ? body.data.length : body.id ? 1 : 0;
      if (expectRows && !expectRows(rows)) failures.push(`${label}: ${rows} rows for ${url(i)}`);
    }
    times.sort((a, b) => a - b);
    const round = (ms: number) => Math.round(ms * 100) / 100;
    const timing = { label, url: url(0), p50: round(quantile(times, 0.5)), p95: round(quantile(times, 0.95)), rows };
    console.error(`payments-list ${dialect}: ${label} p50 ${timing.p50} ms p95 ${timing.p95} ms (${rows} rows) ${timing.url}`);
    return timing;
  };
  const s = seeded.samples;
  const pick = <T>(i: number, f: (x: Seeded['samples'][number]) => T) => f(s[i % s.length]!);
  const month = (i: number) => {
    const from = END - YEAR_MS + ((i * 7) % 330) * 86_400_000;
    return `createdFrom=${encodeURIComponent(new Date(from).toISOString())}&createdTo=${encodeURIComponent(new Date(from + 30 * 86_400_000).toISOString())}`;
  };
  const emailed = s.filter((x) => x.email?.startsWith('customer'));
  const carded = s.filter((x) => x.last4);
  const timings = [
    await measure('single read, GET /payments/{id}', (i) => `/api/v1/payments/${pick(i, (x) => x.id)}`, (n) => n === 1),
    await measure('first page (20)', () => '/api/v1/payments', (n) => n === 20),
    await measure('first page (100)', () => '/api/v1/payments?limit=100', (n) => n === 100),
    await measure('status captured + 30 days', (i) => `/api/v1/payments?status=captured&${month(i)}`, (n) => n === 20),
    await measure('status in transit (1 %) + 30 days', (i) => `/api/v1/payments?status=transit&${month(i)}`, (n) => n >= 1),
    await measure('reference=SPR-…', (i) => `/api/v1/payments?reference=${pick(i, (x) => x.reference)}`, (n) => n === 1),
    await measure('q=order reference', (i) => `/api/v1/payments?q=${pick(i, (x) => x.orderReference)}`, (n) => n === 1),
    await measure('q=pay_… id', (i) => `/api/v1/payments?q=${pick(i, (x) => x.id)}`, (n) => n === 1),
    await measure('customerEmail (a customer’s ~55 payments)', (i) => `/api/v1/payments?customerEmail=${encodeURIComponent(emailed[i % emailed.length]!.email!.toUpperCase())}`, (n) => n >= 1),
    await measure('cardLast4 (~1 in 10,000)', (i) => `/api/v1/payments?cardLast4=${carded[i % carded.length]!.last4}`, (n) => n >= 1),
    await measure('currency EUR + amount 100.00–150.00 €', () => '/api/v1/payments?currency=EUR&amountMin=10000&amountMax=15000', (n) => n === 20),
  ];

  // The export: every payment, read as it streams; RSS sampled every 50 ms meanwhile.
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 500));
  const rssBefore = process.memoryUsage().rss;
  let rssDuring = rssBefore;
  let lines = 0;
  const quarters = [0, 1, 2, 3].map(() => ({ rss: 0, heap: 0 }));
  const sample = () => {
    const { rss, heapUsed } = process.memoryUsage();
    rssDuring = Math.max(rssDuring, rss);
    const quarter = quarters[Math.min(3, Math.floor((4 * lines) / (PAYMENTS + 1)))]!;
    quarter.rss = Math.max(quarter.rss, rss);
    quarter.heap = Math.max(quarter.heap, heapUsed);
  };
  const sampler = setInterval(sample, 50);
  const t = performance.now();
  const res = await fetch(`${address}/api/v1/payments`, { headers: { ...headers, accept: 'text/csv' } });
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let k = chunk.indexOf(10); k !== -1; k = chunk.indexOf(10, k + 1)) lines++;
    sample();
  }
  const seconds = (performance.now() - t) / 1000;
  clearInterval(sampler);
  sample();
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 500));
  const rssAfter = process.memoryUsage().rss;
  const csvRows = lines - 1;
  if (res.status !== 200 || csvRows !== PAYMENTS) failures.push(`CSV: status ${res.status}, ${csvRows} rows of ${PAYMENTS}`);
  const csv = {
    rows: csvRows, seconds: Math.round(seconds * 10) / 10, rowsPerSecond: Math.round(csvRows / seconds), mib: mib(bytes),
    rssBefore: mib(rssBefore), rssDuring: mib(rssDuring), rssAfter: mib(rssAfter), quarters: quarters.map((q) => ({ rss: mib(q.rss), heap: mib(q.heap) })),
  };
  console.error(`payments-list ${dialect}: CSV ${JSON.stringify(csv)}`);

  await app.close();
  if (process.env.BENCH_KEEP) console.error(`payments-list ${dialect}: database kept: ${database.databaseUrl ?? database.dataDir}`);
  else await database.drop();
  return {
    dialect, payments: PAYMENTS, insertSeconds: Math.round(seeded.insertSeconds * 10) / 10,
    insertRowsPerSecond: Math.round(PAYMENTS / seeded.insertSeconds), timings, csv, ok: failures.length === 0, failures,
  };
}

export default async function bench(): Promise<{ section: string; markdown: string }> {
  const dialects: Dialect[] = process.env.BENCH_DIALECTS
    ? (process.env.BENCH_DIALECTS.split(',') as Dialect[])
    : process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const runs: Run[] = [];
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' / ');
  for (const dialect of dialects) runs.push(await runOn(dialect));
  for (const r of runs) if (!r.ok) console.error(`payments-list ${r.dialect}: FAILURES\n${r.failures.slice(0, 20).join('\n')}`);
  const n = PAYMENTS.toLocaleString('en');
  const lines = [
    `Method: \`bench/payments-list.bench.ts\` writes ${n} payments of one merchant (test mode, a year of them, three stores,`,
    `${CUSTOMERS.toLocaleString('en')} customers; statuses, currencies, amounts, emails and cards drawn as a shop would have them) in multi-row inserts`,
    '(a bulk load: the secondary indexes dropped, then each built again from its definition),',
    'then starts the service in the process on a real port and one client asks, one request at a time over HTTP (keep-alive),',
    `${SAMPLES} times each after 20 to warm up (varying the id, reference, email or 30-day window): the median and 95th percentile`,
    'of each request, answered and read in full. Then the CSV export of every payment (`Accept: text/csv`), read as it streams,',
    'with the process\'s resident memory (server and client are this one process) before, at its highest during (sampled every',
    '50 ms), and after it. PostgreSQL is analyzed after the load (autovacuum would do it within a minute); SQLite runs as the',
    'service runs it (no ANALYZE: the plans come from the indexes alone).',
    `Load average when the run started: ${load} (the machine may be shared: read the ratios more than the milliseconds).`,
    '',
    '| Database | Request | Rows | p50 (ms) | p95 (ms) | p50 ÷ single read |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of runs) {
    const single = r.timings[0]!.p50;
    for (const t of r.timings) lines.push(`| ${r.dialect} | ${t.label} | ${t.rows} | ${t.p50} | ${t.p95} | ${(t.p50 / single).toFixed(2)}× |`);
  }
  lines.push(
    '',
    '| Database | Payments | Written in (s) | Rows written per second | CSV rows | CSV (s) | CSV rows per second | CSV size (MiB) | RSS before (MiB) | RSS during, highest (MiB) | RSS after (MiB) | All answers right |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const r of runs) {
    lines.push(`| ${r.dialect} | ${r.payments.toLocaleString('en')} | ${r.insertSeconds} | ${r.insertRowsPerSecond} | ${r.csv.rows.toLocaleString('en')} | ${r.csv.seconds} | ${r.csv.rowsPerSecond} | ${r.csv.mib} | ${r.csv.rssBefore} | ${r.csv.rssDuring} | ${r.csv.rssAfter} | ${r.ok ? 'yes' : 'NO'} |`);
  }
  lines.push(
    '',
    'Memory over the export, each quarter of its rows: the highest RSS, and the highest V8 heap in use (MiB). Flat from one quarter',
    'to the next: the rows go out as they are read, nothing piles up (the whole CSV, or the rows, held at once, would grow by',
    'its size with every quarter).',
    '',
    '| Database | 1st quarter RSS / heap | 2nd | 3rd | 4th |',
    '|---|---|---|---|---|',
  );
  for (const r of runs) lines.push(`| ${r.dialect} | ${r.csv.quarters.map((q) => `${q.rss} / ${q.heap}`).join(' | ')} |`);
  lines.push('', 'Against the goal (every list request within 3× a single read, at the median; the export in constant memory):', '');
  for (const r of runs) {
    const single = r.timings[0]!.p50;
    const worst = r.timings.slice(1).reduce((a, b) => (b.p50 > a.p50 ? b : a));
    const ratio = worst.p50 / single;
    lines.push(`- ${r.dialect}: the slowest list request, ${worst.label}, took ${ratio.toFixed(2)}× a single read (${ratio <= 3 ? 'within' : 'NOT within'} 3×); `
      + `the export wrote ${r.csv.rowsPerSecond.toLocaleString('en')} rows per second, its RSS at most ${r.csv.rssDuring - r.csv.rssBefore} MiB above where it started `
      + `for ${r.csv.mib} MiB of CSV.`);
  }
  lines.push(
    '',
    'Every request above reads an index in the list\'s order and stops at the page: the plain list `(merchant, mode, created_at,',
    'id)`, a status `(merchant, mode, status, created_at, id)`, a card\'s last 4 and an email their own; a reference, an id or',
    'an email in `q` are lookups (the matching ids first, then only those sorted). The amount range is tested on the rows the',
    'list reads: it keeps about one EUR payment in eight here, so the page is found after some 500 rows; a range almost nothing',
    'falls in would read far more (docs/payments.md, *Listing and searching*). A single read costs more than its one row',
    'suggests: it also lists the acquirer\'s attempts, the refunds and the contract for the fees. The export is CPU-bound',
    '(each row\'s fees computed exactly, then quoted): 1,000 rows a query, each query starting its index scan at the last',
    'row sent (`src/shared/pagination.ts`); before that bound, each batch read the list from its head, and an export of a',
    'million payments ran at about 1,300 rows per second on SQLite.',
  );
  return { section: 'Payments list', markdown: lines.join('\n') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await bench();
  console.log(markdown);
}
