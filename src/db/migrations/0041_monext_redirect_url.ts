import type { Kysely } from 'kysely';

// Monext gives a widget session's own payment page (`redirectURL`, where 3-D Secure and the redirection mode happen)
// only in its answer to the session's creation, not when the session is read back: the connector keeps it with the
// widget session's row, for the page that must send the cardholder there.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('monext_authorizations').addColumn('redirect_url', 'text').execute();
}
