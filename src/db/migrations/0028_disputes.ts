import type { Kysely } from 'kysely';

// Disputes: chargebacks and inquiries on captured payments. A payment keeps the amount its open or lost chargebacks
// took back (disputed_amount: a refund may not reach into it); a contract says what Motu charges per chargeback
// (dispute_fee, EUR cents). No raw data from the bank partner is stored: only what the API shows.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('disputes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('store_id', 'text')
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount_eur', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    // JSON text of the evidence fields, draft or submitted.
    .addColumn('evidence', 'text')
    .addColumn('evidence_submitted_at', 'text')
    .addColumn('evidence_due_by', 'text', (c) => c.notNull())
    // Test mode: the simulated bank's decision on submitted evidence ('won' | 'lost'), and when it answers.
    .addColumn('test_outcome', 'text')
    .addColumn('test_outcome_at', 'text')
    // The acquirer's notification it came from (one dispute per notification), null when opened otherwise.
    .addColumn('acquirer_notice', 'text', (c) => c.unique())
    .addColumn('test_clock_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('closed_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('disputes_owner').on('disputes').columns(['merchant_id', 'mode', 'created_at', 'id']).execute();
  await db.schema.createIndex('disputes_payment').on('disputes').column('payment_id').execute();
  await db.schema.createIndex('disputes_due').on('disputes').columns(['status', 'evidence_due_by']).execute();
  await db.schema.createIndex('disputes_test_outcome').on('disputes').column('test_outcome_at').execute();
  await db.schema.alterTable('payments').addColumn('disputed_amount', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('contracts').addColumn('dispute_fee', 'integer', (c) => c.notNull().defaultTo(1500)).execute();
}
