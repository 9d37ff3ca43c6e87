import type { Kysely } from 'kysely';

// The payment lifecycle: refunds (`re_…`), the claim a capture or cancel holds on its payment while the acquirer
// answers, the amount reserved by refunds under way, settlement time, and payment links.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('refunds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id'))
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount_eur_cents', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('refunds_payment').on('refunds').columns(['payment_id', 'created_at']).execute();

  await db.schema.alterTable('payments').addColumn('operation', 'text').execute();
  await db.schema.alterTable('payments').addColumn('operation_at', 'text').execute();
  await db.schema.alterTable('payments').addColumn('refund_reserved', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('payments').addColumn('settled_at', 'text').execute();
  await db.schema.createIndex('payments_authorized').on('payments').columns(['status', 'authorized_at']).execute();

  await db.schema.alterTable('payment_sessions').addColumn('link_id', 'text').execute();
}
