// Writing to the ledger: one function, `post`, for every movement of a merchant's money, always on the caller's
// transaction (the cause and its posting commit together or not at all), and `release`, the settlement that makes a
// pending transaction available. Nothing here updates or deletes a row of the books; each posting adds its merchant
// lines to the running balance (running-balance.ts) on the same transaction.
//
// Each type moves money between the merchant's accounts and a counterparty; the lines of a posting sum to zero:
//   payment, payment_fee            merchant_pending ⇄ acquirer_clearing / motu_revenue (until the payment settles)
//   refund, dispute, dispute_reversal  merchant_available ⇄ acquirer_clearing
//   refund_fee, dispute_fee, adjustment  merchant_available ⇄ motu_revenue
//   payout, payout_failure          merchant_available ⇄ payouts_in_transit
//   release (settlement)            merchant_pending → merchant_available
//   platform_share, platform_commission  merchant ⇄ platform_clearing (a split payment between a platform and its sellers:
//                                   what one side's transactions put there the other's take out, per payment)
import { PostgresAdapter } from 'kysely';
import { compiledQuery, deferWrite, type CompiledStatement } from '../../db/compiled.js';
import type { Trx } from '../../db/database.js';
import { newTimeOrderedId } from '../../shared/ids.js';
import { isCurrency, toEurCents } from '../../shared/money.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { Owner } from '../merchants/principal.js';
import type { Account, BalanceTransactionRow, TransactionType } from './ledger.table.js';
import { addingToBalance, addToBalance, BALANCE_ADDITION, slotOf } from './running-balance.js';

const COUNTERPARTY: Record<TransactionType, Account> = {
  payment: 'acquirer_clearing',
  payment_fee: 'motu_revenue',
  refund: 'acquirer_clearing',
  refund_fee: 'motu_revenue',
  dispute: 'acquirer_clearing',
  dispute_fee: 'motu_revenue',
  dispute_reversal: 'acquirer_clearing',
  payout: 'payouts_in_transit',
  payout_failure: 'payouts_in_transit',
  adjustment: 'motu_revenue',
  platform_share: 'platform_clearing',
  platform_commission: 'platform_clearing',
};

export interface PostInput {
  /** The transaction's id when the caller needs it first (an adjustment is its own source); new otherwise. */
  id?: string;
  owner: Owner;
  type: TransactionType;
  /** Signed, minor units of `currency`: positive credits the merchant. Never zero. */
  amount: number;
  currency: string;
  /** Exact EUR cents of the amount; by default converted at the peg. */
  amountEur?: number;
  /** Pending until its payment settles (captures and their fees); otherwise available at once. */
  pending?: boolean;
  source: { type: string; id: string };
  paymentId?: string | null;
  description?: string | null;
  at: Date;
}

// `post`'s statements, compiled once (src/db/compiled.ts): every capture posts twice.
const insertTransaction = compiledQuery((db, p: BalanceTransactionRow) => db.insertInto('balance_transactions').values({
  id: p.id, merchant_id: p.merchant_id, mode: p.mode, store_id: p.store_id, type: p.type, amount: p.amount, currency: p.currency,
  amount_eur: p.amount_eur, pending: p.pending, source_type: p.source_type, source_id: p.source_id, payment_id: p.payment_id,
  description: p.description, created_at: p.created_at,
}));
const insertEntry = compiledQuery((db, p: { id: string; merchant_id: string; mode: Mode; currency: string; transaction_id: string; created_at: string }) =>
  db.insertInto('ledger_postings').values({
    id: p.id, merchant_id: p.merchant_id, mode: p.mode, currency: p.currency, kind: 'entry', transaction_id: p.transaction_id, created_at: p.created_at,
  }));
const insertLinePair = compiledQuery((db, p: {
  posting_id: string; merchant_id: string; mode: Mode; store_id: string | null; currency: string; account: Account; amount: number; counterparty: Account; counter_amount: number;
}) => db.insertInto('ledger_lines').values([
  { posting_id: p.posting_id, merchant_id: p.merchant_id, mode: p.mode, store_id: p.store_id, currency: p.currency, account: p.account, amount: p.amount },
  { posting_id: p.posting_id, merchant_id: p.merchant_id, mode: p.mode, store_id: p.store_id, currency: p.currency, account: p.counterparty, amount: p.counter_amount },
]));

/** A balance transaction and its double-entry posting, on the caller's transaction. */
export async function post(trx: Trx, input: PostInput): Promise<BalanceTransactionRow> {
  const row = transactionRow(input);
  await insertTransaction.run(trx, row);
  const postingId = newTimeOrderedId('lpo');
  await insertEntry.run(trx, { id: postingId, merchant_id: row.merchant_id, mode: row.mode, currency: row.currency, transaction_id: row.id, created_at: row.created_at });
  await insertLinePair.run(trx, {
    posting_id: postingId, merchant_id: input.owner.merchantId, mode: input.owner.mode, store_id: input.owner.storeId ?? null, currency: row.currency,
    account: input.pending ? 'merchant_pending' : 'merchant_available', amount: input.amount, counterparty: COUNTERPARTY[input.type], counter_amount: -input.amount,
  });
  await addToBalance(trx, input.owner, row.currency, input.pending ? { pending: input.amount } : { available: input.amount });
  return row;
}

/**
 * Several balance transactions, their postings and their additions to the running balances, whatever their number (a
 * split payment's capture writes three per seller): on PostgreSQL one statement, on SQLite a few per table (writeLedger).
 * Same rows as `post` would write one by one.
 */
export async function postMany(trx: Trx, inputs: readonly PostInput[]): Promise<BalanceTransactionRow[]> {
  if (inputs.length === 0) return [];
  const rows = inputs.map(transactionRow);
  const postingIds = rows.map(() => newTimeOrderedId('lpo'));
  const rowsOf = {
    balance_transactions: rows.map((t) => [
      t.id, t.merchant_id, t.mode, t.store_id, t.type, t.amount, t.currency, t.amount_eur, t.pending, t.source_type, t.source_id, t.payment_id,
      t.description, t.created_at,
    ]),
    ledger_postings: rows.map((t, i) => [postingIds[i], t.merchant_id, t.mode, t.currency, 'entry', t.id, t.created_at]),
    ledger_lines: inputs.flatMap((input, i) => {
      const base = [postingIds[i], input.owner.merchantId, input.owner.mode, input.owner.storeId ?? null, input.currency];
      return [[...base, input.pending ? 'merchant_pending' : 'merchant_available', input.amount], [...base, COUNTERPARTY[input.type], -input.amount]];
    }),
    ledger_balances: balanceRows(trx, inputs.map((input) => ({ owner: input.owner, currency: input.currency, [input.pending ? 'pending' : 'available']: input.amount }))),
  };
  await writeLedger(trx, rowsOf);
  return rows;
}

/** What one posting adds to a merchant's running balance. */
interface BalanceMove {
  owner: Owner;
  currency: string;
  pending?: number;
  available?: number;
}

/**
 * The running balances the moves add to, one row per balance (their sums), in one order (merchant, mode, store,
 * currency) whatever the order of the moves: two split payments sharing sellers then take those rows in the same
 * order, and cannot deadlock.
 */
function balanceRows(trx: Trx, moves: readonly BalanceMove[]): unknown[][] {
  const sums = new Map<string, { owner: Owner; currency: string; pending: number | null; available: number | null }>();
  for (const move of moves) {
    const key = `${move.owner.merchantId}\u0000${move.owner.mode}\u0000${move.owner.storeId ?? ''}\u0000${move.currency}`;
    let sum = sums.get(key);
    if (!sum) sums.set(key, (sum = { owner: move.owner, currency: move.currency, pending: null, available: null }));
    if (move.pending !== undefined) sum.pending = (sum.pending ?? 0) + move.pending;
    if (move.available !== undefined) sum.available = (sum.available ?? 0) + move.available;
  }
  const slot = slotOf(trx);
  return [...sums.keys()].sort().map((key) => {
    const { owner, currency, pending, available } = sums.get(key)!;
    return [owner.merchantId, owner.mode, owner.storeId ?? '', currency, slot, pending, available];
  });
}

/** postMany's tables, each with the columns of its rows in the order they are given. */
const LEDGER_COLUMNS = {
  balance_transactions: [
    'id', 'merchant_id', 'mode', 'store_id', 'type', 'amount', 'currency', 'amount_eur', 'pending', 'source_type', 'source_id', 'payment_id',
    'description', 'created_at',
  ],
  ledger_postings: ['id', 'merchant_id', 'mode', 'currency', 'kind', 'transaction_id', 'created_at'],
  ledger_lines: ['posting_id', 'merchant_id', 'mode', 'store_id', 'currency', 'account', 'amount'],
  ledger_balances: ['merchant_id', 'mode', 'store_key', 'currency', 'slot', 'pending', 'available'],
} as const;
type LedgerTable = keyof typeof LEDGER_COLUMNS;
type LedgerRows = Record<LedgerTable, unknown[][]>;

/**
 * PostgreSQL: every row in one statement of fixed text whatever the number of rows (each column given as an array,
 * unnest makes the rows): one round trip, parsed and planned once per connection. The balances are added in the order
 * given (ordinality), the order that avoids deadlocks. The inserts of a statement's WITH all run, whatever the outer
 * statement reads of them.
 */
const WRITE_LEDGER_PG = `
  with t as (
    insert into balance_transactions (${LEDGER_COLUMNS.balance_transactions.join(', ')})
    select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::bigint[], $9::integer[],
      $10::text[], $11::text[], $12::text[], $13::text[], $14::text[])
  ), p as (
    insert into ledger_postings (${LEDGER_COLUMNS.ledger_postings.join(', ')})
    select * from unnest($15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::text[], $21::text[])
  ), l as (
    insert into ledger_lines (${LEDGER_COLUMNS.ledger_lines.join(', ')})
    select * from unnest($22::text[], $23::text[], $24::text[], $25::text[], $26::text[], $27::text[], $28::bigint[])
  )
  insert into ledger_balances (${LEDGER_COLUMNS.ledger_balances.join(', ')})
  select merchant_id, mode, store_key, currency, slot, pending, available
  from unnest($29::text[], $30::text[], $31::text[], $32::text[], $33::integer[], $34::bigint[], $35::bigint[])
    with ordinality as b(merchant_id, mode, store_key, currency, slot, pending, available, n)
  order by n
  on conflict (merchant_id, mode, store_key, currency, slot) do update set ${BALANCE_ADDITION}`;

/** The columns of `rows` (each row's values in LEDGER_COLUMNS order), one array per column: unnest's parameters. */
function columnsOf(rows: unknown[][], width: number): unknown[][] {
  const columns = Array.from({ length: width }, () => new Array<unknown>(rows.length));
  for (let r = 0; r < rows.length; r++) for (let c = 0; c < width; c++) columns[c]![r] = rows[r]![c];
  return columns;
}

/**
 * SQLite: multi-row INSERTs of at most SQLITE_ROWS_PER_INSERT rows each, their texts compiled once per number of rows
 * (src/db/compiled.ts; the values are given as an array, each probe named by its index). Not one INSERT for all of a
 * table's rows: SQLite spends more per row in a long one. Measured with `bench/split-ledger-ids.ts` (a split capture's
 * 32 balance transactions, 32 postings and 64 lines, SQLite alone): its 32 balance transactions took 370 – 420 µs of
 * CPU in one INSERT, as much in two of 16, and 230 – 250 µs in four of 8 (or in 32 of one row); the postings and the
 * lines 5 – 15 % less in INSERTs of 16 rows than in one of 32 or 64. A single payment's capture (two rows per table)
 * is still one INSERT per table.
 */
const SQLITE_ROWS_PER_INSERT: Record<LedgerTable, number> = { balance_transactions: 8, ledger_postings: 16, ledger_lines: 16, ledger_balances: 16 };
const sqliteInserts = new Map<string, CompiledStatement<unknown[], unknown>>();

function sqliteInsert(table: LedgerTable, rows: number): CompiledStatement<unknown[], unknown> {
  const key = `${table}:${rows}`;
  let statement = sqliteInserts.get(key);
  if (!statement) {
    const columns = LEDGER_COLUMNS[table];
    statement = compiledQuery((db, p: unknown[]) => {
      const values = Array.from({ length: rows }, (_, r) => Object.fromEntries(columns.map((column, c) => [column, p[r * columns.length + c]])));
      const insert = db.insertInto(table).values(values as never);
      return table === 'ledger_balances' ? addingToBalance(insert as never) : insert;
    });
    sqliteInserts.set(key, statement);
  }
  return statement;
}

async function writeLedger(trx: Trx, rows: LedgerRows): Promise<void> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) {
    const parameters = (Object.keys(LEDGER_COLUMNS) as LedgerTable[]).flatMap((table) => columnsOf(rows[table], LEDGER_COLUMNS[table].length));
    // No answer read: it goes with the transaction's next statement (deferWrite).
    await deferWrite(trx, { sql: WRITE_LEDGER_PG, parameters });
    return;
  }
  for (const table of Object.keys(LEDGER_COLUMNS) as LedgerTable[]) {
    const all = rows[table];
    const most = SQLITE_ROWS_PER_INSERT[table];
    for (let start = 0; start < all.length; start += most) {
      const part = all.slice(start, start + most);
      await sqliteInsert(table, part.length).run(trx, part.flat());
    }
  }
}

/** The balance transaction's row, checked: what `post` and `postMany` write. */
function transactionRow(input: PostInput): BalanceTransactionRow {
  if (!Number.isSafeInteger(input.amount) || input.amount === 0) throw new RangeError(`A ledger amount is a non-zero integer, got ${input.amount}`);
  if (!isCurrency(input.currency)) throw new RangeError(`Unknown currency ${input.currency}`);
  const at = input.at.toISOString();
  return {
    id: input.id ?? newTimeOrderedId('txn'),
    merchant_id: input.owner.merchantId,
    mode: input.owner.mode,
    store_id: input.owner.storeId ?? null,
    type: input.type,
    amount: input.amount,
    currency: input.currency,
    amount_eur: input.amountEur ?? toEurCents(input.amount, input.currency),
    pending: input.pending ? 1 : 0,
    source_type: input.source.type,
    source_id: input.source.id,
    payment_id: input.paymentId ?? null,
    description: input.description ?? null,
    created_at: at,
  };
}

/**
 * The payment settled: each of its pending transactions is released to the available balance, once (a second
 * release of the same transaction is refused by the database's unique index, and never attempted: only transactions
 * without a release are read). All of them in a few statements (PostgreSQL: one), as postMany writes: a split
 * payment has three per seller.
 */
export async function releasePayment(trx: Trx, paymentId: string, at: Date): Promise<number> {
  const pending = await trx.selectFrom('balance_transactions as t')
    .select(['t.id', 't.merchant_id', 't.mode', 't.store_id', 't.currency', 't.amount'])
    .where('t.payment_id', '=', paymentId).where('t.pending', '=', 1)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('ledger_postings as r').select('r.id')
      .whereRef('r.transaction_id', '=', 't.id').where('r.kind', '=', 'release'))))
    .orderBy('t.created_at').orderBy('t.id')
    .execute();
  if (pending.length === 0) return 0;
  const createdAt = at.toISOString();
  const postingIds = pending.map(() => newTimeOrderedId('lpo'));
  await writeLedger(trx, {
    balance_transactions: [],
    ledger_postings: pending.map((t, i) => [postingIds[i], t.merchant_id, t.mode, t.currency, 'release', t.id, createdAt]),
    ledger_lines: pending.flatMap((t, i) => {
      const base = [postingIds[i], t.merchant_id, t.mode, t.store_id, t.currency];
      return [[...base, 'merchant_pending', -t.amount], [...base, 'merchant_available', t.amount]];
    }),
    ledger_balances: balanceRows(trx, pending.map((t) => ({
      owner: { merchantId: t.merchant_id, mode: t.mode, storeId: t.store_id }, currency: t.currency, pending: -t.amount, available: t.amount,
    }))),
  });
  return pending.length;
}
