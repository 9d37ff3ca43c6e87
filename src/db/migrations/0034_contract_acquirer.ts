import type { Kysely } from 'kysely';

// Live payments through Monext. A contract names the acquirer its live payments go to (`simulator`: none, live card
// operations stay 503 ACQUIRER_NOT_CONFIGURED; `monext`: Monext's Retail API) and keeps that acquirer's credentials
// sealed at rest (AES-256-GCM, the secrets key of webhook secrets and IBANs); the access key is never read back but to
// call Monext.
//
// The connector's own memory of what it asked Monext (Motu's modules never read these tables): the authorizations
// it asked for or read from a widget session, by Motu's idempotency reference, and the refunds by Motu's reference,
// written before each call so that an answer lost on the way (a timeout after Monext accepted) is found again.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('contracts').addColumn('acquirer', 'text', (c) => c.notNull().defaultTo('simulator')).execute();
  await db.schema.alterTable('contracts').addColumn('acquirer_config_sealed', 'text').execute();

  await db.schema
    .createTable('monext_authorizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('contract_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('merchant_reference', 'text', (c) => c.notNull())
    // Motu's idempotency reference (a merchant-initiated payment's pay_ id), or the widget session's token.
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('monext_authorizations_reference').on('monext_authorizations').columns(['contract_id', 'reference']).unique().execute();
  await db.schema.createIndex('monext_authorizations_merchant_reference').on('monext_authorizations').columns(['merchant_reference', 'created_at']).execute();

  await db.schema
    .createTable('monext_refunds')
    .addColumn('reference', 'text', (c) => c.primaryKey())
    .addColumn('contract_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('authorization_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    // sent: asked, no answer recorded yet; succeeded / refused: Monext's answer.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'text')
    .addColumn('reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('monext_refunds_authorization').on('monext_refunds').columns(['authorization_id']).execute();
}
