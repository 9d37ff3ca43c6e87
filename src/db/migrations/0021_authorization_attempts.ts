import { sql, type Kysely } from 'kysely';

// Each payment keeps how many authorizations were asked for it (the fee lines bill each attempt), maintained by the
// payment transitions as the acquirer answers, so building an event never has to ask the acquirer. Payments made
// before this change take the count the test-mode acquirer recorded under their id (a live acquirer's attempts are
// not stored here: those start at 0, and a captured payment still bills at least one).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payments').addColumn('authorization_attempts', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await sql`update payments set authorization_attempts = (
    select count(*) from acquirer_authorizations a where a.merchant_reference = payments.id and a.mode = payments.mode
  )`.execute(db);
}
