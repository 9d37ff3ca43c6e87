import { sql, type Kysely } from 'kysely';

// What the data's growth asked of the back-office's home:
// - `payments_captured`: the captured payments of a merchant and mode in the order they were captured, so the last 30
//   days' volume reads those days' payments, not every payment of the merchant (partial: only captured ones), from
//   the index alone (it holds what the volume sums and the store a store-bound key narrows to).
// - `ledger_balances`: the merchant's running balance, kept by every posting on its own transaction
//   (src/modules/ledger/running-balance.ts), so a balance is read from a few rows instead of summing every ledger line.
//   One row per merchant, mode, store ('' for the merchant's own), currency and slot: a posting adds to the slot its
//   transaction drew, so concurrent postings of one merchant rarely wait on the same row. Filled here from the lines.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('payments_captured').on('payments')
    .columns(['merchant_id', 'mode', 'captured_at', 'currency', 'captured_amount', 'store_id'])
    .where(sql.ref('captured_at'), 'is not', null).execute();
  await db.schema.createTable('ledger_balances')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('store_key', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    // Null until the account has a line: a balance lists the currencies its account has moved in, as the lines did.
    .addColumn('pending', 'bigint')
    .addColumn('available', 'bigint')
    .addPrimaryKeyConstraint('ledger_balances_pk', ['merchant_id', 'mode', 'store_key', 'currency', 'slot'])
    .execute();
  await sql`insert into ledger_balances (merchant_id, mode, store_key, currency, slot, pending, available)
    select merchant_id, mode, coalesce(store_id, ''), currency, 0,
      sum(case when account = 'merchant_pending' then amount end),
      sum(case when account = 'merchant_available' then amount end)
    from ledger_lines where account in ('merchant_pending', 'merchant_available')
    group by merchant_id, mode, coalesce(store_id, ''), currency`.execute(db);
}
