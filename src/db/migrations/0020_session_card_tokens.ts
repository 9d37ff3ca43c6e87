import type { Kysely } from 'kysely';

// Card tokens per session: the anonymous token endpoint spends one of the session's MOTU_TOKENS_PER_SESSION tokens
// per call, by a conditional UPDATE of this counter (src/modules/checkout/card-token-budget.ts), so concurrent calls
// cannot pass the budget together. A column default: existing sessions start at 0 and no INSERT has to name it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_sessions').addColumn('card_tokens', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
