// A merchant's stores (online shops, physical points of sale): a code unique per merchant, and optionally a contract
// of their own.
import type { Database } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { requireOwnContract } from './contracts.service.js';
import type { Store, StoreKind } from './merchants.table.js';
import { requireMerchant } from './merchants.repository.js';

export interface StoreInput {
  code: string;
  name: string;
  kind: StoreKind;
  contractId?: string;
  active?: boolean;
}

export function storeView(s: Store) {
  return {
    id: s.id,
    merchantId: s.merchant_id,
    code: s.code,
    name: s.name,
    kind: s.kind,
    active: s.active === 1,
    contractId: s.contract_id,
    createdAt: s.created_at,
  };
}

export class StoresService {
  constructor(private readonly db: Database, private readonly clock: Clock) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** A merchant's stores, oldest first (the back-office's store filter). */
  async listOf(merchantId: string) {
    const rows = await this.db.kysely.selectFrom('stores').selectAll().where('merchant_id', '=', merchantId).orderBy('created_at').orderBy('id').execute();
    return rows.map(storeView);
  }

  async create(merchantId: string, input: StoreInput) {
    const id = newId('sto');
    try {
      return await this.db.transaction(async (trx) => {
        await requireMerchant(trx, merchantId);
        if (input.contractId) await requireOwnContract(trx, merchantId, input.contractId);
        await trx
          .insertInto('stores')
          .values({
            id,
            merchant_id: merchantId,
            code: input.code,
            name: input.name,
            kind: input.kind,
            active: input.active === false ? 0 : 1,
            contract_id: input.contractId ?? null,
            created_at: this.now(),
          })
          .execute();
        const row = await trx.selectFrom('stores').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        return storeView(row);
      });
    } catch (err) {
      if (this.db.isUniqueViolation(err)) {
        throw new AppError('ALREADY_EXISTS', `This merchant already has a store with code ${input.code}`, { field: 'code' });
      }
      throw err;
    }
  }

  async update(id: string, patch: { active?: boolean; name?: string; contractId?: string | null }) {
    return this.db.transaction(async (trx) => {
      const current = await trx.selectFrom('stores').selectAll().where('id', '=', id).executeTakeFirst();
      if (!current) throw notFound('store', id);
      if (patch.contractId) await requireOwnContract(trx, current.merchant_id, patch.contractId);
      await trx
        .updateTable('stores')
        .set({
          name: patch.name ?? current.name,
          active: patch.active === undefined ? current.active : patch.active ? 1 : 0,
          contract_id: patch.contractId === undefined ? current.contract_id : patch.contractId,
        })
        .where('id', '=', id)
        .execute();
      const row = await trx.selectFrom('stores').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      return storeView(row);
    });
  }
}
