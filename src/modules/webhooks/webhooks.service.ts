// Webhook configuration of a merchant: the signing secret (read, rotate) and registered endpoints
// (merchant endpoints and an agency's declared addresses), with the URL rules and the live-mode SSRF guard.
import { sql } from 'kysely';
import { requireAgency } from '../agencies/invitations.service.js';
import { secretBoxFor } from '../../shared/secret-box.js';
import type { Config } from '../../config.js';
import type { Database } from '../../db/database.js';
import { addressPolicy, resolvesToAllowed, targetProblem } from '../../events/address-guard.js';
import type { EndpointKind, WebhookEndpointRow } from './endpoints.table.js';
import { changingEndpoints } from '../../events/endpoint-cache.js';
import { notifyOnCommit } from '../../events/outbox.js';
import { EVENT_TYPES, isEventType } from '../../events/payloads.js';
import { forgetSigningSecrets } from '../../events/secret-cache.js';
import type { Owner, Principal } from '../merchants/principal.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import { idForKeyUse, idFromKey, keyUseParts, newId } from '../../shared/ids.js';
import { paginate, type PageRequest } from '../../shared/pagination.js';
import { newWebhookSecret } from '../merchants/merchants.service.js';
import { ownedBy } from '../merchants/scope.js';


/** After a rotation the previous secret's V2 signature is still sent this long. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3600 * 1000;

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string | null;
  enabled?: boolean;
}

export type EndpointPatch = Partial<EndpointInput>;

export function endpointView(row: WebhookEndpointRow) {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    enabled: row.enabled === 1,
    /** `failing`: taken out of service after the fifth failed retry of an event; re-enable with PATCH {enabled: true}. */
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at,
    kind: row.kind,
    /** The store whose key registered it: it gets that store's payment events only. Null: every store's. */
    storeId: row.store_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** `*`, an event type, or `prefix.*` matching at least one type. */
export function checkFilters(events: string[], allowed: readonly string[] = EVENT_TYPES): void {
  events.forEach((f, i) => {
    if (f === '*') return;
    if (f.endsWith('.*')) {
      const prefix = f.slice(0, -1);
      if (allowed.some((t) => t.startsWith(prefix))) return;
    } else if (isEventType(f) && allowed.includes(f)) return;
    throw invalidField(`events[${i}]`, `"${f}" is not an event type, "prefix.*" or "*"`);
  });
}

/**
 * The endpoints a key may see and change: a key attached to a store only that store's, a key attached to none all of
 * the merchant's (in its mode). Anything else is answered as absent.
 */
export function inScope<Q extends { where: (...args: any[]) => Q }>(query: Q, owner: Owner, column = 'store_id'): Q {
  return owner.storeId ? query.where(column, '=', owner.storeId) : query;
}

export class WebhooksService {
  constructor(private readonly config: Config, private readonly db: Database, private readonly clock: Clock) {}

  async signingSecret(owner: Owner): Promise<{ webhookSecret: string }> {
    const row = await this.db.kysely
      .selectFrom('webhook_secrets')
      .select('secret')
      .where(ownedBy(owner))
      .executeTakeFirstOrThrow();
    return { webhookSecret: secretBoxFor(this.config).open(row.secret) };
  }

  /**
   * `retryOf`: this request took over the key of an earlier run of itself that died (src/http/idempotency.ts). When
   * the secret was rotated since that run started, that rotation is answered (the secret in force and its grace)
   * instead of rotating again, which would drop the secret the merchant's receivers still verify with.
   */
  async rotateSigningSecret(owner: Owner, retryOf?: string): Promise<{ webhookSecret: string; previousSecretValidUntil: string }> {
    // The secret signs every store's webhooks: one store's key must not change what all the others verify with.
    if (owner.storeId) throw new AppError('PERMISSION_DENIED', 'A key attached to a store cannot rotate the merchant\'s signing secret; use a key attached to no store');
    if (retryOf !== undefined) {
      const row = await this.db.kysely.selectFrom('webhook_secrets').select(['secret', 'previous_valid_until', 'updated_at'])
        .where(ownedBy(owner)).executeTakeFirstOrThrow();
      if (row.previous_valid_until !== null && row.updated_at >= retryOf) {
        return { webhookSecret: secretBoxFor(this.config).open(row.secret), previousSecretValidUntil: row.previous_valid_until };
      }
    }
    const now = this.clock.now();
    const until = new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS).toISOString();
    const secret = newWebhookSecret();
    await this.db.transaction(async (trx) => {
      const current = await trx
        .selectFrom('webhook_secrets')
        .select('secret')
        .where(ownedBy(owner))
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('webhook_secrets')
        // Both stay sealed at rest: the previous one moves as stored, the new one is sealed here.
        .set({ secret: secretBoxFor(this.config).seal(secret), previous_secret: current.secret, previous_valid_until: until, updated_at: now.toISOString() })
        .where(ownedBy(owner))
        .execute();
    });
    // Committed: the delivery workers of this process stop signing with the old secret before we answer.
    forgetSigningSecrets(owner.merchantId, owner.mode);
    return { webhookSecret: secret, previousSecretValidUntil: until };
  }

  /**
   * The address rules of every webhook target (targetProblem, shared with notificationUrl); a live endpoint's host
   * name must also resolve to allowed addresses now (and is checked again at each connection).
   */
  async checkUrl(owner: Owner, raw: string, field = 'url'): Promise<void> {
    const policy = addressPolicy(owner.mode, this.config.allowLoopbackUrls);
    const problem = targetProblem(raw, policy);
    if (problem) throw invalidField(field, problem);
    if (owner.mode === 'live' && !(await resolvesToAllowed(new URL(raw).hostname, policy))) {
      throw invalidField(field, 'must resolve to a public address (not private, loopback or link-local)');
    }
  }

  /**
   * With `idempotencyKey` the id is derived from it (endpointIdFor): a retry that runs again after the first request
   * was killed mid-way (its in-flight key abandoned) answers the endpoint that run registered instead of a second one.
   */
  async createEndpoint(owner: Owner, input: EndpointInput, kind: EndpointKind = 'merchant', idempotencyKey?: string) {
    // An agency's addresses receive agency.* events: only an agency declares them.
    if (kind === 'agency') await requireAgency(this.db, owner as Principal);
    const keyed = idempotencyKey === undefined
      ? { id: newId('we'), earlier: undefined }
      : await idForKeyUse((use) => endpointIdFor(owner, kind, idempotencyKey, use), (eid) => this.endpointRow(owner, eid), this.clock.now());
    if (keyed.earlier) return endpointView(keyed.earlier);
    const id = keyed.id;
    checkFilters(input.events, kind === 'agency' ? EVENT_TYPES.filter((t) => t.startsWith('agency.')) : EVENT_TYPES);
    await this.checkUrl(owner, input.url);
    const now = this.clock.now().toISOString();
    const row: WebhookEndpointRow = {
      id,
      merchant_id: owner.merchantId,
      mode: owner.mode,
      kind,
      store_id: owner.storeId ?? null,
      url: input.url,
      events: JSON.stringify(input.events),
      description: input.description ?? null,
      enabled: input.enabled === false ? 0 : 1,
      disabled_reason: input.enabled === false ? 'merchant' : null,
      disabled_at: input.enabled === false ? now : null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    try {
      await changingEndpoints(() => this.db.kysely.insertInto('webhook_endpoints').values(row).execute());
    } catch (err) {
      // The first run committed meanwhile (it outlived its abandoned key): its endpoint is the answer.
      const committed = idempotencyKey !== undefined && this.db.isUniqueViolation(err) ? await this.endpointRow(owner, id) : undefined;
      if (committed) return endpointView(committed);
      throw err;
    }
    return endpointView(row);
  }

  /** The endpoint with this id, deleted or not (a derived id names it even after a DELETE). */
  private endpointRow(owner: Owner, id: string): Promise<WebhookEndpointRow | undefined> {
    return inScope(this.db.kysely.selectFrom('webhook_endpoints').selectAll()
      .where('id', '=', id).where(ownedBy(owner)), owner).executeTakeFirst();
  }

  /** Newest first, in pages like every list of the API: `?limit=` and `?startingAfter=` an endpoint of this list. */
  async listEndpoints(owner: Owner, page: PageRequest = {}) {
    const query = inScope(this.db.kysely
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where(ownedBy(owner))
      .where('deleted_at', 'is', null), owner);
    const rows = await paginate(query, page, (id) => this.endpointRow(owner, id));
    return { data: rows.data.map(endpointView), hasMore: rows.hasMore };
  }

  async getEndpoint(owner: Owner, id: string) {
    return endpointView(await this.findEndpoint(owner, id));
  }

  private async findEndpoint(owner: Owner, id: string): Promise<WebhookEndpointRow> {
    const row = await inScope(this.db.kysely
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .where(ownedBy(owner))
      .where('deleted_at', 'is', null), owner)
      .executeTakeFirst();
    if (!row) throw notFound('webhook endpoint', id);
    return row;
  }

  async updateEndpoint(owner: Owner, id: string, patch: EndpointPatch) {
    const current = await this.findEndpoint(owner, id);
    if (patch.events) checkFilters(patch.events);
    if (patch.url !== undefined) await this.checkUrl(owner, patch.url);
    const now = this.clock.now().toISOString();
    const set: Partial<WebhookEndpointRow> = { updated_at: now };
    if (patch.url !== undefined) set.url = patch.url;
    if (patch.events !== undefined) set.events = JSON.stringify(patch.events);
    if (patch.description !== undefined) set.description = patch.description;
    if (patch.enabled === true) Object.assign(set, { enabled: 1, disabled_reason: null, disabled_at: null });
    if (patch.enabled === false && current.enabled === 1) Object.assign(set, { enabled: 0, disabled_reason: 'merchant', disabled_at: now });
    await changingEndpoints(() => this.db.transaction(async (trx) => {
      await trx.updateTable('webhook_endpoints').set(set).where('id', '=', id).execute();
      if (patch.url !== undefined) {
        // Deliveries still waiting go to the new address.
        await trx.updateTable('webhook_deliveries').set({ url: patch.url }).where('endpoint_id', '=', id).where('status', '=', sql.lit('pending')).execute();
      }
      // Re-enabled: the deliveries held while it was out of service start again now.
      if (patch.enabled === true && current.enabled === 0) await notifyOnCommit(trx);
    }));
    return this.getEndpoint(owner, id);
  }

  async deleteEndpoint(owner: Owner, id: string) {
    await this.findEndpoint(owner, id);
    const now = this.clock.now().toISOString();
    await changingEndpoints(() => this.db.transaction(async (trx) => {
      await trx.updateTable('webhook_endpoints').set({ deleted_at: now, enabled: 0, updated_at: now }).where('id', '=', id).execute();
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'abandoned', last_error: 'endpoint deleted', updated_at: now })
        .where('endpoint_id', '=', id)
        .where('status', '=', sql.lit('pending'))
        .execute();
    }));
    return { id, deleted: true };
  }
}

/** The id of the endpoint registered under the `use`-th use of `idempotencyKey` (idFromKey, idForKeyUse). */
export function endpointIdFor(owner: Owner, kind: EndpointKind, idempotencyKey: string, use = 0): string {
  return idFromKey('we', keyUseParts(['we', owner.merchantId, owner.mode, kind, idempotencyKey], use));
}
