import type { Kysely } from 'kysely';

// Subscriptions: a customer's card charged on due dates (merchant-initiated payments), retried on refusal, paused while
// no card can be charged. One row per due date opened; its charges are payments that carry the subscription and the
// due date, whose ids are derived from them and the attempt's number, so a due date is never charged twice.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('store_id', 'text')
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('payment_method_id', 'text')
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('interval', 'text', (c) => c.notNull())
    .addColumn('interval_count', 'integer', (c) => c.notNull())
    .addColumn('start_date', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('retry_schedule', 'text', (c) => c.notNull())
    .addColumn('end_after', 'integer')
    .addColumn('invoicing', 'text')
    .addColumn('private_data', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    // The next due date to open, and how many were opened (its index in the series).
    .addColumn('next_due_date', 'text', (c) => c.notNull())
    .addColumn('due_count', 'integer', (c) => c.notNull())
    .addColumn('cancel_at', 'text')
    .addColumn('cancelled_at', 'text')
    .addColumn('test_clock_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('subscriptions_owner').on('subscriptions').columns(['merchant_id', 'mode', 'created_at', 'id']).execute();
  await db.schema.createIndex('subscriptions_due').on('subscriptions').columns(['status', 'next_due_date']).execute();
  await db.schema.createIndex('subscriptions_payment_method').on('subscriptions').column('payment_method_id').execute();
  await db.schema.createIndex('subscriptions_test_clock').on('subscriptions').column('test_clock_id').execute();

  await db.schema
    .createTable('subscription_due_dates')
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.id'))
    .addColumn('due_date', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text')
    // A charge in flight: when a worker took it (a claim older than the operation claim lifetime is taken over).
    .addColumn('claimed_at', 'text')
    .addColumn('test_clock_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('subscription_due_dates_pk', ['subscription_id', 'due_date'])
    .execute();
  await db.schema.createIndex('subscription_due_dates_next').on('subscription_due_dates').columns(['status', 'next_attempt_at']).execute();

  // A wallet session or card link made for a subscription: the card the cardholder saves through it charges it.
  await db.schema.alterTable('wallet_sessions').addColumn('subscription_id', 'text').execute();
  await db.schema.alterTable('payments').addColumn('subscription_id', 'text').execute();
  await db.schema.alterTable('payments').addColumn('due_date', 'text').execute();
  await db.schema.createIndex('payments_subscription').on('payments').columns(['subscription_id', 'due_date']).execute();
}
