// What the ids of the books' rows cost SQLite when a split payment between 10 sellers is captured:
// `node --import tsx bench/split-ledger-ids.ts [captures] [rounds]`. SQLite alone (better-sqlite3, the migrated schema,
// the connection's pragmas of src/db/sqlite/sqlite.ts), one process: each capture writes what postMany writes for it,
// 32 balance transactions, 32 postings, 64 lines in one multi-row INSERT per table and 11 additions to the running
// balances, then COMMIT (a checkpoint every 50 captures, as the app's checkpointer thread does about once a second at
// the checkout benchmark's rate). The same captures with random ids (newId) and time-ordered ids (newTimeOrderedId),
// each on a fresh database, alternated `rounds` times. Reports the process's CPU (user + system) per capture for each
// statement and for COMMIT with the checkpoints: CPU, not elapsed time, so that a machine shared with other work changes
// the figures less (both variants alike).
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

async function run(ids: (prefix: 'txn' | 'lpo') => string): Promise<Record<string, number>> {
  const fresh = await freshDatabase('sqlite');
  await fresh.db.close();
  const db = new SQLite(path.join(fresh.dataDir, SQLITE_FILE));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = -16384');
    db.pragma(`wal_autocheckpoint = ${(64 * 1024 * 1024) / (db.pragma('page_size', { simple: true }) as number)}`);
    const rows = 3 * SELLERS + 2;
    const bt = insert(db, 'balance_transactions', ['id', 'merchant_id', 'mode', 'store_id', 'type', 'amount', 'currency', 'amount_eur', 'pending',
      'source_type', 'source_id', 'payment_id', 'description', 'created_at'], rows);
    const lp = insert(db, 'ledger_postings', ['id', 'merchant_id', 'mode', 'currency', 'kind', 'transaction_id', 'created_at'], rows);
    const ll = insert(db, 'ledger_lines', ['posting_id', 'merchant_id', 'mode', 'store_id', 'currency', 'account', 'amount'], 2 * rows);
    const lb = insert(db, 'ledger_balances', ['merchant_id', 'mode', 'store_key', 'currency', 'slot', 'pending', 'available'], SELLERS + 1,
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
      bt.run(btValues);
      step('balance_transactions');
      lp.run(lpValues);
      step('ledger_postings');
      ll.run(llValues);
      step('ledger_lines');
      lb.run(lbValues);
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

const variants = { random: (p: 'txn' | 'lpo') => newId(p), 'time-ordered': (p: 'txn' | 'lpo') => newTimeOrderedId(p) };
for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, ids] of Object.entries(variants)) {
    const r = await run(ids);
    const total = Object.values(r).reduce((a, b) => a + b, 0);
    console.log(`round ${round}, ${name} ids: ${total} µs CPU per capture (${Object.entries(r).map(([k, v]) => `${k} ${v}`).join(', ')})`);
  }
}
