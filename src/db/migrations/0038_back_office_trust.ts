import { sql, type Kysely } from 'kysely';

// Trust in the back-office.
// - sign_in_attempts: the sign-in count and lock of an email address (its SHA-256), whether or not a user has it, so
//   a known address and an unknown one are answered alike. An attempt is counted before its password is checked.
// - api_keys.created_by / api_keys.role: a key made in the back-office names its maker, and carries the maker's role
//   as a ceiling checked on every request (null for the operator's keys: the merchant's own).
// - audit_log.key_id: what a back-office key changes is audited with the key (user_id is then the key's maker).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sign_in_attempts')
    .addColumn('email_hash', 'text', (c) => c.primaryKey())
    // Attempts counted since the last success or the end of the last lock: failures, and attempts still running.
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('api_keys').addColumn('created_by', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('role', 'text').execute();
  await db.schema.createIndex('api_keys_created_by').on('api_keys').columns(['created_by']).execute();
  await db.schema.alterTable('audit_log').addColumn('key_id', 'text').execute();
  await db.schema.dropIndex('users_email').execute();
  await db.schema.createIndex('users_email').on('users').column('email').execute();
  await db.schema.createIndex('users_merchant_email').on('users').columns(['merchant_id', 'email']).unique().execute();
  // Keys made in the back-office before: the audit log names their maker. They take the maker's role, and the keys
  // of a maker already removed stop working.
  await sql`update api_keys set created_by = (select a.user_id from audit_log a where a.action = 'POST /dashboard/api/keys'
    and a.object_id = api_keys.id and a.outcome = 'succeeded' order by a.created_at limit 1) where created_by is null`.execute(db);
  await sql`update api_keys set role = (select u.role from users u where u.id = api_keys.created_by) where created_by is not null`.execute(db);
  await sql`update api_keys set revoked_at = ${new Date().toISOString()} where revoked_at is null
    and created_by in (select u.id from users u where u.removed_at is not null)`.execute(db);
}
