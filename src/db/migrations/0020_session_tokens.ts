import type { Kysely } from 'kysely';

// Card tokens per session (disk fill, card testing): the token endpoint takes one of the session's
// MOTU_TOKENS_PER_SESSION by a conditional UPDATE of this counter before the acquirer writes anything, so concurrent
// requests cannot pass the bound together. A column default: existing sessions start at 0.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_sessions').addColumn('tokens_issued', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
