// What the ids of the books' rows cost SQLite when a split payment between 10 sellers is captured:
// `node --import tsx bench/split-ledger-ids.ts [captures] [rounds]`. SQLite alone (better-sqlite3, the migrated schema,
// the connection's pragmas of src/db/sqlite/sqlite.ts), one process: each capture writes what postMany writes for it,
// 32 balance transactions, 32 postings, 64 lines in one multi-row INSERT per table and 11 additions to the running
// balances, then COMMIT (a checkpoint every 50 captures, as the app's checkpointer thread does about once a second at
// the checkout benchmark's rate). The same captures with random ids (newId) and time-ordered ids (newTimeOrderedId),
// each on a fresh database, alternated `rounds` times. Reports the process's CPU (user + system) per capture for each
// statement and for COMMIT with the checkpoints: CPU, not elapsed time, so that a machine shared with other work changes
// the figures less (both variants alike). A third variant writes the time-ordered rows as src/modules/ledger/postings.ts
// does now on SQLite, in INSERTs of at most 8 balance transactions and 16 postings, lines or balances each, instead of
// one INSERT per table.
import { rmSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { SQLITE_FILE } from '../src/db/sqlite/sqlite.js';
import { BALANCE_ADDITION } from '../src/modules/ledger/running-balance.js';
import { newId, newTimeOrderedId } from '../src/shared/ids.js';
import { freshDatabase } from '../test/support/harness.js';

const CAPTURES = Number(process.argv[2] ?? '300');
const ROUNDS = Number(process.argv[3] ?? '2');
const SELLERS = 10;

const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

function insert(db: SQLite.Database, table: string, columns: string[], rows: number, suffix = '') {
  const one = `(${columns.map(() => '?').join(', ')})`;
  return db.prepare(`insert into ${table} (${columns.join(', ')}) values ${Array.from({ length: rows }, () => one).join(', ')}${suffix}`);
}

/** Writes `values` (whole rows of `columns`, flat) in INSERTs of at most `most` rows each (Infinity: one INSERT). */
function inserter(db: SQLite.Database, table: string, columns: string[], most: number, suffix = '') {
  const statements = new Map<number, SQLite.Statement>();
  return (values: unknown[]) => {
    const rows = values.length / columns.length;
    for (let start = 0; start < rows; start += most) {
      const n = Math.min(most, rows - start);
      let statement = statements.get(n);
      if (!statement) statements.set(n, (statement = insert(db, table, columns, n, suffix)));
      statement.run(values.slice(start * columns.length, (start + n) * columns.length));
    }
  };
}

interface Variant {
  ids: (prefix: 'txn' | 'lpo') => string;
  /** Rows per INSERT: balance transactions, and the other tables'. */
  most: [number, number];
}

async function run({ ids, most }: Variant): Promise<Record<string, number>> {
  const fresh = await freshDatabase('sqlite');
  await fresh.db.close();
  const db = new SQLite(path.join(fresh.dataDir, SQLITE_FILE));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = -16384');
    db.pragma(`wal_autocheckpoint = ${(64 * 1024 * 1024) / (db.pragma('page_size', { simple: true }) as number)}`);
    const bt = inserter(db, 'balance_transactions', ['id', 'merchant_id', 'mode', 'store_id', 'type', 'amount', 'currency', 'amount_eur', 'pending',
      'source_type', 'source_id', 'payment_id', 'description', 'created_at'], most[0]);
    const lp = inserter(db, 'ledger_postings', ['id', 'merchant_id', 'mode', 'currency', 'kind', 'transaction_id', 'created_at'], most[1]);
    const ll = inserter(db, 'ledger_lines', ['posting_id', 'merchant_id', 'mode', 'store_id', 'currency', 'account', 'amount'], most[1]);
    const lb = inserter(db, 'ledger_balances', ['merchant_id', 'mode', 'store_key', 'currency', 'slot', 'pending', 'available'], most[1],
      ` on conflict (merchant_id, mode, store_key, currency, slot) do update set ${BALANCE_ADDITION}`);
    const begin = db.prepare('BEGIN IMMEDIATE');
    const commit = db.prepare('COMMIT');
    const platform = newId('mer');
    const sellers = Array.from({ length: SELLERS }, () => newId('mer'));
    const owners = [platform, platform, ...sellers.flatMap((s) => [platform, s, s])];
    const spent = { balance_transactions: 0, ledger_postings: 0, ledger_lines: 0, ledger_balances: 0, commit: 0 };
    for (let c = 0; c < CAPTURES; c++) {
      const payment = newId('pay');
      const at = new Date().toISOString();
      const currency = c % 2 ? 'XPF' : 'EUR';
      const txns = owners.map(() => ids('txn'));
      const postings = owners.map(() => ids('lpo'));
      const amount = (i: number) => (i % 3 === 1 ? -(100 + i) : 100 + i);
      const btValues = owners.flatMap((m, i) => [txns[i], m, 'test', null, i < 2 ? 'payment' : 'platform_share', amount(i), currency, amount(i), 1,
        'payment', payment, payment, `Share of seller ${m}`, at]);
      const lpValues = owners.flatMap((m, i) => [postings[i], m, 'test', currency, 'entry', txns[i], at]);
      const llValues = owners.flatMap((m, i) => [postings[i], m, 'test', null, currency, 'merchant_pending', amount(i),
        postings[i], m, 'test', null, currency, 'platform_clearing', -amount(i)]);
      const lbValues = [platform, ...sellers].sort().flatMap((m) => [m, 'test', '', currency, c % 16, 10, null]);
      begin.run();
      let t = cpu();
      const step = (key: keyof typeof spent) => {
        const now = cpu();
        spent[key] += now - t;
        t = now;
      };
      bt(btValues);
      step('balance_transactions');
      lp(lpValues);
      step('ledger_postings');
      ll(llValues);
      step('ledger_lines');
      lb(lbValues);
      step('ledger_balances');
      commit.run();
      if (c % 50 === 49) db.pragma('wal_checkpoint(PASSIVE)');
      step('commit');
    }
    return Object.fromEntries(Object.entries(spent).map(([k, us]) => [k, Math.round(us / CAPTURES)]));
  } finally {
    db.close();
    rmSync(fresh.dataDir, { recursive: true, force: true });
  }
}

const variants: Record<string, Variant> = {
  'random ids': { ids: (p) => newId(p), most: [Infinity, Infinity] },
  'time-ordered ids': { ids: (p) => newTimeOrderedId(p), most: [Infinity, Infinity] },
  'time-ordered ids, 8 and 16 rows per INSERT': { ids: (p) => newTimeOrderedId(p), most: [8, 16] },
};
for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, variant] of Object.entries(variants)) {
    const r = await run(variant);
    const total = Object.values(r).reduce((a, b) => a + b, 0);
    console.log(`round ${round}, ${name}: ${total} µs CPU per capture (${Object.entries(r).map(([k, v]) => `${k} ${v}`).join(', ')})`);
  }
}
