import type { Kysely } from 'kysely';

// Refunds at the test-mode acquirer, keyed by the caller's reference (Motu's `re_` id): a second call with the
// same reference returns the first result instead of refunding again, and a refund can be looked up by its
// reference (recovery of refunds interrupted between Motu's two transactions). Plus the index the recovery job
// scans: pending refunds by age.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('acquirer_refunds')
    .addColumn('reference', 'text', (c) => c.primaryKey())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('authorization_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('refunds_status_created').on('refunds').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('payments_operation').on('payments').columns(['operation', 'operation_at']).execute();
}
