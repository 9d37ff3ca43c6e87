import type { Kysely } from 'kysely';

// The merchant's bank accounts, where payouts go: per mode, per currency one default. The IBAN is sealed at rest (as
// webhook secrets are) and never read back but to write the operator's transfer file; what the API shows is the
// country, the last four characters and a fingerprint. A deleted account keeps its row (payouts name it) and leaves
// every list.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('bank_accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('iban_sealed', 'text', (c) => c.notNull())
    .addColumn('holder_name', 'text', (c) => c.notNull())
    .addColumn('bic', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('bank_accounts_owner').on('bank_accounts').columns(['merchant_id', 'mode', 'created_at', 'id']).execute();
}
