import type { Kysely } from 'kysely';

// What Monext answered for each attempt, kept by the connector as it hears it: the card as Monext describes it (brand,
// network, last four digits, expiry, a fingerprint of Monext's card token; never a number) and the refusal code. With
// the captures and cancels Motu makes (captured_amount, captured_at, state 'cancelled'), a payment's detail lists its
// attempts from this table instead of asking Monext for every one on every read. Recovery still asks Monext.
//
// Two lookups had no index and read the whole table, one row per live payment ever made: a widget token without its
// contract (the pay call finds the contract from the token) and a Monext transaction id (a capture or cancel
// recorded on its attempt).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('monext_authorizations').addColumn('card', 'text').execute();
  await db.schema.alterTable('monext_authorizations').addColumn('refusal_code', 'text').execute();
  await db.schema.createIndex('monext_authorizations_token').on('monext_authorizations').columns(['reference']).execute();
  await db.schema.createIndex('monext_authorizations_transaction').on('monext_authorizations').columns(['transaction_id']).execute();
}
