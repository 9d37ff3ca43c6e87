import type { Kysely } from 'kysely';

// A settled payment keeps its status: `settled` (0/1) and `settled_at` tell the settlement, and `status` stays
// `captured` (or the refund status it reaches), the status every integration already counts as paid. Payments
// settled before this change read `captured` again.
//
// The test-mode acquirer keeps the statement label each authorization was asked with, as a real acquirer prints it
// on the cardholder's statement.
export async function up(db: Kysely<any>): Promise<void> {
  await settledBackToCaptured(db);
  await db.schema.alterTable('acquirer_authorizations').addColumn('statement_label', 'text').execute();
}

export async function settledBackToCaptured(db: Kysely<any>): Promise<void> {
  await db.updateTable('payments').set({ status: 'captured' }).where('status', '=', 'settled').execute();
}
