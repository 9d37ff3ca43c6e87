import type { Kysely } from 'kysely';

// A settled payment keeps its status: `settled` (0/1) and `settled_at` tell the settlement, and `status` stays
// `captured` (or the refund status it reaches), the status every integration already counts as paid. Payments
// settled before this change read `captured` again.
export async function up(db: Kysely<any>): Promise<void> {
  await db.updateTable('payments').set({ status: 'captured' }).where('status', '=', 'settled').execute();
}
