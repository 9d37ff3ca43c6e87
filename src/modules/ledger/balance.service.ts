// The merchant's balance and its balance transactions: read from the ledger, scoped to the caller (merchant, mode,
// and store for a store-bound key). A transaction's status is read from the postings: pending until its payment
// settles (a release posting), available otherwise.
import type { Database } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { invalidField, notFound } from '../../shared/errors.js';
import { isCurrency } from '../../shared/money.js';
import type { Owner } from '../merchants/principal.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { TransactionType } from './ledger.table.js';
import { newId } from '../../shared/ids.js';
import { post } from './postings.js';
import { readBalance } from './running-balance.js';
import { requireMerchant } from '../merchants/merchants.repository.js';
import { ownedBy } from '../merchants/scope.js';

export interface TransactionFilters {
  type?: TransactionType;
  payoutId?: string;
  sourceId?: string;
  createdAfter?: string;
  createdBefore?: string;
}

export interface BalanceOptions {
  /** How long after a capture its money is expected to settle, for `availableOn` while it is pending. */
  pendingEstimateSeconds: (mode: Mode) => number;
}

const BATCH = 1000;

/** A live card payment usually settles two business days after its capture: `availableOn` until it does. */
export const LIVE_SETTLEMENT_ESTIMATE_SECONDS = 2 * 86_400;

/** A merchant's transactions with what the postings say of them (released when, carried by which payout). */
function scoped(db: Database, owner: Owner, throughOtherIndex = false) {
  return db.kysely.selectFrom('balance_transactions as t')
    .leftJoin('ledger_postings as r', (j) => j.onRef('r.transaction_id', '=', 't.id').on('r.kind', '=', 'release'))
    .leftJoin('payout_items as p', 'p.transaction_id', 't.id')
    .select([
      't.id', 't.type', 't.amount', 't.currency', 't.amount_eur', 't.pending', 't.source_type', 't.source_id', 't.description',
      't.created_at', 'r.created_at as released_at', 'p.payout_id',
    ])
    .where(ownedBy(owner, { alias: 't', store: true, throughOtherIndex }));
}

type Listed = ReturnType<typeof scoped>;
export type TransactionListRow = Awaited<ReturnType<Listed['executeTakeFirstOrThrow']>>;

/**
 * The filtered list. A source's transactions (`balance_transactions_source`: a few rows) and a payout's
 * (`payout_items_payout`: the payout's items) are found through their own index, then sorted: read through the
 * merchant's list index instead (what SQLite chooses without statistics, the list giving the order), they cost a walk
 * of the merchant's history down to them.
 * The other filters (type, dates) have no index of their own and are read along the list.
 */
function filtered(db: Database, owner: Owner, filters: TransactionFilters): Listed {
  let q = scoped(db, owner, Boolean(filters.sourceId || filters.payoutId));
  if (filters.type) q = q.where('t.type', '=', filters.type);
  if (filters.payoutId) q = q.where('p.payout_id', '=', filters.payoutId);
  if (filters.sourceId) q = q.where('t.source_id', '=', filters.sourceId);
  if (filters.createdAfter) q = q.where('t.created_at', '>', new Date(filters.createdAfter).toISOString());
  if (filters.createdBefore) q = q.where('t.created_at', '<', new Date(filters.createdBefore).toISOString());
  return q;
}

/** One page of the filtered list, newest first, keyset-paginated on (created_at, id): the statement the list runs. */
export function transactionsPage(db: Database, owner: Owner, filters: TransactionFilters, limit: number, after?: { created_at: string; id: string }) {
  let paged = filtered(db, owner, filters);
  if (after) {
    // `created_at <= cursor` first: the range an index scan starts at (the OR alone reads the list from its head).
    paged = paged.where((eb) => eb.and([
      eb('t.created_at', '<=', after.created_at),
      eb.or([
        eb('t.created_at', '<', after.created_at),
        eb.and([eb('t.created_at', '=', after.created_at), eb('t.id', '<', after.id)]),
      ]),
    ]));
  }
  return paged.orderBy('t.created_at', 'desc').orderBy('t.id', 'desc').limit(limit);
}

export class BalanceService {
  constructor(private readonly db: Database, private readonly clock: Clock, private readonly options: BalanceOptions) {}

  /** Available and pending per currency: the merchant's running balance, kept with each posting (running-balance.ts). */
  async balance(owner: Owner) {
    const rows = await readBalance(this.db.kysely, owner, { byStore: true });
    const of = (account: 'pending' | 'available') => rows.filter((r) => r[account] !== null).map((r) => ({ currency: r.currency, amount: r[account]! }));
    return { available: of('available'), pending: of('pending') };
  }

  private query(owner: Owner): Listed {
    return scoped(this.db, owner);
  }

  async list(owner: Owner, filters: TransactionFilters & { limit?: number; startingAfter?: string }) {
    const limit = filters.limit ?? 20;
    let after: { created_at: string; id: string } | undefined;
    if (filters.startingAfter) {
      const cursor = await this.query(owner).where('t.id', '=', filters.startingAfter).executeTakeFirst();
      if (!cursor) throw invalidField('startingAfter', 'is not an id from this list');
      after = cursor;
    }
    const rows = await transactionsPage(this.db, owner, filters, limit + 1, after).execute();
    return { data: rows.slice(0, limit).map((r) => this.view(owner.mode, r)), hasMore: rows.length > limit };
  }

  /** Every matching transaction, newest first, one batch at a time (the CSV export). */
  async *batches(owner: Owner, filters: TransactionFilters): AsyncGenerator<ReturnType<BalanceService['view']>[]> {
    let after: TransactionListRow | undefined;
    for (;;) {
      const rows = await transactionsPage(this.db, owner, filters, BATCH, after).execute();
      if (rows.length) yield rows.map((r) => this.view(owner.mode, r));
      if (rows.length < BATCH) return;
      after = rows[rows.length - 1];
    }
  }

  async get(owner: Owner, id: string) {
    const row = await this.query(owner).where('t.id', '=', id).executeTakeFirst();
    if (!row) throw notFound('Balance transaction', id);
    return this.view(owner.mode, row);
  }

  view(mode: Mode, row: TransactionListRow) {
    const pending = row.pending === 1 && row.released_at === null;
    const availableOn = row.pending === 0
      ? row.created_at
      : row.released_at ?? new Date(Date.parse(row.created_at) + this.options.pendingEstimateSeconds(mode) * 1000).toISOString();
    return {
      id: row.id,
      type: row.type,
      amount: Number(row.amount),
      currency: row.currency,
      amountEur: Number(row.amount_eur),
      status: pending ? ('pending' as const) : ('available' as const),
      availableOn,
      source: { type: row.source_type, id: row.source_id },
      payoutId: row.payout_id,
      description: row.description,
      createdAt: row.created_at,
    };
  }

  /** An operator's correction of a merchant's balance, with its reason; available at once. */
  async adjust(merchantId: string, input: { mode: Mode; currency: string; amount: number; reason: string }) {
    if (!isCurrency(input.currency)) throw invalidField('currency', 'must be EUR or XPF');
    if (input.amount === 0) throw invalidField('amount', 'must not be zero');
    const owner = { merchantId, mode: input.mode, storeId: null };
    const at = this.clock.now();
    const id = newId('txn');
    const row = await this.db.transaction(async (trx) => {
      await requireMerchant(trx, merchantId);
      return post(trx, {
        id, owner, type: 'adjustment', amount: input.amount, currency: input.currency,
        source: { type: 'adjustment', id }, description: input.reason, at,
      });
    });
    return this.get(owner, row.id);
  }
}
