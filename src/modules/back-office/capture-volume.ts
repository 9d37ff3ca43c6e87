// The volume the back-office's home shows (its last 30 days, src/modules/back-office/home.ts), kept as captures
// commit: each capture adds its amount and a count of one to its UTC hour's row (merchant, mode, store, currency),
// in the capture's own transaction, so the home reads at most 744 hours of rows whatever the merchant's volume.
// What it counts is what the home counted when it summed the payments: every payment with a capture (captured_at
// set), by the hour of captured_at, for its captured amount. A refund or a chargeback changes neither (the home shows
// what was captured, as before), and a payment is captured once.
//
// Race-safety: one INSERT … ON CONFLICT DO UPDATE adding to the row as it is (nothing read and written back), as the
// running balance does; a transaction adds to the slot its running balance drew (`slotOf`), so concurrent captures of
// one merchant wait on each other only when they drew the same slot, and in the same order as on the balance's row
// (no deadlock). `motu ledger verify` checks these rows against the payments (its check 7).
import { sql, type Kysely } from 'kysely';
import { compiledQuery } from '../../db/compiled.js';
import type { Trx } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { Owner } from '../merchants/principal.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { PaymentRow } from '../payments/payments.table.js';
import { slotOf } from '../ledger/running-balance.js';

export interface CaptureVolumeTable {
  merchant_id: string;
  mode: Mode;
  /** YYYY-MM-DDTHH (UTC): captured_at's first 13 characters. */
  hour: string;
  /** The payment's store, '' for none. */
  store_key: string;
  currency: string;
  slot: number;
  count: number;
  amount: number;
}

/** The hour of an ISO timestamp, as `capture_volume.hour` holds it. */
export const hourOf = (iso: string) => iso.slice(0, 13);

// Compiled once (src/db/compiled.ts): every capture adds to its hour.
const add = compiledQuery((db, p: { merchant_id: string; mode: Mode; hour: string; store_key: string; currency: string; slot: number; amount: number }) =>
  db.insertInto('capture_volume')
    .values({ merchant_id: p.merchant_id, mode: p.mode, hour: p.hour, store_key: p.store_key, currency: p.currency, slot: p.slot, count: 1, amount: p.amount })
    .onConflict((oc) => oc.columns(['merchant_id', 'mode', 'hour', 'store_key', 'currency', 'slot']).doUpdateSet({
      count: sql`capture_volume.count + 1`,
      amount: sql`capture_volume.amount + excluded.amount`,
    })));

/** Adds a payment just captured (its row as written, captured_at on its test clock if it has one) to its hour. */
export async function addCapture(trx: Trx, row: PaymentRow): Promise<void> {
  if (row.captured_at === null) return;
  // No answer read: on PostgreSQL it goes with the capture's next statement (deferWrite).
  await add.defer(trx, {
    merchant_id: row.merchant_id, mode: row.mode, hour: hourOf(row.captured_at), store_key: row.store_id ?? '', currency: row.currency,
    slot: slotOf(trx), amount: row.captured_amount,
  });
}

/**
 * The captures of the owner's merchant and mode (its store's alone when the owner is bound to one) per hour and
 * currency, from the hour of `since` on.
 */
export async function readVolume(q: Kysely<DB>, owner: Owner, since: string): Promise<{ hour: string; currency: string; count: number; amount: number }[]> {
  let query = q.selectFrom('capture_volume')
    .select(['hour', 'currency', sql<number>`cast(sum(count) as bigint)`.as('count'), sql<number>`cast(sum(amount) as bigint)`.as('amount')])
    .where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode).where('hour', '>=', hourOf(since));
  if (owner.storeId) query = query.where('store_key', '=', owner.storeId);
  const rows = await query.groupBy(['hour', 'currency']).execute();
  return rows.map((r) => ({ hour: r.hour, currency: r.currency, count: Number(r.count), amount: Number(r.amount) }));
}

/**
 * Sets every hour's row to what the captured payments add up to, in one statement: for what writes payments in bulk
 * without capturing them (the benchmarks' fills); the app never needs it. Run alone, with nothing capturing meanwhile.
 */
export async function rebuildCaptureVolume(q: Kysely<DB>): Promise<void> {
  await sql`delete from capture_volume`.execute(q);
  await sql`insert into capture_volume (merchant_id, mode, hour, store_key, currency, slot, count, amount)
    select merchant_id, mode, substr(captured_at, 1, 13), coalesce(store_id, ''), currency, 0, count(*), sum(captured_amount)
    from payments where captured_at is not null
    group by merchant_id, mode, substr(captured_at, 1, 13), coalesce(store_id, ''), currency`.execute(q);
}
