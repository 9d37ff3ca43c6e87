import type { Kysely } from 'kysely';

// An endpoint registered with a key attached to a store belongs to that store: it receives only that store's payment
// events (and the merchant's events that belong to no payment), and only keys of that store, or keys attached to no
// store, see and change it. NULL: registered by a key attached to no store (every event, as before).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('store_id', 'text', (c) => c.references('stores.id')).execute();
}
