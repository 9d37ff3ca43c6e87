// Lookups of merchants shared by the operator's services (contracts, stores, keys, adjustments).
import type { Trx } from '../../db/database.js';
import { notFound } from '../../shared/errors.js';

/** 404 unless the merchant exists (the operator's calls on its contracts, stores and keys). */
export async function requireMerchant(trx: Trx, merchantId: string): Promise<void> {
  const found = await trx.selectFrom('merchants').select('id').where('id', '=', merchantId).executeTakeFirst();
  if (!found) throw notFound('merchant', merchantId);
}
