import type { Kysely } from 'kysely';

// Authorizations at the test-mode acquirer, keyed by the caller's idempotency reference when it gives one (a
// merchant-initiated payment gives its `pay_` id): a second authorize call with the same reference returns the first
// authorization instead of charging the card again, also when both calls run at the same time (the unique index).
// Authorizations without a reference (the hosted page's attempts, one per card token) keep NULL, which a unique index
// does not compare.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('acquirer_authorizations').addColumn('reference', 'text').execute();
  await db.schema.createIndex('acquirer_authorizations_reference').unique().on('acquirer_authorizations')
    .columns(['mode', 'reference']).execute();
}
