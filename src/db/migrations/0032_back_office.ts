import type { Kysely } from 'kysely';

// The back-office (/dashboard): the merchant's team, their sessions and the audit log of what they change.
// Everything a second api process must see (a lockout, a session, a used recovery code) is a row here, never memory.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    // Lower-cased; one user per address in all of Motu.
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    // argon2id PHC string; null until the set-up link is used.
    .addColumn('password_hash', 'text')
    // The set-up link: HMAC of this nonce under a key derived from the secrets key (so a mail can be composed later
    // without the link ever being stored), valid until setup_expires_at, once (the nonce is cleared when used).
    .addColumn('setup_nonce', 'text')
    .addColumn('setup_expires_at', 'text')
    // TOTP secret, sealed (AES-256-GCM): pending while enrolment is not confirmed, then on.
    .addColumn('totp_secret', 'text')
    .addColumn('totp_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    // The last time step a code was accepted for: a code is good once.
    .addColumn('totp_last_step', 'integer')
    // JSON array of SHA-256 hashes of the unused recovery codes.
    .addColumn('recovery_codes', 'text')
    .addColumn('failed_sign_ins', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'text')
    .addColumn('invited_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'text')
    .addColumn('removed_at', 'text')
    .execute();
  await db.schema.createIndex('users_email').on('users').column('email').unique().execute();
  await db.schema.createIndex('users_merchant').on('users').columns(['merchant_id', 'created_at']).execute();

  await db.schema
    .createTable('user_sessions')
    // SHA-256 of the cookie's token: the database never holds a usable session.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema.createIndex('user_sessions_user').on('user_sessions').column('user_id').execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    // "POST /api/v1/payments/:id/refund": the route, as a merchant's developer reads it in the API reference.
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text')
    // pending (written before the change runs) → succeeded | failed (with the answer's status code).
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_owner').on('audit_log').columns(['merchant_id', 'mode', 'created_at', 'id']).execute();
  await db.schema.createIndex('audit_log_object').on('audit_log').columns(['object_id', 'created_at']).execute();
}
