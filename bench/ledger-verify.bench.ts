// bench/ledger-verify: `motu ledger verify` over 100,000 and 1,000,000 balance transactions. The books are filled
// directly (batched inserts of the same rows `post` writes: a transaction, its entry posting, its two lines; half of
// the pending ones released as a settlement would), over 1,000 merchants, in EUR and XPF. The payments table stays
// empty: the per-payment check is one grouped join over the captured payments, measured by the property test's books. Reports the time per 100,000 transactions at each
// size (it must grow linearly) and the process's peak RSS (it must not grow with the books).
// Run alone: `node --import tsx bench/ledger-verify.bench.ts` (SQLite; also PostgreSQL when DATABASE_URL is set;
// BENCH_LEDGER_SIZES=100000,1000000 by default), or through `npm run bench`, which writes the "Ledger verify" section.
import { readFileSync } from 'node:fs';
import type { Database, Dialect } from '../src/db/database.js';
import { rebuildRunningBalances } from '../src/modules/ledger/running-balance.js';
import { verifyLedger } from '../src/modules/ledger/verify.js';
import { freshDatabase } from '../test/support/harness.js';

const SIZES = (process.env.BENCH_LEDGER_SIZES ?? '100000,1000000').split(',').filter(Boolean).map(Number);
const MERCHANTS = 1000;
const BATCH = 2000;

interface Run {
  dialect: Dialect;
  transactions: number;
  verifyMs: number;
  msPer100k: number;
  rssGrowthMiB: number;
  fillSeconds: number;
  ok: boolean;
}

/**
 * The process's own resident memory (RssAnon: heap, stacks, SQLite's page cache), without the file pages it maps (a
 * database read through mmap is the OS's file cache, shared and evicted by the OS, and shows as RssFile); the whole
 * RSS where /proc is not there.
 */
function ownMemory(): number {
  try {
    const kb = /RssAnon:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kb) return Number(kb) * 1024;
  } catch {
    // not Linux
  }
  return process.memoryUsage().rss;
}

/** Runs `fn`, sampling the process's own memory every 5 ms: how far it rose above where it started, in MiB. */
async function rssGrowth<T>(fn: () => Promise<T>): Promise<{ value: T; growthMiB: number }> {
  global.gc?.();
  const start = ownMemory();
  let peak = start;
  const timer = setInterval(() => { peak = Math.max(peak, ownMemory()); }, 5);
  try {
    const value = await fn();
    peak = Math.max(peak, ownMemory());
    return { value, growthMiB: Math.round(((peak - start) / 2 ** 20) * 10) / 10 };
  } finally {
    clearInterval(timer);
  }
}

/** Adds transactions up to `target`, in batches, as `post` would write them. */
async function fill(db: Database, from: number, target: number): Promise<void> {
  const at = '2026-11-01T00:00:00.000Z';
  for (let start = from; start < target; start += BATCH) {
    const n = Math.min(BATCH, target - start);
    const txns: Record<string, unknown>[] = [];
    const postings: Record<string, unknown>[] = [];
    const lines: Record<string, unknown>[] = [];
    for (let i = start; i < start + n; i++) {
      const merchant = `mer_bench${String(i % MERCHANTS).padStart(6, '0')}`;
      const currency = i % 3 === 0 ? 'XPF' : 'EUR';
      const isPayment = i % 2 === 0;
      const amount = isPayment ? 1000 + (i % 9000) : -(1 + (i % 500));
      const id = `txn_bench${String(i).padStart(14, '0')}`;
      const paymentId = isPayment ? `pay_bench${String(i).padStart(14, '0')}` : null;
      txns.push({
        id, merchant_id: merchant, mode: 'test', store_id: null, type: isPayment ? 'payment' : 'adjustment', amount, currency,
        amount_eur: amount, pending: isPayment ? 1 : 0, source_type: isPayment ? 'payment' : 'adjustment', source_id: paymentId ?? id,
        payment_id: paymentId, description: null, created_at: at,
      });
      postings.push({ id: `lpo_e${id}`, merchant_id: merchant, mode: 'test', currency, kind: 'entry', transaction_id: id, created_at: at });
      lines.push(
        { posting_id: `lpo_e${id}`, merchant_id: merchant, mode: 'test', store_id: null, currency, account: isPayment ? 'merchant_pending' : 'merchant_available', amount },
        { posting_id: `lpo_e${id}`, merchant_id: merchant, mode: 'test', store_id: null, currency, account: isPayment ? 'acquirer_clearing' : 'motu_revenue', amount: -amount },
      );
      if (isPayment && i % 4 === 0) {
        postings.push({ id: `lpo_r${id}`, merchant_id: merchant, mode: 'test', currency, kind: 'release', transaction_id: id, created_at: at });
        lines.push(
          { posting_id: `lpo_r${id}`, merchant_id: merchant, mode: 'test', store_id: null, currency, account: 'merchant_pending', amount: -amount },
          { posting_id: `lpo_r${id}`, merchant_id: merchant, mode: 'test', store_id: null, currency, account: 'merchant_available', amount },
        );
      }
    }
    await db.kysely.transaction().execute(async (trx) => {
      for (let i = 0; i < txns.length; i += 250) await trx.insertInto('balance_transactions').values(txns.slice(i, i + 250) as never).execute();
      for (let i = 0; i < postings.length; i += 250) await trx.insertInto('ledger_postings').values(postings.slice(i, i + 250) as never).execute();
      for (let i = 0; i < lines.length; i += 250) await trx.insertInto('ledger_lines').values(lines.slice(i, i + 250) as never).execute();
    });
  }
}

async function runOn(dialect: Dialect): Promise<Run[]> {
  const database = await freshDatabase(dialect);
  const runs: Run[] = [];
  try {
    let filled = 0;
    for (const size of SIZES) {
      const t0 = performance.now();
      await fill(database.db, filled, size);
      await rebuildRunningBalances(database.db.kysely);
      filled = size;
      const fillSeconds = Math.round((performance.now() - t0) / 100) / 10;
      const t1 = performance.now();
      const { value: result, growthMiB } = await rssGrowth(() => verifyLedger(database.db));
      const verifyMs = Math.round(performance.now() - t1);
      const run = { dialect, transactions: size, verifyMs, msPer100k: Math.round((verifyMs * 100_000) / size), rssGrowthMiB: growthMiB, fillSeconds, ok: result.ok };
      console.error(`ledger verify ${dialect} ${size}: ${verifyMs} ms (${run.msPer100k} ms per 100k), RSS +${growthMiB} MiB while verifying, ok ${result.ok}${result.ok ? '' : ' ' + JSON.stringify(result.found)}`);
      runs.push(run);
    }
  } finally {
    await database.drop();
  }
  return runs;
}

export default async function bench(): Promise<{ section: string; markdown: string }> {
  const dialects: Dialect[] = process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const runs: Run[] = [];
  for (const dialect of dialects) runs.push(...(await runOn(dialect)));
  const lines = [
    'Method: `bench/ledger-verify.bench.ts` fills the books directly (the rows `post` writes: a transaction, its entry',
    'posting and its two lines; a release for a quarter of them), over 1,000 merchants in EUR and XPF, then times',
    '`verifyLedger` (what `motu ledger verify` runs) at each size, sampling the process\'s own resident memory (RssAnon:',
    'heap and page caches, not the file pages SQLite maps) every 5 ms while it runs: the growth is what verifying holds',
    '(a few figures per merchant and the differences found, never the rows).',
    '',
    '| Database | Transactions | Verify (ms) | ms per 100,000 | Growth per row vs the first size | Memory growth while verifying (MiB) | Clean |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of runs) {
    const first = runs.find((x) => x.dialect === r.dialect)!;
    lines.push(`| ${r.dialect} | ${r.transactions.toLocaleString('en')} | ${r.verifyMs} | ${r.msPer100k} | ${(r.msPer100k / first.msPer100k).toFixed(2)}× | ${r.rssGrowthMiB} | ${r.ok ? 'yes' : 'NO'} |`);
  }
  lines.push(
    '',
    'Each check is a grouped join over the lines, postings and transactions, read on one snapshot (`Database.snapshot`).',
    'On SQLite that snapshot is a read transaction on a connection of its own which maps the database file, so the',
    'index pages the joins look up in random order (identifiers are random) are read in place from the OS\'s file',
    'cache: before, through SQLite\'s 16 MiB page cache, the same books took 2.6× longer per row at a million',
    'transactions than at 100,000 (1,195 ms per 100,000 against 464). Memory stays flat: the figures per merchant and',
    'the differences found, never the rows (the first size includes loading the SQLite and JSON code paths once).',
    'Run-to-run noise on this shared 2-core machine is about ±15 %.',
  );
  return { section: 'Ledger verify', markdown: lines.join('\n') };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await bench();
  console.log(markdown);
}
