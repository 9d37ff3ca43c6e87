import { sql, type Kysely } from 'kysely';

// Customer card wallets: saved cards (payment methods), the wallet side of a card-registration session
// (its outcome), and card links (a registration invitation that lives days).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payment_methods')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('acquirer_card_ref', 'text', (c) => c.notNull())
    .addColumn('brand', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('networks', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('exp_month', 'integer', (c) => c.notNull())
    .addColumn('exp_year', 'integer', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('removed_reason', 'text')
    .addColumn('removed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payment_methods_customer').on('payment_methods')
    .columns(['merchant_id', 'mode', 'customer_id', 'created_at', 'id']).execute();
  // One active payment method per card (fingerprint) in a wallet: a re-saved card is the same pm_.
  await db.schema.createIndex('payment_methods_active_fingerprint').on('payment_methods')
    .columns(['customer_id', 'fingerprint']).unique().where(sql.ref('status'), '=', sql.lit('active')).execute();

  await db.schema
    .createTable('card_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id'))
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('send_email', 'integer', (c) => c.notNull())
    .addColumn('cancelled_at', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('card_links_customer').on('card_links').columns(['merchant_id', 'mode', 'customer_id', 'created_at']).execute();

  await db.schema
    .createTable('wallet_sessions')
    .addColumn('session_id', 'text', (c) => c.primaryKey())
    .addColumn('card_link_id', 'text')
    .addColumn('outcome', 'text')
    .addColumn('payment_method_id', 'text')
    .addColumn('refusal_code', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
