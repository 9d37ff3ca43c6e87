// Merchant authentication: `Authorization: Bearer sk_test_…|sk_live_…`, looked up by SHA-256 hash.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.js';
import { CompiledQuery } from 'kysely';
import type { ApiKey, Mode, Permission } from '../modules/merchants/merchants.table.js';
import { AppError } from '../shared/errors.js';
import { sha256Hex } from '../shared/hash.js';
import { ReferenceCache } from '../db/reference-cache.js';

export interface MerchantAuth {
  readonly merchantId: string;
  readonly mode: Mode;
  readonly keyId: string;
  readonly permission: Permission;
  /** The store the key is attached to; it prevails over the body's storeId. */
  readonly storeId: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    merchant: MerchantAuth | null;
    /** Why authentication failed, answered once the rate limit has counted the request (merchantAuthHooks). */
    authFailure: AppError | null;
  }
  interface FastifyContextConfig {
    /** The route answers a secret (the webhook signing secret): refused to read-only keys, even on GET. */
    readsSecret?: boolean;
  }
}

const KEY_PATTERN = /^sk_(test|live)_[0-9A-Za-z]{32}$/;

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

type KeyRow = Pick<ApiKey, 'id' | 'merchant_id' | 'mode' | 'permission' | 'store_id' | 'revoked_at'>;

/**
 * Authentication in two steps around the rate limit (a route-level onRequest hook, so it runs between them):
 * `identify` (onRequest) finds the key, or keeps why it failed; the limit then counts the request against the key's
 * id, or against the client address when no key was identified; `enforce` (preParsing) answers a kept failure. So
 * however "Bearer" is spelled, one key has one budget, and failed attempts are limited too.
 */
export function merchantAuthHooks(db: Database) {
  const authenticate = merchantAuthHook(db);
  return {
    async identify(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      try {
        await authenticate(request, reply);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        request.authFailure = err;
      }
    },
    async enforce(request: FastifyRequest, _reply: FastifyReply, payload: unknown): Promise<unknown> {
      if (request.authFailure) throw request.authFailure;
      return payload;
    },
  };
}

/** The rate limit's bucket: the authenticated key, else the client address. */
export function rateLimitKey(request: FastifyRequest): string {
  return request.merchant ? `key:${request.merchant.keyId}` : `ip:${request.ip}`;
}

function merchantAuthHook(db: Database) {
  // Every API request runs this query: it is built once, and only its parameter changes.
  const lookup = db.kysely
    .selectFrom('api_keys')
    .select(['id', 'merchant_id', 'mode', 'permission', 'store_id', 'revoked_at'])
    .where('key_hash', '=', '')
    .compile();
  db.keepPrepared?.(lookup.sql);
  const keys = new ReferenceCache(db);
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const token = bearerToken(request);
    if (!token) throw new AppError('UNAUTHORIZED', 'Send your secret key as "Authorization: Bearer sk_test_…"');
    if (!KEY_PATTERN.test(token)) throw new AppError('UNAUTHORIZED', 'This API key is not valid');
    const hash = sha256Hex(token);
    // A known key is kept while nothing could have changed it (ReferenceCache: a revocation through this process's API
    // empties the cache before the next request, another process's once its commit is heard); unknown keys are never kept.
    const row = await keys.get(hash, async () => (await db.kysely.executeQuery<KeyRow>(CompiledQuery.raw(lookup.sql, [hash]))).rows[0], (found) => found !== undefined);
    if (!row) throw new AppError('UNAUTHORIZED', 'This API key is not valid');
    if (row.revoked_at) throw new AppError('UNAUTHORIZED', 'This API key has been revoked');
    request.merchant = {
      merchantId: row.merchant_id,
      mode: row.mode,
      keyId: row.id,
      permission: row.permission,
      storeId: row.store_id,
    };
    if (row.permission === 'read' && request.method !== 'GET' && request.method !== 'HEAD') {
      throw new AppError('PERMISSION_DENIED', 'This key can only read; use a key with write permission');
    }
    // A read key is for reporting: with the signing secret it could forge the webhooks the merchant trusts.
    if (row.permission === 'read' && request.routeOptions.config?.readsSecret) {
      throw new AppError('PERMISSION_DENIED', 'A read-only key cannot read secrets; use a key with write permission');
    }
  };
}

/** The authenticated merchant of a request on a secret-key route. */
export function merchantOf(request: FastifyRequest): MerchantAuth {
  if (!request.merchant) throw new AppError('UNAUTHORIZED', 'Authentication required');
  return request.merchant;
}
