// Operator-side rules: merchants, their contracts, stores and API keys.
import type { SecretBox } from '../../shared/secret-box.js';
import type { Database, Trx } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import { sha256Hex } from '../../shared/hash.js';
import { newId, randomToken } from '../../shared/ids.js';
import type { Contract, Merchant, Mode, Permission, Store, StoreKind } from './merchants.table.js';
import { isHexColor, themeOf } from './branding.js';
import { canonicalTimeZone } from '../../shared/timezone.js';

export interface ContractInput {
  statementLabel: string;
  commissionRate: number;
  fixedFee: number;
  authorizationFee?: number;
  taxRate?: number;
  isDefault?: boolean;
  active?: boolean;
}

export interface StoreInput {
  code: string;
  name: string;
  kind: StoreKind;
  contractId?: string;
  active?: boolean;
}

export interface KeyInput {
  mode: Mode;
  permission?: Permission;
  storeId?: string;
}

export const DEFAULT_CONTRACT: ContractInput = {
  statementLabel: '',
  commissionRate: 250,
  fixedFee: 25,
  authorizationFee: 0,
  taxRate: 1600,
};

export function contractView(c: Contract) {
  return {
    id: c.id,
    merchantId: c.merchant_id,
    statementLabel: c.statement_label,
    commissionRate: c.commission_rate,
    fixedFee: c.fixed_fee,
    authorizationFee: c.authorization_fee,
    taxRate: c.tax_rate,
    active: c.active === 1,
    isDefault: c.is_default === 1,
    createdAt: c.created_at,
  };
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

export function newSecretKey(mode: Mode): string {
  return `sk_${mode}_${randomToken(32)}`;
}

export function newWebhookSecret(): string {
  return `whsec_${randomToken(32)}`;
}

export interface MerchantPatchInput {
  name?: string;
  displayName?: string | null;
  primaryColor?: string | null;
  accentColor?: string | null;
  timezone?: string | null;
}

export function merchantView(m: Merchant) {
  const theme = themeOf(m);
  return {
    id: m.id,
    name: m.name,
    displayName: m.display_name,
    primaryColor: m.primary_color,
    accentColor: m.accent_color,
    /** IANA time zone of the receipts; null: the service's default (MOTU_TIMEZONE). */
    timezone: m.timezone,
    /** The text colour drawn on primaryColor (white or dark, by contrast), null without colours. */
    onPrimaryColor: theme?.onPrimary ?? null,
    createdAt: m.created_at,
  };
}

export class MerchantsService {
  /** `box` seals the webhook signing secrets at rest (src/shared/secret-box.ts). */
  constructor(private readonly db: Database, private readonly clock: Clock, private readonly box: SecretBox) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  async createMerchant(input: { name: string }) {
    const id = newId('mer');
    const now = this.now();
    const testSecretKey = newSecretKey('test');
    const liveSecretKey = newSecretKey('live');
    const testWebhookSecret = newWebhookSecret();
    const liveWebhookSecret = newWebhookSecret();
    const contractId = newId('mcf');
    await this.db.transaction(async (trx) => {
      await trx.insertInto('merchants').values({ id, name: input.name, created_at: now }).execute();
      await trx
        .insertInto('webhook_secrets')
        .values([
          { merchant_id: id, mode: 'test', secret: this.box.seal(testWebhookSecret), previous_secret: null, previous_valid_until: null, updated_at: now },
          { merchant_id: id, mode: 'live', secret: this.box.seal(liveWebhookSecret), previous_secret: null, previous_valid_until: null, updated_at: now },
        ])
        .execute();
      await trx
        .insertInto('contracts')
        .values({
          id: contractId,
          merchant_id: id,
          statement_label: input.name.slice(0, 22).toUpperCase(),
          commission_rate: DEFAULT_CONTRACT.commissionRate,
          fixed_fee: DEFAULT_CONTRACT.fixedFee,
          authorization_fee: DEFAULT_CONTRACT.authorizationFee ?? 0,
          tax_rate: DEFAULT_CONTRACT.taxRate ?? 1600,
          active: 1,
          is_default: 1,
          created_at: now,
        })
        .execute();
      await insertKey(trx, id, { mode: 'test' }, testSecretKey, now);
      await insertKey(trx, id, { mode: 'live' }, liveSecretKey, now);
    });
    return { id, name: input.name, testSecretKey, liveSecretKey, testWebhookSecret, liveWebhookSecret, defaultContractId: contractId };
  }

  async getMerchant(id: string) {
    const merchant = await this.db.kysely.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
    if (!merchant) throw notFound('merchant', id);
    const contracts = await this.db.kysely.selectFrom('contracts').selectAll().where('merchant_id', '=', id).orderBy('created_at').execute();
    const stores = await this.db.kysely.selectFrom('stores').selectAll().where('merchant_id', '=', id).orderBy('created_at').execute();
    return {
      ...merchantView(merchant),
      contracts: contracts.map(contractView),
      stores: stores.map(storeView),
    };
  }

  async listMerchants() {
    const rows = await this.db.kysely.selectFrom('merchants').selectAll().orderBy('created_at').execute();
    return rows.map(merchantView);
  }

  /** Name, display name and colours (`#rrggbb`; null restores the default). */
  async updateMerchant(id: string, patch: MerchantPatchInput) {
    for (const field of ['primaryColor', 'accentColor'] as const) {
      const value = patch[field];
      if (value !== undefined && value !== null && !isHexColor(value)) throw invalidField(field, 'must be a colour #rrggbb');
    }
    let timezone: string | null | undefined = patch.timezone;
    if (typeof timezone === 'string') {
      timezone = canonicalTimeZone(timezone);
      if (!timezone) throw invalidField('timezone', 'must be an IANA time zone such as Pacific/Tahiti or Europe/Paris');
    }
    const set = {
      ...(timezone !== undefined ? { timezone } : {}),
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.displayName !== undefined ? { display_name: patch.displayName } : {}),
      ...(patch.primaryColor !== undefined ? { primary_color: patch.primaryColor?.toLowerCase() ?? null } : {}),
      ...(patch.accentColor !== undefined ? { accent_color: patch.accentColor?.toLowerCase() ?? null } : {}),
    };
    if (Object.keys(set).length > 0) {
      const res = await this.db.kysely.updateTable('merchants').set(set).where('id', '=', id).executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) throw notFound('merchant', id);
    }
    return this.getMerchant(id);
  }

  private async requireMerchant(trx: Trx, merchantId: string): Promise<void> {
    const found = await trx.selectFrom('merchants').select('id').where('id', '=', merchantId).executeTakeFirst();
    if (!found) throw notFound('merchant', merchantId);
  }

  async createContract(merchantId: string, input: ContractInput) {
    const id = newId('mcf');
    return this.db.transaction(async (trx) => {
      await this.requireMerchant(trx, merchantId);
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
          active: active ? 1 : 0,
          is_default: isDefault ? 1 : 0,
          created_at: this.now(),
        })
        .execute();
      const row = await trx.selectFrom('contracts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      return contractView(row);
    });
  }

  async updateContract(id: string, patch: Partial<ContractInput>) {
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
          active: active ? 1 : 0,
          is_default: isDefault ? 1 : 0,
        })
        .where('id', '=', id)
        .execute();
      const row = await trx.selectFrom('contracts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      return contractView(row);
    });
  }

  async createStore(merchantId: string, input: StoreInput) {
    const id = newId('sto');
    try {
      return await this.db.transaction(async (trx) => {
        await this.requireMerchant(trx, merchantId);
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

  async updateStore(id: string, patch: { active?: boolean; name?: string; contractId?: string | null }) {
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

  async createKey(merchantId: string, input: KeyInput) {
    const secretKey = newSecretKey(input.mode);
    return this.db.transaction(async (trx) => {
      await this.requireMerchant(trx, merchantId);
      if (input.storeId) {
        const store = await trx
          .selectFrom('stores')
          .select('id')
          .where('id', '=', input.storeId)
          .where('merchant_id', '=', merchantId)
          .executeTakeFirst();
        if (!store) throw invalidField('storeId', 'is not a store of this merchant');
      }
      const id = await insertKey(trx, merchantId, input, secretKey, this.now());
      return { id, secretKey, mode: input.mode, permission: input.permission ?? 'write', storeId: input.storeId ?? null };
    });
  }

  async revokeKey(id: string) {
    const now = this.now();
    const result = await this.db.kysely
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) {
      const exists = await this.db.kysely.selectFrom('api_keys').select(['id', 'revoked_at']).where('id', '=', id).executeTakeFirst();
      if (!exists) throw notFound('key', id);
      return { id, revoked: true, revokedAt: exists.revoked_at };
    }
    return { id, revoked: true, revokedAt: now };
  }
}

async function insertKey(trx: Trx, merchantId: string, input: KeyInput, secretKey: string, now: string): Promise<string> {
  const id = newId('key');
  await trx
    .insertInto('api_keys')
    .values({
      id,
      merchant_id: merchantId,
      mode: input.mode,
      key_hash: sha256Hex(secretKey),
      last4: secretKey.slice(-4),
      permission: input.permission ?? 'write',
      store_id: input.storeId ?? null,
      created_at: now,
      revoked_at: null,
    })
    .execute();
  return id;
}

async function clearDefault(trx: Trx, merchantId: string): Promise<void> {
  await trx.updateTable('contracts').set({ is_default: 0 }).where('merchant_id', '=', merchantId).execute();
}

async function requireOwnContract(trx: Trx, merchantId: string, contractId: string): Promise<void> {
  const found = await trx
    .selectFrom('contracts')
    .select('id')
    .where('id', '=', contractId)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  if (!found) throw invalidField('contractId', 'is not a contract of this merchant');
}
