import { sql, type Kysely } from 'kysely';

// Merchant-initiated payments (POST /payments, no session) still `pending`: the recover-merchant-payments job looks for
// the ones whose request stopped between writing the payment and recording the acquirer's answer
// (src/modules/merchant-payments/merchant-payments.service.ts). A partial index: it holds only those few rows in flight, and a
// session's payment (session_id set) never enters it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('payments_pending_charges')
    .on('payments')
    .column('created_at')
    .where(sql<boolean>`${sql.ref('status')} = 'pending' and ${sql.ref('session_id')} is null`)
    .execute();
}
