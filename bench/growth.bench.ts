// bench/growth: what a merchant's everyday requests cost once the database holds years of traffic. One run fills a
// database with BENCH_GROWTH_PAYMENTS payments (10,000,000 by default) and everything they leave behind:
// - the payments: a template of up to 50,000 written by bench/payments-list's `seed` (its status, currency, customer
//   and card mix, a year of them), then copied in bulk (INSERT … SELECT, new ids and references) up to the size;
// - for each payment an event, its delivery (succeeded) and the delivery's attempt; for each captured payment its
//   balance transaction, entry posting and two ledger lines, and for each refunded one the refund's; an invoice, paid,
//   for about one payment of a customer in 30. The books balance: `motu ledger verify` finds them clean.
// Measured on two databases side by side, the empty one and the filled one, served by this process on two ports, each
// request sent to both alternately, one at a time (the median of BENCH_GROWTH_SAMPLES on each, after a warm-up):
// session creation; the whole payment (session, card token, pay, capture: bench/checkout's `payThrough`);
// GET /api/v1/payments (first page, a status over 30 days, a reference); GET /api/v1/events and an event's deliveries;
// the back-office's home and its payments list (a signed-in user's cookie); GET /api/v1/balance; the balance
// transactions of the merchant's oldest source (`?sourceId=`: a few rows at the far end of its history, which a read
// along the merchant's list would reach last); and `verifyLedger` (what `motu ledger verify` runs).
// Target: each at least 0.8× as fast as on the empty database. Also written: the database's size per payment.
// Run alone: `node --import tsx bench/growth.bench.ts` (SQLite; PostgreSQL too when DATABASE_URL is set;
// BENCH_DIALECTS=postgres for one), or `BENCH_ONLY=growth npm run bench`, which writes the "Growth" section.
import { mkdtempSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config.js';
import { openDatabase, type Database, type Dialect } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { rebuildCaptureVolume } from '../src/modules/back-office/capture-volume.js';
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
/** A database filled by an earlier run, measured again as it is (no fill): its SQLite data directory or PostgreSQL URL. */
const REUSE = process.env.BENCH_GROWTH_REUSE;
/** `motu ledger verify` runs on each database (it reads the whole books: minutes at 10 million payments). */
const VERIFY_SAMPLES = Number(process.env.BENCH_GROWTH_VERIFY_SAMPLES ?? '3');
if (!Number.isInteger(VERIFY_SAMPLES) || VERIFY_SAMPLES < 0) throw new Error('BENCH_GROWTH_VERIFY_SAMPLES must be a whole number ≥ 0');
const ADMIN = 'bench-admin-token-0123456789';
const PASSWORD = 'correct horse battery staple';
const HOOK = 'https://shop.example/hook';
if (!Number.isInteger(PAYMENTS) || PAYMENTS < 1) throw new Error('BENCH_GROWTH_PAYMENTS must be a whole number ≥ 1');
if (!Number.isInteger(SAMPLES) || SAMPLES < 1) throw new Error('BENCH_GROWTH_SAMPLES must be a whole number ≥ 1');

/** Medians in ms: wall time, and the process's CPU time (user + system, every thread) during the request. */
interface Figure { label: string; empty: number; full: number; emptyCpu?: number; fullCpu?: number; load: number }
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
 * Copies the template's payments (those `seed` wrote: no session) `copies` times, copy `k` from `first` on: new ids and
 * references, the rest as it is. The template is read from a table of its own (growth_template), so each copy reads
 * 50,000 rows, not the growing payments table; one statement writes several copies (a cross join with growth_copies).
 */
async function copyPayments(db: Database, columns: string[], first: number, copies: number): Promise<void> {
  const value = (c: string) => {
    if (c === 'id') return `'pay_' || g.tag || substr(t.id, 5)`;
    if (c === 'reference') return `t.reference || '-' || g.tag`;
    if (c === 'order_reference') return `t.order_reference || '-' || g.tag`;
    return `t."${c}"`;
  };
  await sql.raw(`insert into payments (${columns.map((c) => `"${c}"`).join(',')})
    select ${columns.map(value).join(',')} from growth_template t cross join growth_copies g
    where g.k >= ${first} and g.k < ${first + copies}`).execute(db.kysely);
}

/** The columns of the generated payments that what they leave behind is written from. */
const AROUND = ['merchant_id', 'mode', 'status', 'created_at', 'store_id', 'captured_amount', 'currency', 'amount_eur_cents', 'refunded_amount',
  'captured_at', 'customer_id', 'amount'];

/**
 * The generated payments of a range of copies, as a relation `p` of those columns, their ids, and the seq their
 * event gets: the template itself (`range` null), or copies `first` to `first + copies - 1`, with the ids
 * `copyPayments` gave them. Read from the template (50,000 rows), not from the payments table, whatever its size.
 * The events' seq is given here (`base` + the payment's place), so deliveries and attempts are written from the
 * same relation, without reading the events back.
 */
function generated(range: { first: number; copies: number } | null, base: number, templateRows: number): string {
  if (!range) return `(select t.id, ${base} + t.n as seq, ${AROUND.map((c) => `t.${c}`).join(', ')} from growth_template t) p`;
  return `(select 'pay_' || g.tag || substr(t.id, 5) as id, ${base} + (g.k - ${range.first}) * ${templateRows} + t.n as seq, ${AROUND.map((c) => `t.${c}`).join(', ')}
    from growth_template t cross join growth_copies g where g.k >= ${range.first} and g.k < ${range.first + range.copies}) p`;
}

/**
 * Everything a range of the generated payments leaves behind, written from them: a statement per table and range (at
 * most 500,000 payments, as the copies are written), so each transaction and its write-ahead log stay bounded.
 */
async function fillAround(db: Database, range: { first: number; copies: number } | null, templateRows: number): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db.kysely);
  const base = Number((await sql<{ n: number | string | null }>`select max(seq) as n from webhook_events`.execute(db.kysely)).rows[0]!.n ?? 0);
  const p = generated(range, base, templateRows);
  await run(`insert into webhook_events (seq, id, merchant_id, mode, type, payment_id, body, created_at)
    select p.seq, 'evt_g' || substr(p.id, 5), p.merchant_id, p.mode, 'payment.' || p.status, p.id,
      '{"id":"evt_g' || substr(p.id, 5) || '","type":"payment.' || p.status || '","createdAt":"' || p.created_at || '","data":{"paymentId":"' || p.id || '"}}',
      p.created_at
    from ${p}`);
  await run(`insert into webhook_deliveries (id, event_id, merchant_id, mode, endpoint_id, url, target_key, event_seq, status, attempt_count,
      next_attempt_at, claim_token, lease_until, last_status_code, last_error, created_at, updated_at)
    select 'del_g' || substr(p.id, 5), 'evt_g' || substr(p.id, 5), p.merchant_id, p.mode, null, '${HOOK}', 'url:${HOOK}', p.seq, 'succeeded', 1,
      p.created_at, null, null, 200, null, p.created_at, p.created_at
    from ${p}`);
  await run(`insert into webhook_attempts (id, delivery_id, event_id, attempt, started_at, status_code, latency_ms, succeeded, response_excerpt, error)
    select 'att_g' || substr(p.id, 5), 'del_g' || substr(p.id, 5), 'evt_g' || substr(p.id, 5), 1, p.created_at, 200, 40, 1, 'ok', null
    from ${p}`);
  // A captured payment's transaction, its entry posting and two lines; a refunded one's the same for the refund.
  const books = [
    { prefix: 'txn_g', type: 'payment', amount: 'p.captured_amount', eur: 'p.amount_eur_cents', source: `p.id`, where: 'p.captured_amount > 0' },
    { prefix: 'txn_r', type: 'refund', amount: '-p.refunded_amount', eur: '-p.refunded_amount', source: `'ref_g' || substr(p.id, 5)`, where: 'p.refunded_amount > 0' },
  ];
  for (const b of books) {
    await run(`insert into balance_transactions (id, merchant_id, mode, store_id, type, amount, currency, amount_eur, pending, source_type, source_id, payment_id, description, created_at)
      select '${b.prefix}' || substr(p.id, 5), p.merchant_id, p.mode, p.store_id, '${b.type}', ${b.amount}, p.currency, ${b.eur}, 0, '${b.type}', ${b.source}, p.id, null, p.captured_at
      from ${p} where ${b.where}`);
    await run(`insert into ledger_postings (id, merchant_id, mode, currency, kind, transaction_id, created_at)
      select 'lpo_${b.prefix}' || substr(p.id, 5), p.merchant_id, p.mode, p.currency, 'entry', '${b.prefix}' || substr(p.id, 5), p.captured_at
      from ${p} where ${b.where}`);
    for (const [account, sign] of [['merchant_available', ''], ['acquirer_clearing', '-']] as const) {
      await run(`insert into ledger_lines (posting_id, merchant_id, mode, store_id, currency, account, amount)
        select 'lpo_${b.prefix}' || substr(p.id, 5), p.merchant_id, p.mode, p.store_id, p.currency, '${account}', ${sign}(${b.amount})
        from ${p} where ${b.where}`);
    }
  }
  await run(`insert into invoices (id, merchant_id, mode, customer_id, subscription_id, payment_id, currency, status, number, lines, taxes, memo,
      days_until_due, due_date, subtotal, total, amount_paid, amount_credited, content_hash, overdue, finalized_at, paid_at, sent_at, page_token,
      pay_payment_id, test_clock_id, created_at, updated_at)
    select 'inv_g' || substr(p.id, 5), p.merchant_id, p.mode, p.customer_id, null, p.id, p.currency, 'paid', 'G-' || substr(p.id, 5),
      '[{"description":"Order","quantity":1,"unitAmount":' || p.amount || '}]', '[]', null, 30, substr(p.created_at, 1, 10), p.amount, p.amount, p.amount, 0,
      null, 0, p.created_at, p.captured_at, null, null, null, null, p.created_at, p.created_at
    from ${p} where p.customer_id is not null and p.status = 'captured' and substr(p.id, length(p.id), 1) in ('a', 'B')`);
}

async function count(db: Database, table: string): Promise<number> {
  return Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db.kysely)).rows[0]!.n);
}

interface Target {
  database: Awaited<ReturnType<typeof freshDatabase>>;
  db: Database;
  shopId: string;
  contractId: string;
  storeIds: string[];
  close: () => Promise<void>;
  requests: [string, () => Promise<unknown>][];
}

/**
 * A database filled by an earlier run (BENCH_GROWTH_REUSE: its SQLite data directory, or its PostgreSQL URL), migrated
 * to this version; never dropped.
 */
async function reused(dialect: Dialect, where: string): Promise<Awaited<ReturnType<typeof freshDatabase>>> {
  const databaseUrl = dialect === 'postgres' ? where : undefined;
  const dataDir = dialect === 'postgres' ? mkdtempSync(path.join(tmpdir(), 'motu-growth-')) : where;
  const db = openDatabase({ databaseUrl, dataDir });
  await migrate(db);
  return { db, databaseUrl, dataDir, drop: async () => db.close() };
}

/** A fresh database with one merchant, its stores and a signed-in owner, served on a real port: the requests measured. */
async function target(dialect: Dialect, reuse?: string): Promise<Target> {
  const database = reuse ? await reused(dialect, reuse) : await freshDatabase(dialect);
  const db = database.db;
  const config = parseConfig({
    MOTU_DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent', MOTU_ADMIN_TOKEN: ADMIN,
    MOTU_RATE_LIMIT_MAX: '10000000', MOTU_TOKENS_PER_MINUTE: '10000000', PORT: '0',
  });
  let shop: { id: string; testSecretKey: string; defaultContractId: string };
  let stores: { id: string }[];
  if (reuse) {
    // The merchant whose payments fill it, and its stores; a key and a user of its own are made below.
    const id = (await db.kysely.selectFrom('payments').select('merchant_id').limit(1).executeTakeFirstOrThrow()).merchant_id;
    shop = { id, testSecretKey: '', defaultContractId: '' };
    stores = await db.kysely.selectFrom('stores').select('id').where('merchant_id', '=', id).orderBy('created_at').orderBy('id').execute();
  } else {
    shop = await new MerchantsService(db, systemClock, secretBoxFor(config)).createMerchant({ name: 'Shop' });
    const made = ['web', 'papeete', 'moorea'].map((code) => ({
      id: newId('sto'), merchant_id: shop.id, code, name: code, kind: code === 'web' ? 'online' as const : 'physical' as const, active: 1,
      contract_id: null, created_at: new Date(END - YEAR_MS).toISOString(),
    }));
    await db.kysely.insertInto('stores').values(made).execute();
    stores = made;
  }
  const app = await buildApp(config, { db, adminTokenHash: sha256Hex(ADMIN), clock: systemClock });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const post = poster(address);
  const asAdmin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  const key = shop.testSecretKey || (await fetch(`${address}/admin/v1/merchants/${shop.id}/keys`, {
    method: 'POST', headers: asAdmin, body: JSON.stringify({ mode: 'test' }),
  }).then((r) => r.json()) as { secretKey: string }).secretKey;

  // A back-office user (owner), set up through its link: the cookie the back-office's pages call with.
  const made = await fetch(`${address}/admin/v1/merchants/${shop.id}/users`, {
    method: 'POST', headers: asAdmin, body: JSON.stringify({ email: `owner-${newId('usr').slice(4, 12).toLowerCase()}@shop.example`, role: 'owner' }),
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
  let oldestSource = '';
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
    ['GET /api/v1/events/{id}/deliveries', async () => {
      const events = JSON.parse(await get('/api/v1/events?limit=1', asMerchant)) as { data: { id: string }[] };
      return get(`/api/v1/events/${events.data[0]!.id}/deliveries`, asMerchant);
    }],
    ['back-office home (GET /dashboard/api/home)', () => get('/dashboard/api/home', asUser)],
    ['back-office payments (GET /api/v1/payments, cookie)', () => get('/api/v1/payments', asUser)],
    ['GET /api/v1/balance', () => get('/api/v1/balance', asMerchant)],
    ['GET /api/v1/balance-transactions?sourceId=… (the oldest)', async () => {
      // On the empty database, the first whole payment's capture (the requests above have run once by then).
      oldestSource ||= (await db.kysely.selectFrom('balance_transactions').select('source_id').where('merchant_id', '=', shop.id).where('mode', '=', 'test')
        .orderBy('created_at').orderBy('id').limit(1).executeTakeFirstOrThrow()).source_id;
      return get(`/api/v1/balance-transactions?sourceId=${oldestSource}`, asMerchant);
    }],
  ];
  return {
    database, db, shopId: shop.id, contractId: shop.defaultContractId, storeIds: stores.map((x) => x.id), requests,
    close: async () => {
      await post.close();
      await app.close();
      if (process.env.BENCH_KEEP) {
        // Kept, but closed: PostgreSQL's pool would otherwise hold the process open once the run is done.
        await db.close().catch(() => {});
        console.error(`growth ${dialect}: database kept: ${database.databaseUrl ?? database.dataDir}`);
      } else await database.drop();
    },
  };
}

/** Fills `full` with PAYMENTS payments and what they leave behind; the seconds it took. */
async function fill(dialect: Dialect, full: Target): Promise<number> {
  const db = full.db;
  const t0 = performance.now();
  const template = await seed(db, dialect, full.shopId, full.contractId, full.storeIds, TEMPLATE);
  console.error(`growth ${dialect}: template of ${TEMPLATE.toLocaleString('en')} payments written in ${Math.round(template.insertSeconds)} s`);
  const first = await db.kysely.selectFrom('payments').selectAll().where('session_id', 'is', null).limit(1).executeTakeFirstOrThrow();
  const columns = Object.keys(first);
  const copies = Math.ceil(PAYMENTS / TEMPLATE) - 1;
  // The template, numbered (its events' seq follow that order).
  await sql.raw(`create table growth_template as select row_number() over (order by id) as n, p.* from payments p where p.session_id is null`).execute(db.kysely);
  const templateRows = await count(db, 'growth_template');
  await sql`create table growth_copies (k integer primary key, tag text not null)`.execute(db.kysely);
  for (let k = 1; k <= copies; k += 500) {
    const values = Array.from({ length: Math.min(500, copies - k + 1) }, (_, i) => `(${k + i}, 'g${(k + i).toString(36).padStart(3, '0')}')`);
    await sql.raw(`insert into growth_copies (k, tag) values ${values.join(',')}`).execute(db.kysely);
  }
  const seconds = () => Math.round((performance.now() - t0) / 1000);
  await bulkLoad(db, dialect, ['payments', 'webhook_events', 'webhook_deliveries', 'webhook_attempts', 'balance_transactions', 'ledger_postings', 'ledger_lines', 'invoices'], async () => {
    await fillAround(db, null, templateRows);
    // 10 copies (500,000 payments) at a time: the payments in one statement, then each table of what they leave
    // behind in one statement: bounded transactions, and few statements.
    for (let k = 1; k <= copies; k += 10) {
      const range = { first: k, copies: Math.min(10, copies - k + 1) };
      const p0 = performance.now();
      await copyPayments(db, columns, range.first, range.copies);
      const p1 = performance.now();
      await fillAround(db, range, templateRows);
      console.error(`growth ${dialect}: ${(TEMPLATE * (range.first + range.copies)).toLocaleString('en')} payments and what they leave behind written, ${seconds()} s `
        + `(this range: payments ${Math.round((p1 - p0) / 1000)} s, the rest ${Math.round((performance.now() - p1) / 1000)} s)`);
    }
    await sql`drop table growth_template`.execute(db.kysely);
    await sql`drop table growth_copies`.execute(db.kysely);
    console.error(`growth ${dialect}: everything written, ${seconds()} s; building the indexes again`);
  });
  console.error(`growth ${dialect}: indexes built, ${seconds()} s`);
  // The events' seq were given above: the sequence goes on after the last (SQLite's integer key does by itself).
  if (dialect === 'postgres') await sql`select setval(pg_get_serial_sequence('webhook_events', 'seq'), (select max(seq) from webhook_events))`.execute(db.kysely);
  // The running balances and the home's capture volume, as the postings and captures would have left them.
  await rebuildRunningBalances(db.kysely);
  await rebuildCaptureVolume(db.kysely);
  // The ledger began before the oldest payment: verify checks every captured payment against its transactions.
  await sql.raw(`update settings set value = '${new Date(END - 2 * YEAR_MS).toISOString()}' where name = 'ledger.started_at'`).execute(db.kysely);
  // Every table analyzed, those the template wrote too (customers, sessions, tokens, balances): autovacuum would have
  // done it by now on a server where it runs, and without statistics PostgreSQL reads a merchant's customer by email
  // through the wrong index (all 20,000 of its customers, 4 ms, where the right one reads one).
  if (dialect === 'postgres') await sql`analyze`.execute(db.kysely);
  return Math.round((performance.now() - t0) / 1000);
}

async function runOn(dialect: Dialect): Promise<Run> {
  // Two databases side by side in this one process: `empty` (one merchant, nothing else) and `full` (the same, then
  // filled). Every request is measured on both, alternately, sample after sample: whatever else the machine does
  // during the run weighs on both figures alike.
  const empty = await target(dialect);
  const full = await target(dialect, REUSE);
  const bytesEmpty = await databaseBytes(empty.db, dialect);
  const fillSeconds = REUSE ? 0 : await fill(dialect, full);
  const bytesFull = await databaseBytes(full.db, dialect);
  const rows: Record<string, number> = {};
  for (const table of ['payments', 'webhook_events', 'webhook_deliveries', 'webhook_attempts', 'balance_transactions', 'ledger_lines', 'invoices', 'customers']) rows[table] = await count(full.db, table);
  console.error(`growth ${dialect}: filled in ${fillSeconds} s, ${JSON.stringify(rows)}, ${Math.round(bytesFull / 2 ** 20)} MiB`);

  const figures: Figure[] = [];
  const targets = [empty, full];
  for (let r = 0; r < empty.requests.length; r++) {
    const label = empty.requests[r]![0];
    const times: [number[], number[]] = [[], []];
    const cpu: [number[], number[]] = [[], []];
    for (const [i, t] of targets.entries()) {
      // The warm-up: after the fill, the client's kept-alive connection may have been closed by the server meanwhile.
      for (let w = 0; w < Math.min(10, SAMPLES); w++) {
        await t.requests[r]![1]().catch((err: unknown) => console.error(`growth ${dialect} ${i ? 'full' : 'empty'}: warm-up ${label}: ${String(err)}`));
      }
    }
    for (let sample = 0; sample < SAMPLES; sample++) {
      // Alternating which goes first, so neither always follows the other.
      for (const i of sample % 2 ? [1, 0] : [0, 1]) {
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        await targets[i]!.requests[r]![1]();
        const c = process.cpuUsage(c0);
        times[i]!.push(performance.now() - t0);
        cpu[i]!.push((c.user + c.system) / 1000);
      }
    }
    figures.push({ label, empty: ms(median(times[0])), full: ms(median(times[1])), emptyCpu: ms(median(cpu[0])), fullCpu: ms(median(cpu[1])), load: os.loadavg()[0]! });
    const f = figures.at(-1)!;
    console.error(`growth ${dialect}: ${label} p50 empty ${f.empty} ms, full ${f.full} ms; CPU p50 empty ${f.emptyCpu} ms, full ${f.fullCpu} ms (load ${os.loadavg()[0]!.toFixed(1)})`);
  }
  const verifyTimes: [number[], number[]] = [[], []];
  let clean = true;
  for (let sample = 0; sample < VERIFY_SAMPLES; sample++) {
    for (const i of [0, 1]) {
      const t0 = performance.now();
      const result = await verifyLedger(targets[i]!.db);
      verifyTimes[i]!.push(performance.now() - t0);
      clean &&= result.ok;
      if (!result.ok) console.error(`growth ${dialect}: ledger verify found ${JSON.stringify(result.found)} ${JSON.stringify(result.differences.slice(0, 3))}`);
    }
  }
  // BENCH_GROWTH_VERIFY_SAMPLES=0: the requests only (a database measured again).
  if (VERIFY_SAMPLES > 0) {
    figures.push({ label: 'motu ledger verify', empty: ms(median(verifyTimes[0])), full: ms(median(verifyTimes[1])), load: os.loadavg()[0]! });
    console.error(`growth ${dialect}: motu ledger verify p50 empty ${figures.at(-1)!.empty} ms, full ${figures.at(-1)!.full} ms, clean ${clean}`);
  }

  await empty.close();
  await full.close();
  return { dialect, payments: rows.payments!, fillSeconds, bytesEmpty, bytesFull, rows, figures, ledgerClean: clean };
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
    'Two databases side by side, served by the same process on two ports, one merchant on each: one stays empty, the',
    'other is filled. Every request is then sent to both alternately, one at a time over HTTP, sample after sample, so the',
    'machine\'s load weighs on both alike. The fill: a template of up to 50,000 payments written by bench/payments-list\'s',
    '`seed` (a year of them: its mix of statuses, currencies, customers and cards), copied in bulk to the size with new ids',
    'and references, 500,000 at a time, each range followed by what its payments leave behind (a statement per table and',
    'range, so no transaction grows with the size): for every payment an event, its delivery (succeeded) and its attempt; for each captured payment',
    'its balance transaction, entry posting and two ledger lines (and the refund\'s, when refunded); a paid invoice for',
    'about one customer\'s payment in 30; then the running balances and the home\'s capture volume; the ledger started before the oldest payment, so',
    '`motu ledger verify` checks every captured payment. Secondary indexes are dropped during the load and built again',
    `after (PostgreSQL analyzed). ${SAMPLES} samples per request and database after a warm-up: the median. The back-office calls`,
    `carry a signed-in owner's cookie. \`motu ledger verify\` is \`verifyLedger\`, the median of ${VERIFY_SAMPLES} on each.`,
    `"Speed vs empty" is the empty median ÷ the full median; target ≥ 0.8×. "CPU": the process's CPU time (user + system, all`,
    'its threads: client, server, SQLite\'s) during each request, the median: on a machine shared with others it is the work',
    'a request costs, where the wall time is mostly the wait for a core. Load average (1 min) when the run started:',
    `${load}; with each figure, when it was taken.${REUSE ? ' The filled database was filled by an earlier run and measured again here as it was (`BENCH_GROWTH_REUSE`).' : ''}`,
    '',
    '| Database | Request | Empty p50 (ms) | Full p50 (ms) | Speed vs empty | Target ≥ 0.8× | CPU p50 empty / full (ms) | CPU ratio | Load (1 min) |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of runs) {
    for (const f of r.figures) {
      const speed = f.empty / f.full;
      if (f.label === 'motu ledger verify') {
        // It reads the whole books: its time per payment is the figure, not a ratio to the empty books.
        const rate = ((f.full - f.empty) * 1000) / r.payments;
        lines.push(`| ${r.dialect} | ${f.label} | ${f.empty} | ${f.full} | ${rate.toFixed(1)} µs per payment | linear by design | — | — | ${f.load.toFixed(1)} |`);
        continue;
      }
      lines.push(`| ${r.dialect} | ${f.label} | ${f.empty} | ${f.full} | ${speed.toFixed(2)}× | ${speed >= 0.8 ? 'met' : '**not met**'} | `
        + `${f.emptyCpu} / ${f.fullCpu} | ${(f.emptyCpu! / f.fullCpu!).toFixed(2)}× | ${f.load.toFixed(1)} |`);
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
      + `${r.rows.balance_transactions!.toLocaleString('en')} / ${r.rows.ledger_lines!.toLocaleString('en')} | ${r.rows.invoices!.toLocaleString('en')} | ${REUSE ? 'earlier run' : r.fillSeconds} | `
      + `${(r.bytesFull / 2 ** 30).toFixed(2)} GiB | ${Math.round(perPayment).toLocaleString('en')} bytes | ${VERIFY_SAMPLES === 0 ? 'not verified' : r.ledgerClean ? 'yes' : 'NO'} |`);
  }
  return { section: 'Growth', markdown: lines.join('\n') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await bench();
  console.log(markdown);
}
