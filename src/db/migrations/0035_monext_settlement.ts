import type { Kysely } from 'kysely';

// Settlement of live Monext payments. Monext's Retail API publishes no settlement report: the connector reads each
// open authorization's transaction back from Monext until it shows a capture, keeps the capture (amount, Monext's
// date), and reports the payment settled once the remittance delay (MOTU_MONEXT_SETTLEMENT_DELAY) has passed since
// that capture. `settled_at` is when the connector reported it (an authorization that ended without a capture gets
// one too, with no captured amount, so it is never read again); `checked_at` spaces the reads of one not yet captured.
//
// Saved cards from a live payment: a widget session for a payment whose customer may save the card is opened with a
// Monext wallet; `wallet_id` keeps it (the transaction id is written over when the authorization is read).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('monext_authorizations').addColumn('wallet_id', 'text').execute();
  await db.schema.alterTable('monext_authorizations').addColumn('captured_amount', 'integer').execute();
  await db.schema.alterTable('monext_authorizations').addColumn('captured_at', 'text').execute();
  await db.schema.alterTable('monext_authorizations').addColumn('checked_at', 'text').execute();
  await db.schema.alterTable('monext_authorizations').addColumn('settled_at', 'text').execute();
  await db.schema.createIndex('monext_authorizations_settlement').on('monext_authorizations')
    .columns(['contract_id', 'mode', 'settled_at', 'created_at']).execute();
}
