// The one filter every query of a merchant's objects goes through: the caller's merchant and mode, and, for tables
// that belong to a store, the caller's store when its key is bound to one. An object outside that scope does not
// exist for the caller (404), whichever way the query is written.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Owner } from './principal.js';

export interface ScopeOptions {
  /** The table's alias in a join (`t` for `balance_transactions as t`). */
  alias?: string;
  /**
   * The table has a store_id, narrowed for a store-bound caller (payments, sessions, endpoints, ledger rows).
   * Customers, saved cards and the merchant's settings are shared by its stores: false.
   */
  store?: boolean;
  /**
   * The merchant written so that no index can serve it (`merchant_id || '' = ?`, the same rows): for a query that
   * another of its filters narrows to a few rows through an index of its own (a source's, a payout's). Without
   * statistics SQLite otherwise reads the merchant's list index, which gives the order and takes the merchant and mode
   * as a lookup, and filters each row it passes: every row of the merchant's history when the few are old.
   */
  throughOtherIndex?: boolean;
}

/** `.where(ownedBy(owner))`: merchant, mode and, for store tables and a store-bound caller, store. */
export function ownedBy(owner: Owner, options: ScopeOptions = {}) {
  const column = (name: string) => sql.ref(options.alias ? `${options.alias}.${name}` : name);
  return (eb: ExpressionBuilder<any, any>): Expression<SqlBool> => {
    const merchant = options.throughOtherIndex ? sql`${column('merchant_id')} || ''` : column('merchant_id');
    const conditions = [eb(merchant, '=', owner.merchantId), eb(column('mode'), '=', owner.mode)];
    if (options.store && owner.storeId) conditions.push(eb(column('store_id'), '=', owner.storeId));
    return eb.and(conditions);
  };
}
