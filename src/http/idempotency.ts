// Idempotency-Key on every POST. The key is stored with an in-flight state before the
// handler runs, so a concurrent duplicate waits for the first answer and replays it instead of running twice.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.js';
import type { Clock } from '../shared/clock.js';
import { AppError, invalidField } from '../shared/errors.js';
import { sha256Hex } from '../shared/hash.js';
import type { SecretBox } from '../shared/secret-box.js';

/** An answer that carries a secret (a rotated webhook secret) is stored sealed, never in clear (docs/reliability.md). */
const SECRET_IN_ANSWER = /whsec_|sk_(test|live)_/;

const KEY_LIFETIME_MS = 24 * 3600 * 1000;
/** An in-flight claim older than this belongs to a request that died; a retry may take it over. */
const ABANDONED_AFTER_MS = 60_000;
const WAIT_STEP_MS = 20;
const WAIT_LIMIT_MS = 15_000;

interface Claim {
  merchantId: string;
  mode: 'test' | 'live';
  /** The sending key's store, '' for the merchant's unbound keys: a store never sees another scope's keys or answers. */
  scope: string;
  /** The Idempotency-Key header as sent. */
  sentKey: string;
  /**
   * The key as routes see it, to derive the ids of what they create (idFromKey): the key itself for an unbound key,
   * the key and its store for a store-bound one, so that two stores sending the same key never name the same object.
   * A space never appears in a sent key, so no unbound key can spell a store-bound one.
   */
  key: string;
  /**
   * Set when this request took over the in-flight claim of an earlier run of the same request that died (abandoned):
   * when that run started. A state transition (capture, cancel, rotation) it may have committed before dying is found
   * by the route as the answer instead of being refused or done twice (docs/reliability.md).
   */
  retryOf?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: Claim;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function requestHash(request: FastifyRequest): string {
  const path = request.url.split('?')[0];
  return sha256Hex(`${request.method} ${path}\n${JSON.stringify(request.body ?? null)}`);
}

export function registerIdempotency(app: FastifyInstance, db: Database, clock: Clock, box?: SecretBox): void {
  // Callback hooks around the async work: a request without the header passes both without a promise.
  app.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const raw = request.headers['idempotency-key'];
    if (request.method !== 'POST' || !request.merchant || raw === undefined) return done();
    // A replay has answered already: the chain stops there (done is not called, as Fastify asks of a hook that replies).
    claimKey(request, reply, raw).then((replayed) => replayed || done(), (err: Error) => done(err));
  });
  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) => {
    const claim = request.idempotency;
    if (!claim) return done(null, payload);
    request.idempotency = undefined;
    keepAnswer(claim, reply, payload).then(() => done(null, payload), (err: Error) => done(err));
  });

  /** Takes the key for this request, or answers with the first request's answer (a replay: true). */
  async function claimKey(request: FastifyRequest, reply: FastifyReply, raw: string | string[]): Promise<boolean> {
    const merchant = request.merchant!;
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (!key || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
      throw invalidField('Idempotency-Key', 'must be 1 to 255 printable ASCII characters');
    }
    // An agency acting for its client keeps its own keys on the client's account, apart from the client's.
    const scope = merchant.actingFor ? `${merchant.actingFor.kind}:${merchant.actingFor.id}` : merchant.storeId ?? '';
    const claim: Claim = { merchantId: merchant.merchantId, mode: merchant.mode, scope, sentKey: key, key: scope ? `${key} ${scope}` : key };
    const hash = requestHash(request);
    const started = Date.now();
    let retryOf: string | undefined;
    for (;;) {
      const now = clock.now();
      try {
        // Through db.transaction so that, on SQLite, the claim shares a commit with concurrent requests.
        await db.transaction((trx) =>
          trx
          .insertInto('idempotency_keys')
          .values({
            merchant_id: claim.merchantId,
            mode: claim.mode,
            scope: claim.scope,
            key,
            request_hash: hash,
            state: 'in_flight',
            status_code: null,
            response_body: null,
            created_at: now.toISOString(),
            expires_at: new Date(now.getTime() + KEY_LIFETIME_MS).toISOString(),
          })
          .execute(),
        );
        request.idempotency = retryOf === undefined ? claim : { ...claim, retryOf };
        return false;
      } catch (err) {
        if (!db.isUniqueViolation(err)) throw err;
      }
      const existing = await db.kysely
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('merchant_id', '=', claim.merchantId)
        .where('mode', '=', claim.mode)
        .where('scope', '=', claim.scope)
        .where('key', '=', key)
        .executeTakeFirst();
      if (!existing) continue; // released between our insert and read: try again
      const expired = existing.expires_at <= now.toISOString();
      const abandoned = existing.state === 'in_flight' && now.getTime() - Date.parse(existing.created_at) > ABANDONED_AFTER_MS;
      if (expired || abandoned) {
        // Only a run of this very request counts as an earlier run (an expired key is a new request).
        if (abandoned && !expired && existing.request_hash === hash) retryOf = existing.created_at;
        await release(db, claim, existing.created_at);
        continue;
      }
      if (existing.request_hash !== hash) {
        throw new AppError(
          'IDEMPOTENCY_KEY_REUSED',
          'This Idempotency-Key was already used with a different request; use a new key for a new request',
          { field: 'Idempotency-Key' },
        );
      }
      if (existing.state === 'done' && existing.status_code !== null) {
        reply
          .code(existing.status_code)
          .header('content-type', 'application/json; charset=utf-8')
          .header('idempotent-replayed', 'true')
          .send(existing.response_body && box ? box.open(existing.response_body) : existing.response_body ?? '');
        return true;
      }
      if (Date.now() - started > WAIT_LIMIT_MS) {
        throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry later', {
          field: 'Idempotency-Key',
        });
      }
      await sleep(WAIT_STEP_MS);
    }
  }

  /** The answer kept for the key's replays, or the key released. */
  async function keepAnswer(claim: Claim, reply: FastifyReply, payload: unknown): Promise<void> {
    if (reply.statusCode >= 500 || reply.hasHeader('retry-after')) {
      // A failure on our side is not an answer, nor is one that says to retry later (another capture of the payment
      // under way): the client may retry with the same key, and that retry runs.
      await release(db, claim);
      return;
    }
    const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
    const body = box && SECRET_IN_ANSWER.test(text) ? box.seal(text) : text;
    await db.transaction((trx) =>
      trx
        .updateTable('idempotency_keys')
        .set({ state: 'done', status_code: reply.statusCode, response_body: body })
        .where('merchant_id', '=', claim.merchantId)
        .where('mode', '=', claim.mode)
        .where('scope', '=', claim.scope)
        .where('key', '=', claim.sentKey)
        .execute(),
    );
  }
}

async function release(db: Database, claim: Claim, createdAt?: string): Promise<void> {
  await db.transaction(async (trx) => {
    let q = trx
      .deleteFrom('idempotency_keys')
      .where('merchant_id', '=', claim.merchantId)
      .where('mode', '=', claim.mode)
      .where('scope', '=', claim.scope)
      .where('key', '=', claim.sentKey);
    if (createdAt) q = q.where('created_at', '=', createdAt);
    await q.execute();
  });
}

/**
 * Deletes keys past their 24 hours, the oldest first, about `batchSize` at a time (each batch one short statement up to
 * the expiry its last key has, found by the expiry index); run by the scheduler.
 */
export async function purgeExpiredIdempotencyKeys(db: Database, clock: Clock, batchSize = 1000): Promise<number> {
  const now = clock.now().toISOString();
  let deleted = 0;
  for (;;) {
    const oldest = await db.kysely.selectFrom('idempotency_keys').select('expires_at').where('expires_at', '<', now)
      .orderBy('expires_at').limit(batchSize).execute();
    if (oldest.length === 0) return deleted;
    const last = oldest[oldest.length - 1]!.expires_at;
    const result = await db.kysely.deleteFrom('idempotency_keys').where('expires_at', '<', now).where('expires_at', '<=', last).executeTakeFirst();
    deleted += Number(result.numDeletedRows);
    if (oldest.length < batchSize) return deleted;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
