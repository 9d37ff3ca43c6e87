import type { Kysely } from 'kysely';

// Invoices and credit notes. A number is given at finalization from a counter per merchant, mode, series (F invoices,
// A credit notes) and year, incremented in the finalizing transaction: a rolled-back finalization gives its number back,
// so the series has no gap, and the counter's row serializes concurrent finalizations of one series only.
export async function up(db: Kysely<any>): Promise<void> {
  // The merchant's legal identity, printed on its invoices (a merchant cannot issue one without it).
  for (const column of ['legal_name', 'address', 'registration_number', 'tax_id']) {
    await db.schema.alterTable('merchants').addColumn(column, 'text').execute();
  }
  await db.schema
    .createTable('invoices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('subscription_id', 'text')
    // The sale it invoices (a session with order.invoicing.enabled): one invoice per payment.
    .addColumn('payment_id', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('number', 'text')
    // JSON text: the lines as given, and the taxes per rate as computed.
    .addColumn('lines', 'text', (c) => c.notNull())
    .addColumn('taxes', 'text', (c) => c.notNull())
    .addColumn('memo', 'text')
    .addColumn('days_until_due', 'integer')
    .addColumn('due_date', 'text')
    .addColumn('subtotal', 'integer', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('amount_paid', 'integer', (c) => c.notNull())
    .addColumn('amount_credited', 'integer', (c) => c.notNull())
    .addColumn('content_hash', 'text')
    .addColumn('overdue', 'integer', (c) => c.notNull())
    .addColumn('finalized_at', 'text')
    .addColumn('paid_at', 'text')
    .addColumn('sent_at', 'text')
    // Sent: the hosted invoice page's unguessable token, and the payment of its card payment (a payment link's).
    .addColumn('page_token', 'text')
    .addColumn('pay_payment_id', 'text')
    .addColumn('test_clock_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('invoices_owner').on('invoices').columns(['merchant_id', 'mode', 'created_at', 'id']).execute();
  await db.schema.createIndex('invoices_number').on('invoices').columns(['merchant_id', 'mode', 'number']).unique().execute();
  await db.schema.createIndex('invoices_due').on('invoices').columns(['status', 'overdue', 'due_date']).execute();
  await db.schema.createIndex('invoices_payment').on('invoices').column('payment_id').unique().execute();
  await db.schema.createIndex('invoices_page').on('invoices').column('page_token').unique().execute();
  // A payment made through an invoice's page pays that invoice when captured.
  await db.schema.alterTable('payments').addColumn('invoice_id', 'text').execute();
  // A subscription's due date and the invoice issued for it.
  await db.schema.alterTable('subscription_due_dates').addColumn('invoice_id', 'text').execute();

  await db.schema
    .createTable('invoice_payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id'))
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('payment_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('invoice_payments_invoice').on('invoice_payments').column('invoice_id').execute();

  await db.schema
    .createTable('credit_notes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id'))
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('refund', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('credit_notes_number').on('credit_notes').columns(['merchant_id', 'mode', 'number']).unique().execute();
  await db.schema.createIndex('credit_notes_invoice').on('credit_notes').column('invoice_id').execute();

  await db.schema
    .createTable('billing_sequences')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('series', 'text', (c) => c.notNull())
    .addColumn('year', 'integer', (c) => c.notNull())
    .addColumn('last', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('billing_sequences_pk', ['merchant_id', 'mode', 'series', 'year'])
    .execute();
}
