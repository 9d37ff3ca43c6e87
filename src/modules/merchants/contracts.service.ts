// A merchant's collection contracts (commission, fees, the statement label): exactly one active default, which
// payments use unless their store names another.
import type { Database, Trx } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Contract } from './merchants.table.js';
import type { SecretBox } from '../../shared/secret-box.js';
import {
  credentialsView, mergeCredentials, openCredentials, sealCredentials, type MonextCredentialsPatch,
} from '../../acquirer/monext/monext.config.js';

/** The acquirers a contract's live payments may go to: none ('simulator': live card operations are 503) or Monext. */
export type ContractAcquirer = 'simulator' | 'monext';
import { requireMerchant } from './merchants.repository.js';

export interface ContractInput {
  statementLabel: string;
  commissionRate: number;
  fixedFee: number;
  authorizationFee?: number;
  taxRate?: number;
  /** EUR cents per chargeback; 1500 by default. */
  disputeFee?: number;
  isDefault?: boolean;
  active?: boolean;
  /** Where live payments go; 'monext' needs the Monext credentials (given now or before). */
  acquirer?: ContractAcquirer;
  /** Monext credentials, merged over those already sealed on the contract. */
  monext?: MonextCredentialsPatch;
}

export const DEFAULT_CONTRACT: ContractInput = {
  statementLabel: '',
  commissionRate: 250,
  fixedFee: 25,
  authorizationFee: 0,
  taxRate: 1600,
  disputeFee: 1500,
};

export function contractView(c: Contract, box?: SecretBox) {
  return {
    id: c.id,
    merchantId: c.merchant_id,
    statementLabel: c.statement_label,
    commissionRate: c.commission_rate,
    fixedFee: c.fixed_fee,
    authorizationFee: c.authorization_fee,
    taxRate: c.tax_rate,
    disputeFee: c.dispute_fee,
    active: c.active === 1,
    isDefault: c.is_default === 1,
    acquirer: (c.acquirer ?? 'simulator') as ContractAcquirer,
    // Never the access key: `accessKeySet` says one is kept.
    monext: box && c.acquirer_config_sealed ? credentialsView(openCredentials(box, c.acquirer_config_sealed)) : null,
    createdAt: c.created_at,
  };
}

export class ContractsService {
  constructor(private readonly db: Database, private readonly clock: Clock, private readonly box?: SecretBox) {}

  /** The acquirer columns a create or an update writes: credentials merged, checked and sealed. */
  private acquirerColumns(current: Contract | null, input: Partial<ContractInput>): { acquirer: string; acquirer_config_sealed: string | null } {
    const acquirer = input.acquirer ?? (current?.acquirer as ContractAcquirer | undefined) ?? 'simulator';
    let sealed = current?.acquirer_config_sealed ?? null;
    if (input.monext !== undefined || (acquirer === 'monext' && !sealed)) {
      if (!this.box) throw new Error('contracts need the secrets box to keep acquirer credentials');
      sealed = sealCredentials(this.box, mergeCredentials(openCredentials(this.box, sealed), input.monext ?? {}));
    }
    return { acquirer, acquirer_config_sealed: sealed };
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  async create(merchantId: string, input: ContractInput) {
    const id = newId('mcf');
    return this.db.transaction(async (trx) => {
      await requireMerchant(trx, merchantId);
      const active = input.active ?? true;
      const isDefault = input.isDefault ?? false;
      if (isDefault && !active) throw invalidField('isDefault', 'an inactive contract cannot be the default');
      if (isDefault) await clearDefault(trx, merchantId);
      await trx
        .insertInto('contracts')
        .values({
          id,
          merchant_id: merchantId,
          statement_label: input.statementLabel,
          commission_rate: input.commissionRate,
          fixed_fee: input.fixedFee,
          authorization_fee: input.authorizationFee ?? 0,
          tax_rate: input.taxRate ?? 1600,
          dispute_fee: input.disputeFee ?? 1500,
          active: active ? 1 : 0,
          is_default: isDefault ? 1 : 0,
          created_at: this.now(),
          ...this.acquirerColumns(null, input),
        })
        .execute();
      const row = await trx.selectFrom('contracts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      return contractView(row, this.box);
    });
  }

  async update(id: string, patch: Partial<ContractInput>) {
    return this.db.transaction(async (trx) => {
      const current = await trx.selectFrom('contracts').selectAll().where('id', '=', id).executeTakeFirst();
      if (!current) throw notFound('contract', id);
      const active = patch.active ?? current.active === 1;
      let isDefault = patch.isDefault ?? current.is_default === 1;
      if (current.is_default === 1 && (patch.isDefault === false || patch.active === false)) {
        throw invalidField(patch.isDefault === false ? 'isDefault' : 'active', 'a merchant keeps exactly one active default contract; make another contract the default first');
      }
      if (isDefault && !active) throw invalidField('isDefault', 'an inactive contract cannot be the default');
      if (isDefault && current.is_default !== 1) await clearDefault(trx, current.merchant_id);
      await trx
        .updateTable('contracts')
        .set({
          statement_label: patch.statementLabel ?? current.statement_label,
          commission_rate: patch.commissionRate ?? current.commission_rate,
          fixed_fee: patch.fixedFee ?? current.fixed_fee,
          authorization_fee: patch.authorizationFee ?? current.authorization_fee,
          tax_rate: patch.taxRate ?? current.tax_rate,
          dispute_fee: patch.disputeFee ?? current.dispute_fee,
          active: active ? 1 : 0,
          is_default: isDefault ? 1 : 0,
          ...this.acquirerColumns(current, patch),
        })
        .where('id', '=', id)
        .execute();
      const row = await trx.selectFrom('contracts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      return contractView(row, this.box);
    });
  }
}

export async function clearDefault(trx: Trx, merchantId: string): Promise<void> {
  await trx.updateTable('contracts').set({ is_default: 0 }).where('merchant_id', '=', merchantId).execute();
}

export async function requireOwnContract(trx: Trx, merchantId: string, contractId: string): Promise<void> {
  const found = await trx
    .selectFrom('contracts')
    .select('id')
    .where('id', '=', contractId)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  if (!found) throw invalidField('contractId', 'is not a contract of this merchant');
}
