import type { Kysely } from 'kysely';

// Payouts: the merchant's available money sent to its bank account. A payout's own `payout` transaction debits the
// balance in the transaction that creates it; a failure (or a cancellation) credits it back with `payout_failure`.
// The balance transactions a payout carries are listed in payout_items (migration 0023).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payouts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('automatic', 'integer', (c) => c.notNull())
    .addColumn('bank_account_id', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('arrival_date', 'text', (c) => c.notNull())
    .addColumn('failure_reason', 'text')
    .addColumn('failure_message', 'text')
    // Test mode: when the simulated bank answers; null in live mode (the operator records the bank's answer).
    .addColumn('answer_due_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payouts_owner').on('payouts').columns(['merchant_id', 'mode', 'created_at', 'id']).execute();
  await db.schema.createIndex('payouts_due').on('payouts').columns(['status', 'answer_due_at']).execute();
  await db.schema.createIndex('payouts_account').on('payouts').columns(['bank_account_id', 'created_at']).execute();
}
