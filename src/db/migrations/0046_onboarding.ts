import { sql, type Kysely } from 'kysely';

// Onboarding of a platform's sellers. A session (obs_) is the link a platform hands a business: its URL carries the
// session id and an HMAC of it (nothing secret is stored), and opens the hosted form once, until it expires. What the form sends is an onboarding
// case (obc_): the business's legal identity, its representative and its IBAN (sealed at rest, as bank accounts
// keep theirs), reviewed to APPROVED (the seller is created then), CORRECTION_REQUESTED (a new session corrects the
// same case) or REFUSED (final).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('onboarding_cases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('enrollment_status', 'text', (c) => c.notNull())
    .addColumn('legal_name', 'text', (c) => c.notNull())
    .addColumn('registration_number', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('representative', 'text', (c) => c.notNull())
    .addColumn('iban_sealed', 'text', (c) => c.notNull())
    .addColumn('iban_country', 'text', (c) => c.notNull())
    .addColumn('iban_last4', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('reasons', 'text')
    .addColumn('submissions', 'integer', (c) => c.notNull())
    .addColumn('seller_id', 'text', (c) => c.references('merchants.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text')
    .execute();
  await db.schema.createIndex('onboarding_cases_platform').on('onboarding_cases').columns(['platform_id', 'mode', 'created_at', 'id']).execute();
  await db.schema.createIndex('onboarding_cases_status').on('onboarding_cases').columns(['enrollment_status', 'mode', 'created_at']).execute();
  await db.schema
    .createTable('onboarding_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('business_name', 'text')
    .addColumn('return_url', 'text', (c) => c.notNull())
    .addColumn('refresh_url', 'text')
    .addColumn('case_id', 'text', (c) => c.references('onboarding_cases.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('cancelled_at', 'text')
    .execute();
  await db.schema.createIndex('onboarding_sessions_platform').on('onboarding_sessions').columns(['platform_id', 'mode', 'created_at', 'id']).execute();
  await db.schema.createIndex('onboarding_sessions_open').on('onboarding_sessions').column('expires_at')
    .where(sql.ref('status'), '=', sql.lit('open')).execute();
}
