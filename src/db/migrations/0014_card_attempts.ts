import type { Kysely } from 'kysely';

// Card attempts per payment session (card testing): every card the hosted page or the card component sends to the
// acquirer for a session first takes one of its MOTU_MAX_CARD_ATTEMPTS attempts, by a conditional UPDATE of this
// counter (src/modules/checkout/checkout.service.ts), so concurrent requests cannot pass the limit together.
// A column default: existing sessions start at 0 and no INSERT has to name it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_sessions').addColumn('card_attempts', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
