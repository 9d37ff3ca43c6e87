// Reading a payment as its owner may see it, shared by the merchant's operations on it (capture, cancel, refunds).
import type { Kysely } from 'kysely';
import { compiledQuery, type BoundStatement } from '../../db/compiled.js';
import type { Database, Trx } from '../../db/database.js';
import type { Mode } from '../merchants/merchants.table.js';
import type { DB } from '../../db/schema.js';
import { notFound } from '../../shared/errors.js';
import type { Owner } from '../merchants/principal.js';
import { ownedBy } from '../merchants/scope.js';
import type { PaymentRow } from './payments.table.js';

// The same read compiled once (src/db/compiled.ts), for a key bound to a store or not: every answer about one payment
// (a capture's, a detail's) reads it.
const byOwner = compiledQuery((db, p: { id: string; merchantId: string; mode: Mode }) => db.selectFrom('payments').selectAll()
  .where('id', '=', p.id).where('merchant_id', '=', p.merchantId).where('mode', '=', p.mode));
const byStore = compiledQuery((db, p: { id: string; merchantId: string; mode: Mode; storeId: string }) => db.selectFrom('payments').selectAll()
  .where('id', '=', p.id).where('merchant_id', '=', p.merchantId).where('mode', '=', p.mode).where('store_id', '=', p.storeId));

/** The row of ownedPayment, from its compiled statement. */
export function findOwnedPayment(db: Kysely<DB>, owner: Owner, id: string): Promise<PaymentRow | undefined> {
  const values = { id, merchantId: owner.merchantId, mode: owner.mode };
  return owner.storeId ? byStore.executeTakeFirst(db, { ...values, storeId: owner.storeId }) : byOwner.executeTakeFirst(db, values);
}

/** findOwnedPayment's statement, to read with others (readAll). */
export function ownedPaymentStatement(db: Kysely<DB>, owner: Owner, id: string): BoundStatement<PaymentRow> {
  const values = { id, merchantId: owner.merchantId, mode: owner.mode };
  return owner.storeId ? byStore.bind(db, { ...values, storeId: owner.storeId }) : byOwner.bind(db, values);
}

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
