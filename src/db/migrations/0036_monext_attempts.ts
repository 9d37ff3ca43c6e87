import type { Kysely } from 'kysely';

// What Monext answered for each attempt, kept by the connector as it hears it: the card as Monext describes it (brand,
// network, last four digits, expiry, a fingerprint of Monext's card token; never a number) and the refusal code. With
// the captures and cancels Motu makes (captured_amount, captured_at, state 'cancelled'), a payment's detail lists its
// attempts from this table instead of asking Monext for every one on every read. Recovery still asks Monext.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('monext_authorizations').addColumn('card', 'text').execute();
  await db.schema.alterTable('monext_authorizations').addColumn('refusal_code', 'text').execute();
}
