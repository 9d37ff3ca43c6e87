import { sql, type Kysely } from 'kysely';

// Agencies acting for their clients under mandates.
// - agency_invitations: an agency's invitation to a client (`agi_`), reached through its token's hosted page; pending
//   until accepted, cancelled or expired. Of one mode, like the key that made it.
// - agency_mandates (`mdt_`): what a client lets one agency do on its account, in one mode (scopes, a JSON array).
//   At most one active mandate per agency, client and mode; a revoked one stays, so the agency is told its calls are
//   refused (MANDATE_REVOKED) rather than that the account is unknown.
// - audit_log.agency_id: the agency that made a change on its client's account (user_id is then the agency's id).
// - agency_created_objects: what an agency created for its client, shown with actedBy in the API's answers.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('agency_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agency_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text')
    .addColumn('mandate_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('agency_invitations_owner').on('agency_invitations').columns(['agency_id', 'mode', 'created_at', 'id']).execute();
  await db.schema.createIndex('agency_invitations_pending').on('agency_invitations').column('expires_at')
    .where(sql.ref('status'), '=', sql.lit('pending')).execute();

  await db.schema.createTable('agency_mandates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agency_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('invitation_id', 'text')
    .addColumn('revoked_by', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('agency_mandates_active').on('agency_mandates').columns(['agency_id', 'merchant_id', 'mode']).unique()
    .where(sql.ref('status'), '=', sql.lit('active')).execute();
  await db.schema.createIndex('agency_mandates_agency').on('agency_mandates').columns(['agency_id', 'mode', 'created_at', 'id']).execute();
  await db.schema.createIndex('agency_mandates_client').on('agency_mandates').columns(['merchant_id', 'mode', 'created_at', 'id']).execute();

  await db.schema.alterTable('audit_log').addColumn('agency_id', 'text').execute();

  // The objects an agency created on its client's account (payments, refunds, customers, subscriptions, invoices…),
  // which the API's answers show with `actedBy: {agencyId}`.
  await db.schema.createTable('agency_created_objects')
    .addColumn('object_id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('agency_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
