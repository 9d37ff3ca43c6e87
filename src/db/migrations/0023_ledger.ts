import { sql, type Kysely } from 'kysely';

// The merchant's ledger. Every movement of a merchant's money is a balance transaction, written in the same database
// transaction as its cause and never changed afterwards. Underneath, each is a double-entry posting whose lines (one
// per account moved) sum to zero; a settlement that makes pending money available is a posting of its own (a
// release), so a transaction's status is read from the postings, never by updating the transaction. Amounts are
// bigint: a merchant's sums may pass 2^31 minor units.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('balance_transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('store_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount_eur', 'bigint', (c) => c.notNull())
    // Created available (refunds, adjustments, payouts…) or pending until the payment settles.
    .addColumn('pending', 'integer', (c) => c.notNull())
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    // The payment a transaction is about, when it is about one (a refund's or a dispute's payment): the per-payment
    // checks and the release at settlement find them by it.
    .addColumn('payment_id', 'text')
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('balance_transactions_list').on('balance_transactions')
    .columns(['merchant_id', 'mode', 'created_at', 'id']).execute();
  await db.schema.createIndex('balance_transactions_payment').on('balance_transactions').columns(['payment_id', 'type']).execute();
  await db.schema.createIndex('balance_transactions_source').on('balance_transactions').columns(['source_id']).execute();

  await db.schema
    .createTable('ledger_postings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    // 'entry': the posting of a balance transaction; 'release': its pending money made available.
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // One entry and at most one release per transaction: a second release (two settlement runs) cannot be written.
  await db.schema.createIndex('ledger_postings_once').on('ledger_postings').columns(['transaction_id', 'kind']).unique().execute();

  await db.schema
    .createTable('ledger_lines')
    .addColumn('posting_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('store_id', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('ledger_lines_pk', ['posting_id', 'account'])
    .execute();
  await db.schema.createIndex('ledger_lines_balance').on('ledger_lines')
    .columns(['merchant_id', 'mode', 'account', 'currency']).execute();

  // What a payout carries: each available transaction belongs to the first payout after it. Written once per
  // transaction (the primary key), never changed.
  await db.schema
    .createTable('payout_items')
    .addColumn('transaction_id', 'text', (c) => c.primaryKey())
    .addColumn('payout_id', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payout_items_payout').on('payout_items').columns(['payout_id']).execute();

  // Payments captured before this migration have no transactions (their money was never in a balance): `motu ledger
  // verify` checks the payments captured from here on.
  await sql`insert into settings (name, value) values ('ledger.started_at', ${new Date().toISOString()})`.execute(db);
}
