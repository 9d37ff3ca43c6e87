import { sql, type Kysely } from 'kysely';

// Marketplaces and agencies. A platform is a merchant whose sellers are merchants linked to it; an agency is a
// merchant that manages client accounts under mandates: both are flags the operator sets (0/1).
// `opened_at` marks a merchant's payment account as open (it can collect): every merchant that exists today was
// created by the operator and collects already, so it counts as open from its creation; a seller onboarded through
// a platform is opened when its case is approved.
// `platform_links`: a seller linked to a platform in one mode (the mode of the onboarding that made it). Unlinking
// keeps the row (unlinked_at): a link is history, and at most one link of a pair and mode is current.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').addColumn('platform', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('merchants').addColumn('agency', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('merchants').addColumn('opened_at', 'text').execute();
  await db.updateTable('merchants').set({ opened_at: sql.ref('created_at') }).execute();
  await db.schema
    .createTable('platform_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('seller_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('case_id', 'text')
    .addColumn('linked_at', 'text', (c) => c.notNull())
    .addColumn('unlinked_at', 'text')
    .execute();
  await db.schema.createIndex('platform_links_current').unique().on('platform_links').columns(['platform_id', 'seller_id', 'mode'])
    .where(sql.ref('unlinked_at'), 'is', null).execute();
  await db.schema.createIndex('platform_links_platform').on('platform_links').columns(['platform_id', 'mode', 'linked_at', 'id']).execute();
  await db.schema.createIndex('platform_links_seller').on('platform_links').columns(['seller_id', 'mode']).execute();
}
