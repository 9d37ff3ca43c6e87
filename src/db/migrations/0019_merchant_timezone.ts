import type { Kysely } from 'kysely';

// The merchant's own time zone (an IANA name): receipts show the payment's local time there. NULL: the service's
// default, MOTU_TIMEZONE.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').addColumn('timezone', 'text').execute();
}
