import type { Kysely } from 'kysely';

// Split payments (docs/platforms.md): each refund of a split payment takes its amount from the sellers, one row per
// seller it touches, with the commission that share gives back. Written when the refund is reserved (under the
// payment's lock, so concurrent refunds never take more than a seller has left) and deleted if the acquirer refuses it.
// The split itself is the payment's order (order_json), checked when the payment was created.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('refund_shares')
    .addColumn('refund_id', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('commission', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('refund_shares_pk', ['refund_id', 'merchant_id'])
    .execute();
  await db.schema.createIndex('refund_shares_payment').on('refund_shares').columns(['payment_id']).execute();
}
