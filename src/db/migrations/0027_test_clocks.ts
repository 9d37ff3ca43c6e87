import type { Kysely } from 'kysely';

// Test clocks: a frozen time a test-mode merchant moves forward by hand. A customer created on a clock, and the payments
// and sessions made for it, read "now" from the clock: their time-driven rules (session expiry, authorization expiry,
// settlement, dispute deadlines) run when the clock is advanced, not as real time passes. The clock's id is copied on
// those rows so each rule finds the objects of one clock without a join.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('test_clocks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('frozen_time', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    // While advancing: the time asked for, and when a worker claimed the run (a claim older than a minute is taken over).
    .addColumn('target_time', 'text')
    .addColumn('claimed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('test_clocks_owner').on('test_clocks').columns(['merchant_id', 'mode', 'created_at', 'id']).execute();
  await db.schema.createIndex('test_clocks_advancing').on('test_clocks').columns(['status', 'claimed_at']).execute();
  for (const table of ['customers', 'payments', 'payment_sessions']) {
    await db.schema.alterTable(table).addColumn('test_clock_id', 'text').execute();
    await db.schema.createIndex(`${table}_test_clock`).on(table).column('test_clock_id').execute();
  }
}
