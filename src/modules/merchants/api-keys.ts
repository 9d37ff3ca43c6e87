// Secret keys (`sk_test_…` / `sk_live_…`) to principals: stored only as SHA-256 hashes, looked up on every API
// request, so the query is built once and known keys are cached while nothing could have changed them.
import { CompiledQuery } from 'kysely';
import type { Database } from '../../db/database.js';
import { ReferenceCache } from '../../db/reference-cache.js';
import { AppError } from '../../shared/errors.js';
import { sha256Hex } from '../../shared/hash.js';
import type { ApiKey } from './merchants.table.js';
import type { Principal } from './principal.js';

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
