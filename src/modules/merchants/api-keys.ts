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
import type { Role } from '../users/users.table.js';
import { mayManageKeys } from '../users/roles.js';

const KEY_PATTERN = /^sk_(test|live)_[0-9A-Za-z]{32}$/;

type KeyRow = Pick<ApiKey, 'id' | 'merchant_id' | 'mode' | 'permission' | 'store_id' | 'revoked_at' | 'created_by' | 'role'>;

/** The principal a secret key speaks for; UNAUTHORIZED for a malformed, unknown or revoked key. */
export type KeyAuthenticator = (secretKey: string) => Promise<Principal>;

export function apiKeyAuthenticator(db: Database): KeyAuthenticator {
  const lookup = db.kysely
    .selectFrom('api_keys')
    .select(['id', 'merchant_id', 'mode', 'permission', 'store_id', 'revoked_at', 'created_by', 'role'])
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
    const principal = { merchantId: row.merchant_id, mode: row.mode, keyId: row.id, permission: row.permission, storeId: row.store_id };
    return row.created_by !== null && row.role !== null ? { ...principal, madeBy: { userId: row.created_by, role: row.role } } : principal;
  };
}

export interface KeyInput {
  mode: Mode;
  permission?: Permission;
  storeId?: string;
  /** Made in the back-office by this user, whose role (read as the key is written) is the key's ceiling. */
  madeBy?: { userId: string };
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
      const maker = input.madeBy ? await lockMaker(this.db, trx, merchantId, input.madeBy.userId) : undefined;
      const id = await insertKey(trx, merchantId, input, secretKey, this.now(), maker);
      return { id, secretKey, mode: input.mode, permission: input.permission ?? 'write', storeId: input.storeId ?? null };
    });
  }

  /** The keys of a merchant's environment, newest first, never their secret (only its last four characters). */
  async list(owner: Owner) {
    const rows = await this.views().where('api_keys.merchant_id', '=', owner.merchantId).where('api_keys.mode', '=', owner.mode)
      .orderBy('api_keys.created_at', 'desc').orderBy('api_keys.id', 'desc').execute();
    return rows.map(keyView);
  }

  private views() {
    return this.db.kysely.selectFrom('api_keys').leftJoin('users', 'users.id', 'api_keys.created_by')
      .select(['api_keys.id', 'api_keys.mode', 'api_keys.permission', 'api_keys.store_id', 'api_keys.last4', 'api_keys.created_at', 'api_keys.revoked_at',
        'api_keys.created_by', 'api_keys.role', 'users.email']);
  }

  /**
   * A key of the merchant's environment made in the back-office by the user `makerId`: created in the session's mode,
   * with the maker's role as it is when the key is written as its ceiling, answered with its secret once.
   */
  async createOwned(owner: Owner, makerId: string, input: Omit<KeyInput, 'mode' | 'madeBy'>) {
    const { id, secretKey } = await this.create(owner.merchantId, { ...input, mode: owner.mode, madeBy: { userId: makerId } });
    return { ...keyView(await this.views().where('api_keys.id', '=', id).executeTakeFirstOrThrow()), secretKey };
  }

  /** Revokes a key of the merchant's environment; another merchant's or mode's key is 404. */
  async revokeOwned(owner: Owner, id: string) {
    const key = await this.db.kysely.selectFrom('api_keys').select('id').where('id', '=', id)
      .where('merchant_id', '=', owner.merchantId).where('mode', '=', owner.mode).executeTakeFirst();
    if (!key) throw notFound('key', id);
    await this.revoke(id);
    return keyView(await this.views().where('api_keys.id', '=', id).executeTakeFirstOrThrow());
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

function keyView(row: Pick<ApiKey, 'id' | 'mode' | 'permission' | 'store_id' | 'last4' | 'created_at' | 'revoked_at' | 'created_by' | 'role'> & { email: string | null }) {
  return {
    id: row.id, mode: row.mode, permission: row.permission, storeId: row.store_id, last4: row.last4, createdAt: row.created_at, revokedAt: row.revoked_at,
    // Who made it in the back-office (null: the operator), and so the most it may do.
    createdBy: row.created_by ? { id: row.created_by, email: row.email ?? '' } : null, role: row.role,
  };
}

/**
 * The maker of a back-office key, locked until the key is written: their role as it is now (not as their session
 * read it), so a key made while its maker is demoted or removed takes the new role, or is not made.
 */
async function lockMaker(db: Database, trx: Trx, merchantId: string, userId: string): Promise<{ userId: string; role: Role }> {
  const row = await db.lockForUpdate(trx.selectFrom('users').select('role').where('id', '=', userId).where('merchant_id', '=', merchantId)
    .where('removed_at', 'is', null)).executeTakeFirst();
  if (!row) throw new AppError('UNAUTHORIZED', 'Your back-office session has ended; sign in again');
  if (!mayManageKeys(row.role)) throw new AppError('PERMISSION_DENIED', 'Only owners, admins and developers create API keys');
  return { userId, role: row.role };
}

export async function insertKey(trx: Trx, merchantId: string, input: KeyInput, secretKey: string, now: string, maker?: { userId: string; role: Role }): Promise<string> {
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
      created_by: maker?.userId ?? null,
      role: maker?.role ?? null,
    })
    .execute();
  return id;
}
