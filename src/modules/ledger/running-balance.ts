// The merchant's running balance: what its `merchant_pending` and `merchant_available` lines sum to, kept in
// `ledger_balances` by every posting on the posting's own transaction, so that reading a balance reads a few rows
// whatever the size of the books (summing the lines grew with every payment ever made).
//
// Race-safety: each posting adds its amounts with one INSERT … ON CONFLICT DO UPDATE, which the database applies
// atomically to the row as it is at that moment (PostgreSQL locks the row until the transaction ends; SQLite has one
// writer); nothing is read and written back. Contention: a transaction takes one of SLOTS rows per store and currency
// the first time it posts and adds to that row only, so concurrent captures of one merchant wait on each other only
// when they took the same slot, and a transaction never holds two rows of the same balance (no lock-order deadlock).
// On PostgreSQL the slot follows the transaction's index in its process (transactionIndex, from a base drawn per
// process): concurrent transactions of one process never share a slot while they are fewer than SLOTS; a random
// draw made 16 concurrent captures share 8 slots, each waiting for another's commit, WAL flush included.
// `motu ledger verify` checks these rows against the sum of the lines (src/modules/ledger/verify.ts).
import { sql, type InsertQueryBuilder, type InsertResult, type Kysely } from 'kysely';
import { compiledQuery } from '../../db/compiled.js';
import type { Trx } from '../../db/database.js';
import { transactionIndex } from '../../db/postgres/postgres.js';
import type { DB } from '../../db/schema.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { Owner } from '../merchants/principal.js';

export const SLOTS = 16;

/** Where this process's slots start: processes sharing a database start apart, most of the time. */
const BASE = Math.floor(Math.random() * SLOTS);
const drawn = new WeakMap<object, number>();

/** The slot this transaction adds to (chosen on its first call): the running balance's, and the capture volume's. */
export function slotOf(trx: Trx): number {
  let slot = drawn.get(trx);
  if (slot === undefined) {
    const index = transactionIndex(trx);
    slot = index === undefined ? Math.floor(Math.random() * SLOTS) : (BASE + index) % SLOTS;
    drawn.set(trx, slot);
  }
  return slot;
}

/** What an addition does to a balance row that exists: the amount given (not null) is added, none keeps the column. */
const addition = (column: 'pending' | 'available') =>
  `case when excluded.${column} is null then ledger_balances.${column} else coalesce(ledger_balances.${column}, 0) + excluded.${column} end`;

/** ON CONFLICT's SET of an addition to the balance rows, as text (PostgreSQL's postMany writes its statement as text). */
export const BALANCE_ADDITION = `pending = ${addition('pending')}, available = ${addition('available')}`;

/** An INSERT of balance rows made an addition to the rows that exist. */
export function addingToBalance(insert: InsertQueryBuilder<DB, 'ledger_balances', InsertResult>) {
  return insert.onConflict((oc) => oc.columns(['merchant_id', 'mode', 'store_key', 'currency', 'slot']).doUpdateSet({
    pending: sql.raw(addition('pending')), available: sql.raw(addition('available')),
  }));
}

// Compiled once (src/db/compiled.ts): every posting adds to a balance.
const add = compiledQuery((db, p: { merchant_id: string; mode: Mode; store_key: string; currency: string; slot: number; pending: number | null; available: number | null }) =>
  addingToBalance(db.insertInto('ledger_balances')
    .values({ merchant_id: p.merchant_id, mode: p.mode, store_key: p.store_key, currency: p.currency, slot: p.slot, pending: p.pending, available: p.available })));

/** Adds a posting's merchant lines to the running balance, on the posting's transaction. */
export async function addToBalance(trx: Trx, owner: Owner, currency: string, moves: { pending?: number; available?: number }): Promise<void> {
  const pending = moves.pending ?? null;
  const available = moves.available ?? null;
  if (pending === null && available === null) return;
  await add.run(trx, { merchant_id: owner.merchantId, mode: owner.mode, store_key: owner.storeId ?? '', currency, slot: slotOf(trx), pending, available });
}

export interface CurrencyBalance {
  currency: string;
  /** Null where the account never had a line in this currency. */
  pending: number | null;
  available: number | null;
}

/**
 * The balance per currency, by currency: the merchant's whole (every store's lines and its own), or a store's alone
 * when `byStore` and the owner is bound to one.
 */
export async function readBalance(q: Kysely<DB>, owner: Owner, options: { byStore: boolean; currency?: string }): Promise<CurrencyBalance[]> {
  let query = q.selectFrom('ledger_balances')
    .select(['currency', sql<number | null>`cast(sum(pending) as bigint)`.as('pending'), sql<number | null>`cast(sum(available) as bigint)`.as('available')])
    .where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode);
  if (options.byStore && owner.storeId) query = query.where('store_key', '=', owner.storeId);
  if (options.currency) query = query.where('currency', '=', options.currency);
  const rows = await query.groupBy('currency').orderBy('currency').execute();
  const num = (v: number | null) => (v === null ? null : Number(v));
  return rows.map((r) => ({ currency: r.currency, pending: num(r.pending), available: num(r.available) }));
}

/**
 * Sets every running balance to the sum of its lines, in one statement: for what writes the books in bulk without
 * `post` (the benchmarks' fills); the app never needs it. Run alone, with nothing posting meanwhile.
 */
export async function rebuildRunningBalances(q: Kysely<DB>): Promise<void> {
  await sql`delete from ledger_balances`.execute(q);
  await sql`insert into ledger_balances (merchant_id, mode, store_key, currency, slot, pending, available)
    select merchant_id, mode, coalesce(store_id, ''), currency, 0,
      sum(case when account = 'merchant_pending' then amount end),
      sum(case when account = 'merchant_available' then amount end)
    from ledger_lines where account in ('merchant_pending', 'merchant_available')
    group by merchant_id, mode, coalesce(store_id, ''), currency`.execute(q);
}
