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
}

/** `.where(ownedBy(owner))`: merchant, mode and, for store tables and a store-bound caller, store. */
export function ownedBy(owner: Owner, options: ScopeOptions = {}) {
  const column = (name: string) => sql.ref(options.alias ? `${options.alias}.${name}` : name);
  return (eb: ExpressionBuilder<any, any>): Expression<SqlBool> => {
    const conditions = [eb(column('merchant_id'), '=', owner.merchantId), eb(column('mode'), '=', owner.mode)];
    if (options.store && owner.storeId) conditions.push(eb(column('store_id'), '=', owner.storeId));
    return eb.and(conditions);
  };
}
