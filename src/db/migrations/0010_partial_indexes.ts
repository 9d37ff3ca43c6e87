import { sql, type Kysely } from 'kysely';

// The scheduler's two indexes on payments only ever serve payments in transit (authorized, awaiting capture or
// expiry) and payments with an operation claimed. A new payment is neither, yet its (status, authorized_at) and
// (operation, operation_at) entries were written on every session creation: about a fifth of the SQLite work of
// POST /payments/sessions (docs/performance.md). Partial indexes hold only the rows those queries look for.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payments_authorized').execute();
  await db.schema.dropIndex('payments_operation').execute();
  await db.schema.createIndex('payments_transit').on('payments').column('authorized_at').where(sql.ref('status'), '=', sql.lit('transit')).execute();
  await db.schema.createIndex('payments_operation').on('payments').columns(['operation', 'operation_at']).where(sql.ref('operation'), 'is not', null).execute();
}
