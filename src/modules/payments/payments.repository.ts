// Reading a payment as its owner may see it, shared by the merchant's operations on it (capture, cancel, refunds).
import type { Kysely } from 'kysely';
import type { Database, Trx } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import { notFound } from '../../shared/errors.js';
import type { Owner } from '../merchants/principal.js';
import { ownedBy } from '../merchants/scope.js';
import type { PaymentRow } from './payments.table.js';

/** Payment `id` as `owner` may see it (merchant, mode and, for a store-bound key, store). */
export function ownedPayment(db: Kysely<DB>, owner: Owner, id: string) {
  return db.selectFrom('payments').selectAll().where('id', '=', id).where(ownedBy(owner, { store: true }));
}

/** The payment, locked until `trx` ends where another process could write it meanwhile; 404 when not the owner's. */
export async function lockOwnedPayment(database: Database, trx: Trx, owner: Owner, id: string): Promise<PaymentRow> {
  const row = await database.lockForUpdate(ownedPayment(trx, owner, id)).executeTakeFirst();
  if (!row) throw notFound('payment', id);
  return row;
}
