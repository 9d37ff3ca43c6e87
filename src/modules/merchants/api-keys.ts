// Secret keys (`sk_test_…` / `sk_live_…`): created and revoked by the operator, stored only as SHA-256 hashes, and
// turned into principals on every API request, so the lookup is built once and known keys are cached while nothing
// could have changed them.
import { CompiledQuery } from 'kysely';
import type { Database, Trx } from '../../db/database.js';
import { ReferenceCache } from '../../db/reference-cache.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import { sha256Hex } from '../../shared/hash.js';
import { newId, randomToken } from '../../shared/ids.js';
import type { ApiKey, Mode, Permission } from './merchants.table.js';
import { requireMerchant } from './merchants.repository.js';
import type { Owner, Principal } from './principal.js';

const KEY_PATTERN = /^sk_(test|live)_[0-9A-Za-z]{32}$/;

type KeyRow = Pick<ApiKey, 'id' | 'merchant_id' | 'mode' | 'permission' | 'store_id' | 'revoked_at'>;

/** The principal a secret key speaks for; UNAUTHORIZED for a malformed, unknown or revoked key. */
export type KeyAuthenticator = (secretKey: string) => Promise<Principal>;

export function apiKeyAuthenticator(db: Database): KeyAuthenticator {
  const lookup = db.kysely
    .selectFrom('api_keys')
    .select(['id', 'merchant_id', 'mode', 'permission', 'store_id', 'revoked_at'])
    .where('key_hash', '=', '')
    .compile();
  db.keepPrepared?.(lookup.sql);
  const keys = new ReferenceCache(db);
  return async (secretKey) => {
    if (!KEY_PATTERN.test(secretKey)) throw new AppError('UNAUTHORIZED', 'This API key is not valid');
    const hash = sha256Hex(secretKey);
    // A known key is kept while nothing could have changed it (ReferenceCache: a revocation through this process's API
    // empties the cache before the next request, another process's once its commit is heard); unknown keys are never kept.
    const row = await keys.get(hash, async () => (await db.kysely.executeQuery<KeyRow>(CompiledQuery.raw(lookup.sql, [hash]))).rows[0], (found) => found !== undefined);
    if (!row) throw new AppError('UNAUTHORIZED', 'This API key is not valid');
    if (row.revoked_at) throw new AppError('UNAUTHORIZED', 'This API key has been revoked');
    return { merchantId: row.merchant_id, mode: row.mode, keyId: row.id, permission: row.permission, storeId: row.store_id };
  };
}

export interface KeyInput {
  mode: Mode;
  permission?: Permission;
  storeId?: string;
}

export function newSecretKey(mode: Mode): string {
  return `sk_${mode}_${randomToken(32)}`;
}

export class ApiKeysService {
  constructor(private readonly db: Database, private readonly clock: Clock) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  async create(merchantId: string, input: KeyInput) {
    const secretKey = newSecretKey(input.mode);
    return this.db.transaction(async (trx) => {
      await requireMerchant(trx, merchantId);
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

  /** The keys of a merchant's environment, newest first, never their secret (only its last four characters). */
  async list(owner: Owner) {
    const rows = await this.db.kysely.selectFrom('api_keys').select(['id', 'mode', 'permission', 'store_id', 'last4', 'created_at', 'revoked_at'])
      .where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
    return rows.map(keyView);
  }

  /** A key of the merchant's environment (the back-office): created in that mode, answered with its secret once. */
  async createOwned(owner: Owner, input: Omit<KeyInput, 'mode'>) {
    const created = await this.create(owner.merchantId, { ...input, mode: owner.mode });
    return { ...created, last4: created.secretKey.slice(-4), createdAt: this.now(), revokedAt: null };
  }

  /** Revokes a key of the merchant's environment; another merchant's or mode's key is 404. */
  async revokeOwned(owner: Owner, id: string) {
    const key = await this.db.kysely.selectFrom('api_keys').select('id').where('id', '=', id)
      .where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode).executeTakeFirst();
    if (!key) throw notFound('key', id);
    await this.revoke(id);
    const row = await this.db.kysely.selectFrom('api_keys').select(['id', 'mode', 'permission', 'store_id', 'last4', 'created_at', 'revoked_at'])
      .where('id', '=', id).executeTakeFirstOrThrow();
    return keyView(row);
  }

  async revoke(id: string) {
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
      return { id, revoked: true as const, revokedAt: exists.revoked_at };
    }
    return { id, revoked: true as const, revokedAt: now };
  }
}

function keyView(row: Pick<ApiKey, 'id' | 'mode' | 'permission' | 'store_id' | 'last4' | 'created_at' | 'revoked_at'>) {
  return { id: row.id, mode: row.mode, permission: row.permission, storeId: row.store_id, last4: row.last4, createdAt: row.created_at, revokedAt: row.revoked_at };
}

export async function insertKey(trx: Trx, merchantId: string, input: KeyInput, secretKey: string, now: string): Promise<string> {
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
