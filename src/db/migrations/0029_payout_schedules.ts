import type { Kysely } from 'kysely';

// Automatic payouts: each merchant's schedule per mode (no row: the default, daily). last_run_on is the UTC day of the
// last automatic run, claimed before the run so two workers never pay the same day twice.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payout_schedules')
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('interval', 'text', (c) => c.notNull())
    .addColumn('weekly_anchor', 'text', (c) => c.notNull())
    .addColumn('monthly_anchor', 'integer', (c) => c.notNull())
    .addColumn('delay_days', 'integer', (c) => c.notNull())
    .addColumn('last_run_on', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('payout_schedules_pk', ['merchant_id', 'mode'])
    .execute();
}
