import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect.js';

// The back-office home's 30-day volume, kept as captures commit (src/modules/back-office/capture-volume.ts): what the
// captures of each UTC hour add up to, per merchant, mode, store ('' for none) and currency, so the home reads at
// most 744 hours of these rows instead of every payment captured over 30 days. `slot`: the capture's transaction adds
// to the slot its running balance drew (ledger_balances), so concurrent captures of one merchant rarely wait on the
// same row. Filled here from the payments already captured.
// The key leads with (merchant, mode, hour, currency): the home's read is one range of it, grouped in its order. On
// SQLite the table is the key (WITHOUT ROWID): the range holds the counts and amounts, with no lookup of each row.
export async function up(db: Kysely<any>): Promise<void> {
  const table = db.schema.createTable('capture_volume')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    // The UTC hour, as the first 13 characters of captured_at: YYYY-MM-DDTHH.
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('store_key', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('capture_volume_pk', ['merchant_id', 'mode', 'hour', 'currency', 'store_key', 'slot']);
  await (isPostgres(db) ? table : table.modifyEnd(sql`without rowid`)).execute();
  await sql`insert into capture_volume (merchant_id, mode, hour, store_key, currency, slot, count, amount)
    select merchant_id, mode, substr(captured_at, 1, 13), coalesce(store_id, ''), currency, 0, count(*), sum(captured_amount)
    from payments where captured_at is not null
    group by merchant_id, mode, substr(captured_at, 1, 13), coalesce(store_id, ''), currency`.execute(db);
}
