// Legal numbers: `F-2027-000042` for invoices, `A-2027-000007` for credit notes. One counter row per merchant, mode,
// series and year, incremented by a single upsert on the caller's transaction: on PostgreSQL the row's lock holds
// concurrent finalizations of the same series in line until the first commits (other merchants, modes, series and
// years are not held); on SQLite transactions run one at a time. A transaction that rolls back gives its number
// back with it: the series never has a gap, nor a number twice (the invoices' unique index says so again).
import type { Trx } from '../../db/database.js';
import type { Owner } from '../merchants/principal.js';

export async function nextNumber(trx: Trx, owner: Owner, series: 'F' | 'A', year: number): Promise<string> {
  const row = await trx.insertInto('billing_sequences')
    .values({ merchant_id: owner.merchantId, mode: owner.mode, series, year, last: 1 })
    .onConflict((oc) => oc.columns(['merchant_id', 'mode', 'series', 'year']).doUpdateSet((eb) => ({ last: eb('billing_sequences.last', '+', 1) })))
    .returning('last').executeTakeFirstOrThrow();
  return `${series}-${year}-${String(row.last).padStart(6, '0')}`;
}
