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
import { compiledQuery, type CompiledStatement } from '../../db/compiled.js';
import type { Trx } from '../../db/database.js';
import { newId } from '../../shared/ids.js';
import { isCurrency, toEurCents } from '../../shared/money.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { Owner } from '../merchants/principal.js';
import type { Account, BalanceTransactionRow, TransactionType } from './ledger.table.js';
import { addToBalance } from './running-balance.js';

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

async function lines(trx: Trx, postingId: string, owner: Owner, currency: string, moves: Array<[Account, number]>): Promise<void> {
  await trx.insertInto('ledger_lines').values(moves.map(([account, amount]) => ({
    posting_id: postingId, merchant_id: owner.merchantId, mode: owner.mode, store_id: owner.storeId ?? null, currency, account, amount,
  }))).execute();
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
  const postingId = newId('lpo');
  await insertEntry.run(trx, { id: postingId, merchant_id: row.merchant_id, mode: row.mode, currency: row.currency, transaction_id: row.id, created_at: row.created_at });
  await insertLinePair.run(trx, {
    posting_id: postingId, merchant_id: input.owner.merchantId, mode: input.owner.mode, store_id: input.owner.storeId ?? null, currency: row.currency,
    account: input.pending ? 'merchant_pending' : 'merchant_available', amount: input.amount, counterparty: COUNTERPARTY[input.type], counter_amount: -input.amount,
  });
  await addToBalance(trx, input.owner, row.currency, input.pending ? { pending: input.amount } : { available: input.amount });
  return row;
}

/** The columns postMany writes, per table, in the order its compiled statements bind them. */
const TRANSACTION_COLUMNS = ['id', 'merchant_id', 'mode', 'store_id', 'type', 'amount', 'currency', 'amount_eur', 'pending', 'source_type',
  'source_id', 'payment_id', 'description', 'created_at'] as const;
const POSTING_COLUMNS = ['id', 'merchant_id', 'mode', 'currency', 'kind', 'transaction_id', 'created_at'] as const;
const LINE_COLUMNS = ['posting_id', 'merchant_id', 'mode', 'store_id', 'currency', 'account', 'amount'] as const;

type RowsTable = 'balance_transactions' | 'ledger_postings' | 'ledger_lines';

/** Most rows a compiled multi-row INSERT is kept for (a split payment between 10 sellers writes more: built per call). */
const MAX_COMPILED_ROWS = 8;
const rowStatements = new Map<string, CompiledStatement<Record<string, unknown>, unknown>>();

/**
 * `rows` in one INSERT into `table`: compiled once per table and number of rows (src/db/compiled.ts) up to
 * MAX_COMPILED_ROWS, built by Kysely beyond. Every row gives every one of `columns` (null, never undefined).
 */
async function insertRows(trx: Trx, table: RowsTable, columns: readonly string[], rows: readonly object[]): Promise<void> {
  if (rows.length > MAX_COMPILED_ROWS) {
    await trx.insertInto(table).values(rows as never).execute();
    return;
  }
  const key = `${table}:${rows.length}`;
  let statement = rowStatements.get(key);
  if (statement === undefined) {
    const n = rows.length;
    statement = compiledQuery((db, p: Record<string, unknown>) => db.insertInto(table)
      .values(Array.from({ length: n }, (_, i) => Object.fromEntries(columns.map((c) => [c, p[`${c}${i}`]]))) as never));
    rowStatements.set(key, statement);
  }
  const values: Record<string, unknown> = {};
  rows.forEach((row, i) => {
    for (const c of columns) values[`${c}${i}`] = (row as Record<string, unknown>)[c];
  });
  await statement.run(trx, values);
}

/**
 * Several balance transactions and their postings in three statements (one per table), whatever their number: a
 * payment's capture writes two (the payment and its fee), a split payment's two per seller. Same rows as `post` would
 * write one by one.
 */
export async function postMany(trx: Trx, inputs: readonly PostInput[]): Promise<BalanceTransactionRow[]> {
  if (inputs.length === 0) return [];
  const rows = inputs.map(transactionRow);
  const postings = rows.map((row) => ({
    id: newId('lpo'), merchant_id: row.merchant_id, mode: row.mode, currency: row.currency, kind: 'entry' as const, transaction_id: row.id, created_at: row.created_at,
  }));
  await insertRows(trx, 'balance_transactions', TRANSACTION_COLUMNS, rows);
  await insertRows(trx, 'ledger_postings', POSTING_COLUMNS, postings);
  await insertRows(trx, 'ledger_lines', LINE_COLUMNS, inputs.flatMap((input, i) => {
    const base = { posting_id: postings[i]!.id, merchant_id: input.owner.merchantId, mode: input.owner.mode, store_id: input.owner.storeId ?? null, currency: input.currency };
    return [
      { ...base, account: input.pending ? 'merchant_pending' as const : 'merchant_available' as const, amount: input.amount },
      { ...base, account: COUNTERPARTY[input.type], amount: -input.amount },
    ];
  }));
  // The running balances, one addition per balance, in one order (merchant, store, currency) whatever the order of the
  // inputs: two split payments sharing sellers then take those rows in the same order, and cannot deadlock.
  const sums = new Map<string, { owner: Owner; currency: string; pending?: number; available?: number }>();
  for (const input of inputs) {
    const key = `${input.owner.merchantId}\u0000${input.owner.mode}\u0000${input.owner.storeId ?? ''}\u0000${input.currency}`;
    const sum = sums.get(key) ?? sums.set(key, { owner: input.owner, currency: input.currency }).get(key)!;
    if (input.pending) sum.pending = (sum.pending ?? 0) + input.amount;
    else sum.available = (sum.available ?? 0) + input.amount;
  }
  for (const key of [...sums.keys()].sort()) {
    const { owner, currency, pending, available } = sums.get(key)!;
    await addToBalance(trx, owner, currency, { pending, available });
  }
  return rows;
}

/** The balance transaction's row, checked: what `post` and `postMany` write. */
function transactionRow(input: PostInput): BalanceTransactionRow {
  if (!Number.isSafeInteger(input.amount) || input.amount === 0) throw new RangeError(`A ledger amount is a non-zero integer, got ${input.amount}`);
  if (!isCurrency(input.currency)) throw new RangeError(`Unknown currency ${input.currency}`);
  const at = input.at.toISOString();
  return {
    id: input.id ?? newId('txn'),
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
 * without a release are read).
 */
export async function releasePayment(trx: Trx, paymentId: string, at: Date): Promise<number> {
  const pending = await trx.selectFrom('balance_transactions as t')
    .select(['t.id', 't.merchant_id', 't.mode', 't.store_id', 't.currency', 't.amount'])
    .where('t.payment_id', '=', paymentId).where('t.pending', '=', 1)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('ledger_postings as r').select('r.id')
      .whereRef('r.transaction_id', '=', 't.id').where('r.kind', '=', 'release'))))
    .orderBy('t.created_at').orderBy('t.id')
    .execute();
  for (const t of pending) {
    const postingId = newId('lpo');
    await trx.insertInto('ledger_postings').values({
      id: postingId, merchant_id: t.merchant_id, mode: t.mode, currency: t.currency, kind: 'release', transaction_id: t.id, created_at: at.toISOString(),
    }).execute();
    await lines(trx, postingId, { merchantId: t.merchant_id, mode: t.mode, storeId: t.store_id }, t.currency, [
      ['merchant_pending', -t.amount],
      ['merchant_available', t.amount],
    ]);
    await addToBalance(trx, { merchantId: t.merchant_id, mode: t.mode, storeId: t.store_id }, t.currency, { pending: -t.amount, available: t.amount });
  }
  return pending.length;
}
