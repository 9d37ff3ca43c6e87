// bench/growth: what a merchant's everyday requests cost once the database holds years of traffic. One run measures
// each request on the empty database (one merchant, nothing else), then fills that same database with
// BENCH_GROWTH_PAYMENTS payments (10,000,000 by default) and everything they leave behind, and measures again:
// - the payments: a template of up to 50,000 written by bench/payments-list's `seed` (its status, currency, customer
//   and card mix, a year of them), then copied in bulk (INSERT … SELECT, new ids and references) up to the size;
// - for each payment an event, its delivery (succeeded) and the delivery's attempt; for each captured payment its
//   balance transaction, entry posting and two ledger lines, and for each refunded one the refund's; an invoice, paid,
//   for about one payment of a customer in 30. The books balance: `motu ledger verify` finds them clean.
// Measured, one request at a time over HTTP on a real port (the median of BENCH_GROWTH_SAMPLES, after a warm-up):
// session creation; the whole payment (session, card token, pay, capture: bench/checkout's `payThrough`);
// GET /api/v1/payments (first page, a status over 30 days, a reference); GET /api/v1/events; the back-office's home
// and its payments list (a signed-in user's cookie); and `verifyLedger` (what `motu ledger verify` runs).
// Target: each at least 0.8× as fast as on the empty database. Also written: the database's size per payment.
// Run alone: `node --import tsx bench/growth.bench.ts` (SQLite; PostgreSQL too when DATABASE_URL is set;
// BENCH_DIALECTS=postgres for one), or `BENCH_ONLY=growth npm run bench`, which writes the "Growth" section.
import os from 'node:os';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import type { Database, Dialect } from '../src/db/database.js';
import { rebuildRunningBalances } from '../src/modules/ledger/running-balance.js';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { MerchantsService } from '../src/modules/merchants/merchants.service.js';
import { systemClock } from '../src/shared/clock.js';
import { sha256Hex } from '../src/shared/hash.js';
import { newId } from '../src/shared/ids.js';
import { secretBoxFor } from '../src/shared/secret-box.js';
import { freshDatabase } from '../test/support/harness.js';
import { payThrough, poster } from './checkout.bench.js';
import { bulkLoad, END, seed, YEAR_MS } from './payments-list.bench.js';

const PAYMENTS = Number(process.env.BENCH_GROWTH_PAYMENTS ?? '10000000');
const SAMPLES = Number(process.env.BENCH_GROWTH_SAMPLES ?? '50');
const TEMPLATE = Math.min(PAYMENTS, 50_000);
const ADMIN = 'bench-admin-token-0123456789';
const PASSWORD = 'correct horse battery staple';
const HOOK = 'https://shop.example/hook';
if (!Number.isInteger(PAYMENTS) || PAYMENTS < 1) throw new Error('BENCH_GROWTH_PAYMENTS must be a whole number ≥ 1');
if (!Number.isInteger(SAMPLES) || SAMPLES < 1) throw new Error('BENCH_GROWTH_SAMPLES must be a whole number ≥ 1');

interface Figure { label: string; empty: number; full: number }
interface Run {
  dialect: Dialect;
  payments: number;
  fillSeconds: number;
  bytesEmpty: number;
  bytesFull: number;
  rows: Record<string, number>;
  figures: Figure[];
  ledgerClean: boolean;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
};
const ms = (n: number) => Math.round(n * 100) / 100;

async function databaseBytes(db: Database, dialect: Dialect): Promise<number> {
  if (dialect === 'sqlite') {
    await sql`pragma wal_checkpoint(truncate)`.execute(db.kysely);
    const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(db.kysely)).rows[0]!.page_count;
    const size = (await sql<{ page_size: number }>`pragma page_size`.execute(db.kysely)).rows[0]!.page_size;
    return Number(pages) * Number(size);
  }
  return Number((await sql<{ n: string }>`select pg_database_size(current_database()) as n`.execute(db.kysely)).rows[0]!.n);
}

/**
 * Copies `limit` of the template's payments (those `seed` wrote: no session, ids of `idLength`) as copy `k`: new ids and
 * references, the rest as it is.
 */
async function copyPayments(db: Database, columns: string[], idLength: number, k: number, limit: number): Promise<void> {
  const tag = `g${k.toString(36).padStart(3, '0')}`;
  const value = (c: string) => {
    if (c === 'id') return `'pay_${tag}' || substr(id, 5)`;
    if (c === 'reference') return `reference || '-${tag}'`;
    if (c === 'order_reference') return `order_reference || '-${tag}'`;
    return `"${c}"`;
  };
  await sql.raw(`insert into payments (${columns.map((c) => `"${c}"`).join(',')})
    select ${columns.map(value).join(',')} from payments where session_id is null and length(id) = ${idLength}
    order by id limit ${limit}`).execute(db.kysely);
}

/** Everything the generated payments leave behind, written from them in a few INSERT … SELECT. */
async function fillAround(db: Database): Promise<void> {
  const generated = `p.session_id is null and p.notification_url = '${HOOK}'`;
  const run = (text: string) => sql.raw(text).execute(db.kysely);
  await run(`insert into webhook_events (id, merchant_id, mode, type, payment_id, body, created_at)
    select 'evt_g' || substr(p.id, 5), p.merchant_id, p.mode, 'payment.' || p.status, p.id,
      '{"id":"evt_g' || substr(p.id, 5) || '","type":"payment.' || p.status || '","createdAt":"' || p.created_at || '","data":{"paymentId":"' || p.id || '"}}',
      p.created_at
    from payments p where ${generated}`);
  await run(`insert into webhook_deliveries (id, event_id, merchant_id, mode, endpoint_id, url, target_key, event_seq, status, attempt_count,
      next_attempt_at, claim_token, lease_until, last_status_code, last_error, created_at, updated_at)
    select 'del_g' || substr(e.id, 6), e.id, e.merchant_id, e.mode, null, '${HOOK}', 'url:${HOOK}', e.seq, 'succeeded', 1,
      e.created_at, null, null, 200, null, e.created_at, e.created_at
    from webhook_events e where e.id like 'evt\\_g%' escape '\\'`);
  await run(`insert into webhook_attempts (id, delivery_id, event_id, attempt, started_at, status_code, latency_ms, succeeded, response_excerpt, error)
    select 'att_g' || substr(d.id, 6), d.id, d.event_id, 1, d.created_at, 200, 40, 1, 'ok', null
    from webhook_deliveries d where d.id like 'del\\_g%' escape '\\'`);
  await run(`insert into balance_transactions (id, merchant_id, mode, store_id, type, amount, currency, amount_eur, pending, source_type, source_id, payment_id, description, created_at)
    select 'txn_g' || substr(p.id, 5), p.merchant_id, p.mode, p.store_id, 'payment', p.captured_amount, p.currency, p.amount_eur_cents, 0, 'payment', p.id, p.id, null, p.captured_at
    from payments p where ${generated} and p.captured_amount > 0`);
  await run(`insert into balance_transactions (id, merchant_id, mode, store_id, type, amount, currency, amount_eur, pending, source_type, source_id, payment_id, description, created_at)
    select 'txn_r' || substr(p.id, 5), p.merchant_id, p.mode, p.store_id, 'refund', -p.refunded_amount, p.currency, -p.refunded_amount, 0, 'refund', 'ref_g' || substr(p.id, 5), p.id, null, p.captured_at
    from payments p where ${generated} and p.refunded_amount > 0`);
  await run(`insert into ledger_postings (id, merchant_id, mode, currency, kind, transaction_id, created_at)
    select 'lpo_' || t.id, t.merchant_id, t.mode, t.currency, 'entry', t.id, t.created_at
    from balance_transactions t where t.id like 'txn\\_g%' escape '\\' or t.id like 'txn\\_r%' escape '\\'`);
  for (const [account, sign] of [['merchant_available', ''], ['acquirer_clearing', '-']] as const) {
    await run(`insert into ledger_lines (posting_id, merchant_id, mode, store_id, currency, account, amount)
      select 'lpo_' || t.id, t.merchant_id, t.mode, t.store_id, t.currency, '${account}', ${sign}t.amount
      from balance_transactions t where t.id like 'txn\\_g%' escape '\\' or t.id like 'txn\\_r%' escape '\\'`);
  }
  await run(`insert into invoices (id, merchant_id, mode, customer_id, subscription_id, payment_id, currency, status, number, lines, taxes, memo,
      days_until_due, due_date, subtotal, total, amount_paid, amount_credited, content_hash, overdue, finalized_at, paid_at, sent_at, page_token,
      pay_payment_id, test_clock_id, created_at, updated_at)
    select 'inv_g' || substr(p.id, 5), p.merchant_id, p.mode, p.customer_id, null, p.id, p.currency, 'paid', 'G-' || substr(p.id, 5),
      '[{"description":"Order","quantity":1,"unitAmount":' || p.amount || '}]', '[]', null, 30, substr(p.created_at, 1, 10), p.amount, p.amount, p.amount, 0,
      null, 0, p.created_at, p.captured_at, null, null, null, null, p.created_at, p.created_at
    from payments p where ${generated} and p.customer_id is not null and p.status = 'captured' and substr(p.id, length(p.id), 1) in ('a', 'B')`);
  // The running balances (ledger_balances), as the postings of these lines would have left them.
  await rebuildRunningBalances(db.kysely);
  // The ledger began before the oldest payment: verify checks every captured payment against its transactions.
  await run(`update settings set value = '${new Date(END - 2 * YEAR_MS).toISOString()}' where name = 'ledger.started_at'`);
}

async function count(db: Database, table: string): Promise<number> {
  return Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db.kysely)).rows[0]!.n);
}

async function runOn(dialect: Dialect): Promise<Run> {
  const database = await freshDatabase(dialect);
  const db = database.db;
  const config = parseConfig({
    MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent', MOTU_ADMIN_TOKEN: ADMIN,
    MOTU_RATE_LIMIT_MAX: '10000000', MOTU_TOKENS_PER_MINUTE: '10000000', PORT: '0',
  });
  const shop = await new MerchantsService(db, systemClock, secretBoxFor(config)).createMerchant({ name: 'Shop' });
  const stores = ['web', 'papeete', 'moorea'].map((code) => ({
    id: newId('sto'), merchant_id: shop.id, code, name: code, kind: code === 'web' ? 'online' as const : 'physical' as const, active: 1,
    contract_id: null, created_at: new Date(END - YEAR_MS).toISOString(),
  }));
  await db.kysely.insertInto('stores').values(stores).execute();
  const app = await buildApp(config, { db, adminTokenHash: sha256Hex(ADMIN), clock: systemClock });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const post = poster(address);
  const key = shop.testSecretKey;

  // A back-office user (owner), set up through its link: the cookie the back-office's pages call with.
  const made = await fetch(`${address}/admin/v1/merchants/${shop.id}/users`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@shop.example', role: 'owner' }),
  }).then((r) => r.json()) as { setupUrl: string };
  const setup = await fetch(`${address}/dashboard/api/setup`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: made.setupUrl.split('/').at(-1), password: PASSWORD }),
  });
  if (setup.status !== 200) throw new Error(`back-office set-up: ${setup.status} ${await setup.text()}`);
  const cookie = setup.headers.getSetCookie()[0]!.split(';')[0]!;

  const get = async (url: string, headers: Record<string, string>) => {
    const res = await fetch(`${address}${url}`, { headers });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body.slice(0, 200)}`);
    return body;
  };
  const asMerchant = { authorization: `Bearer ${key}` };
  const asUser = { cookie };
  let n = 0;
  let reference = '';
  // The last 30 days: the generated payments end on END, a few weeks ago; the payments made by the requests are in it too.
  const now = Date.now();
  const month = `createdFrom=${encodeURIComponent(new Date(now - 30 * 86_400_000).toISOString())}&createdTo=${encodeURIComponent(new Date(now + 86_400_000).toISOString())}`;
  const requests: [string, () => Promise<unknown>][] = [
    ['POST /api/v1/payments/sessions', () => post('/api/v1/payments/sessions', {
      order: { reference: `G-${n++}`, amount: 1000, currency: 'EUR' }, email: 'buyer@example.com', redirectUrl: 'https://shop.example/return', notificationUrl: HOOK,
    }, key)],
    ['whole payment: session, token, pay, capture', async () => {
      const { paymentId } = await payThrough(post, key, HOOK, n++);
      reference ||= (JSON.parse(await get(`/api/v1/payments/${paymentId}`, asMerchant)) as { reference: string }).reference;
    }],
    ['GET /api/v1/payments (first page)', () => get('/api/v1/payments', asMerchant)],
    ['GET /api/v1/payments?status=captured, 30 days', () => get(`/api/v1/payments?status=captured&${month}`, asMerchant)],
    ['GET /api/v1/payments?reference=SPR-…', () => get(`/api/v1/payments?reference=${reference}`, asMerchant)],
    ['GET /api/v1/events (first page)', () => get('/api/v1/events', asMerchant)],
    ['back-office home (GET /dashboard/api/home)', () => get('/dashboard/api/home', asUser)],
    ['back-office payments (GET /api/v1/payments, cookie)', () => get('/api/v1/payments', asUser)],
  ];
  const measureAll = async (phase: string): Promise<Map<string, number>> => {
    const out = new Map<string, number>();
    for (const [label, fn] of requests) {
      // The warm-up: after the fill, the client's kept-alive connection may have been closed by the server meanwhile.
      for (let i = 0; i < Math.min(10, SAMPLES); i++) await fn().catch((err: unknown) => console.error(`growth ${dialect} ${phase}: warm-up ${label}: ${String(err)}`));
      const times: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const t = performance.now();
        await fn();
        times.push(performance.now() - t);
      }
      out.set(label, ms(median(times)));
      console.error(`growth ${dialect} ${phase}: ${label} p50 ${out.get(label)} ms`);
    }
    const verifyTimes: number[] = [];
    let clean = true;
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const result = await verifyLedger(db);
      verifyTimes.push(performance.now() - t);
      clean &&= result.ok;
      if (!result.ok) console.error(`growth ${dialect} ${phase}: ledger verify found ${JSON.stringify(result.found)} ${JSON.stringify(result.differences.slice(0, 3))}`);
    }
    out.set('motu ledger verify', ms(median(verifyTimes)));
    out.set('clean', clean ? 1 : 0);
    console.error(`growth ${dialect} ${phase}: motu ledger verify p50 ${out.get('motu ledger verify')} ms, clean ${clean}`);
    return out;
  };

  const empty = await measureAll('empty');
  const bytesEmpty = await databaseBytes(db, dialect);
  const t0 = performance.now();
  await seed(db, dialect, shop.id, shop.defaultContractId, stores.map((s) => s.id), TEMPLATE);
  const template = await db.kysely.selectFrom('payments').selectAll().where('session_id', 'is', null).limit(1).executeTakeFirstOrThrow();
  const columns = Object.keys(template);
  await bulkLoad(db, dialect, ['payments', 'webhook_events', 'webhook_deliveries', 'webhook_attempts', 'balance_transactions', 'ledger_postings', 'ledger_lines', 'invoices'], async () => {
    for (let k = 1, written = TEMPLATE; written < PAYMENTS; k++) {
      const take = Math.min(TEMPLATE, PAYMENTS - written);
      await copyPayments(db, columns, template.id.length, k, take);
      written += take;
      if (k % 10 === 0) console.error(`growth ${dialect}: ${written.toLocaleString('en')} payments written, ${Math.round((performance.now() - t0) / 1000)} s`);
    }
    await fillAround(db);
  });
  const fillSeconds = Math.round((performance.now() - t0) / 1000);
  const bytesFull = await databaseBytes(db, dialect);
  const rows: Record<string, number> = {};
  for (const table of ['payments', 'webhook_events', 'webhook_deliveries', 'webhook_attempts', 'balance_transactions', 'ledger_lines', 'invoices', 'customers']) rows[table] = await count(db, table);
  console.error(`growth ${dialect}: filled in ${fillSeconds} s, ${JSON.stringify(rows)}, ${Math.round(bytesFull / 2 ** 20)} MiB`);
  const full = await measureAll('full');

  await app.close();
  if (process.env.BENCH_KEEP) console.error(`growth ${dialect}: database kept: ${database.databaseUrl ?? database.dataDir}`);
  else await database.drop();
  const figures = [...requests.map(([label]) => label), 'motu ledger verify'].map((label) => ({ label, empty: empty.get(label)!, full: full.get(label)! }));
  return { dialect, payments: rows.payments!, fillSeconds, bytesEmpty, bytesFull, rows, figures, ledgerClean: full.get('clean') === 1 && empty.get('clean') === 1 };
}

export default async function bench(): Promise<{ section: string; markdown: string }> {
  const dialects: Dialect[] = process.env.BENCH_DIALECTS
    ? (process.env.BENCH_DIALECTS.split(',') as Dialect[])
    : process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' / ');
  const runs: Run[] = [];
  for (const dialect of dialects) runs.push(await runOn(dialect));
  const lines = [
    `Method: \`bench/growth.bench.ts\` (\`BENCH_GROWTH_PAYMENTS\`, default 10,000,000; this run: ${runs.map((r) => `${r.payments.toLocaleString('en')} on ${r.dialect}`).join(', ')}).`,
    'One merchant; each request is measured on the empty database, then the same database is filled and it is measured',
    'again, in the same process and run. The fill: a template of up to 50,000 payments written by bench/payments-list\'s',
    '`seed` (a year of them: its mix of statuses, currencies, customers and cards), copied in bulk to the size with new ids',
    'and references, then for every payment an event, its delivery (succeeded) and its attempt; for each captured payment',
    'its balance transaction, entry posting and two ledger lines (and the refund\'s, when refunded); a paid invoice for',
    'about one customer\'s payment in 30; the ledger started before the oldest payment, so `motu ledger verify` checks every',
    'captured payment. Secondary indexes are dropped during the load and built again after (PostgreSQL analyzed).',
    `Each request is sent one at a time over HTTP on a real port, ${SAMPLES} times after a warm-up: the median. The back-office`,
    'calls are made with a signed-in owner\'s cookie. `motu ledger verify` is `verifyLedger`, the median of 3.',
    `"Speed vs empty" is the empty median ÷ the full median; target ≥ 0.8×. Load average when the run started: ${load} (the machine may be shared).`,
    '',
    '| Database | Request | Empty p50 (ms) | Full p50 (ms) | Speed vs empty | Target ≥ 0.8× |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of runs) {
    for (const f of r.figures) {
      const speed = f.empty / f.full;
      lines.push(`| ${r.dialect} | ${f.label} | ${f.empty} | ${f.full} | ${speed.toFixed(2)}× | ${speed >= 0.8 ? 'met' : '**not met**'} |`);
    }
  }
  lines.push(
    '',
    '| Database | Payments | Events / deliveries / attempts | Balance transactions / ledger lines | Invoices | Filled in (s) | Database size | Per payment | Ledger clean |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const r of runs) {
    const perPayment = (r.bytesFull - r.bytesEmpty) / r.payments;
    lines.push(`| ${r.dialect} | ${r.payments.toLocaleString('en')} | ${[r.rows.webhook_events, r.rows.webhook_deliveries, r.rows.webhook_attempts].map((x) => x!.toLocaleString('en')).join(' / ')} | `
      + `${r.rows.balance_transactions!.toLocaleString('en')} / ${r.rows.ledger_lines!.toLocaleString('en')} | ${r.rows.invoices!.toLocaleString('en')} | ${r.fillSeconds} | `
      + `${(r.bytesFull / 2 ** 30).toFixed(2)} GiB | ${Math.round(perPayment).toLocaleString('en')} bytes | ${r.ledgerClean ? 'yes' : 'NO'} |`);
  }
  return { section: 'Growth', markdown: lines.join('\n') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await bench();
  console.log(markdown);
}
