import type { Kysely } from 'kysely';

// The acquirer's own store (test-mode simulator): cards by fingerprint (never the number), one-time
// tokens, authorizations. Also the payment's link to its acquirer authorization.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('acquirer_cards')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('brand', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('networks', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('exp_month', 'integer', (c) => c.notNull())
    .addColumn('exp_year', 'integer', (c) => c.notNull())
    .addColumn('behaviour', 'text', (c) => c.notNull())
    .addColumn('saved', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('acquirer_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('card_id', 'text', (c) => c.notNull().references('acquirer_cards.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();

  await db.schema
    .createTable('acquirer_authorizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('card_id', 'text', (c) => c.notNull().references('acquirer_cards.id'))
    .addColumn('merchant_reference', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('captured_amount', 'integer', (c) => c.notNull())
    .addColumn('refunded_amount', 'integer', (c) => c.notNull())
    .addColumn('refusal_code', 'text')
    .addColumn('capture_on_auth', 'integer', (c) => c.notNull())
    .addColumn('save_card', 'integer', (c) => c.notNull())
    .addColumn('return_url', 'text')
    .addColumn('authentication', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('captured_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('acquirer_authorizations_ref').on('acquirer_authorizations').columns(['merchant_reference']).execute();
  await db.schema.createIndex('acquirer_authorizations_captured').on('acquirer_authorizations').columns(['mode', 'captured_at']).execute();

  // The authorization currently backing a payment (captures, cancels and refunds go to it).
  await db.schema.alterTable('payments').addColumn('acquirer_authorization_id', 'text').execute();
}
