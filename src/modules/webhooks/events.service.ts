// Event history and replay: list and read events, see every delivery and attempt, resend.
import type { Database } from '../../db/database.js';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEventRow } from '../../events/events.table.js';
import { notifyOnCommit } from '../../events/outbox.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, invalidField, notFound } from '../../shared/errors.js';
import { idFromKey, KEY_REUSE_AFTER_MS, keyUseParts, newTimeOrderedId } from '../../shared/ids.js';
import type { Owner } from '../merchants/principal.js';
import { inScope } from './webhooks.service.js';
import { ownedBy } from '../merchants/scope.js';

export interface EventFilter {
  type?: string;
  createdAfter?: string;
  createdBefore?: string;
  paymentId?: string;
  limit?: number;
  startingAfter?: string;
}

export interface ResendInput {
  /** One registered endpoint. */
  endpointId?: string;
  /** `notification_url`: only the payment's notificationUrl; `all` (default): every target the event had. */
  target?: 'all' | 'notification_url';
}

export function eventView(row: WebhookEventRow) {
  const envelope = JSON.parse(row.body) as { id: string; type: string; createdAt: string; data: Record<string, unknown> };
  return { ...envelope, paymentId: row.payment_id };
}

function deliveryView(row: WebhookDeliveryRow, attempts: WebhookAttemptRow[]) {
  return {
    id: row.id,
    eventId: row.event_id,
    target: row.endpoint_id ? { type: 'endpoint' as const, endpointId: row.endpoint_id, url: row.url } : { type: 'notification_url' as const, endpointId: null, url: row.url },
    status: row.status,
    attemptCount: row.attempt_count,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: row.created_at,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      at: a.started_at,
      statusCode: a.status_code,
      latencyMs: a.latency_ms,
      succeeded: a.succeeded === 1,
      response: a.response_excerpt,
      error: a.error,
    })),
  };
}

/** Events read per query of a tail. */
const TAIL_PAGE = 500;

export interface TailedEvent {
  id: string;
  type: string;
  /** The exact JSON a webhook sends. */
  body: string;
}

export interface EventTail {
  read(): Promise<TailedEvent[]>;
}

export class EventsService {
  constructor(private readonly db: Database, private readonly clock: Clock) {}

  private find(owner: Owner, id: string) {
    return this.mine(owner).where('id', '=', id).executeTakeFirst();
  }

  /**
   * The owner's events. A key attached to a store does not see the events of another store's payments (nor of
   * payments without a store); events that belong to no payment (customers, saved cards) are the merchant's, shared.
   */
  private mine(owner: Owner & { storeId?: string | null }) {
    const q = this.db.kysely.selectFrom('webhook_events').selectAll().where(ownedBy(owner));
    const storeId = owner.storeId;
    if (!storeId) return q;
    return q.where((eb) =>
      eb.or([
        eb('payment_id', 'is', null),
        eb('payment_id', 'in', eb.selectFrom('payments').select('payments.id').where('payments.store_id', '=', storeId)),
      ]),
    );
  }

  /**
   * The owner's events from `since` on, read in order as they are recorded (`motu listen`'s stream): each `read()`
   * returns the events recorded since the previous one, in recording order, each once. Pages of TAIL_PAGE, one after
   * the other until one is not full, so more than a page of events in one millisecond never holds the tail at that
   * instant. `since` only ever moves to an instant already read, and the ids already returned at that instant are
   * kept, so an event committed late at that same instant is still returned, and none twice.
   */
  tail(owner: Owner, since: Date): EventTail {
    let from = since.toISOString();
    const seen = new Set<string>();
    const page = (after?: { createdAt: string; seq: number }) => {
      let q = this.mine(owner).select(['id', 'type', 'body', 'created_at', 'seq']).where('created_at', '>=', from);
      if (after) {
        q = q.where((eb) => eb.or([eb('created_at', '>', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('seq', '>', after.seq)])]));
      }
      return q.orderBy('created_at').orderBy('seq').limit(TAIL_PAGE).execute();
    };
    return {
      read: async () => {
        const out: TailedEvent[] = [];
        const fresh = new Set<string>();
        let last: { createdAt: string; seq: number } | undefined;
        const atLast = new Set<string>();
        for (;;) {
          const rows = await page(last);
          for (const row of rows) {
            if (!seen.has(row.id) && !fresh.has(row.id)) {
              fresh.add(row.id);
              out.push({ id: row.id, type: row.type, body: row.body });
            }
            if (row.created_at !== last?.createdAt) atLast.clear();
            atLast.add(row.id);
            last = { createdAt: row.created_at, seq: Number(row.seq) };
          }
          if (rows.length < TAIL_PAGE) break;
        }
        // Nothing is marked as returned until every page was read (a failed read returns them again next time).
        for (const id of fresh) seen.add(id);
        if (last) {
          // Keep only the ids at the new boundary instant: older ones can no longer come back.
          from = last.createdAt;
          for (const id of seen) if (!atLast.has(id)) seen.delete(id);
        }
        return out;
      },
    };
  }

  async list(owner: Owner, filter: EventFilter) {
    const limit = filter.limit ?? 20;
    let q = this.mine(owner);
    if (filter.type) {
      q = filter.type.endsWith('.*') ? q.where('type', 'like', `${filter.type.slice(0, -1)}%`) : q.where('type', '=', filter.type);
    }
    if (filter.createdAfter) q = q.where('created_at', '>', new Date(filter.createdAfter).toISOString());
    if (filter.createdBefore) q = q.where('created_at', '<', new Date(filter.createdBefore).toISOString());
    if (filter.paymentId) q = q.where('payment_id', '=', filter.paymentId);
    if (filter.startingAfter) {
      const cursor = await this.find(owner, filter.startingAfter);
      if (!cursor) throw invalidField('startingAfter', 'is not an id from this list');
      // Newest first by (created_at, seq): seq orders the events of one millisecond as they were recorded. A row
      // value comparison, so the index (merchant_id, mode, created_at, seq) seeks straight to the cursor.
      q = q.where((eb) => eb(eb.refTuple('created_at', 'seq'), '<', eb.tuple(cursor.created_at, cursor.seq)));
    }
    const rows = await q.orderBy('created_at', 'desc').orderBy('seq', 'desc').limit(limit + 1).execute();
    return { data: rows.slice(0, limit).map(eventView), hasMore: rows.length > limit };
  }

  async get(owner: Owner, id: string) {
    const row = await this.find(owner, id);
    if (!row) throw notFound('event', id);
    return eventView(row);
  }

  async deliveries(owner: Owner, id: string) {
    const event = await this.find(owner, id);
    if (!event) throw notFound('event', id);
    // A store's key sees the deliveries to the notificationUrl and to its own endpoints, not those of other scopes.
    let q = this.db.kysely.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', id);
    const storeId = owner.storeId;
    if (storeId) {
      q = q.where((eb) => eb.or([
        eb('endpoint_id', 'is', null),
        eb('endpoint_id', 'in', eb.selectFrom('webhook_endpoints').select('webhook_endpoints.id').where('webhook_endpoints.store_id', '=', storeId)),
      ]));
    }
    const rows = await q.orderBy('created_at').orderBy('id').execute();
    // Through the deliveries listed (`webhook_attempts_once` leads with delivery_id): no index of attempts by event.
    const attempts = rows.length === 0 ? [] : await this.db.kysely.selectFrom('webhook_attempts').selectAll()
      .where('delivery_id', 'in', rows.map((d) => d.id)).orderBy('attempt').execute();
    return {
      data: rows.map((d) => deliveryView(d, attempts.filter((a) => a.delivery_id === d.id))),
      hasMore: false,
    };
  }

  /**
   * A new delivery (attempts start from zero) to one target or every target of the event.
   * With `idempotencyKey` each delivery's id is derived from it and its target (resendDeliveryIdFor): a retry that runs
   * again after the first request was killed mid-way (its in-flight key abandoned) answers the deliveries that run
   * created, and delivers nothing more. The key used again after KEY_REUSE_AFTER_MS is a new resend.
   */
  /** The operator's resend (`motu events resend`): the event is found by its id alone, then resent as its merchant would. */
  async resendByOperator(id: string, input: ResendInput) {
    const row = await this.db.kysely.selectFrom('webhook_events').select(['merchant_id', 'mode']).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('event', id);
    return this.resend({ merchantId: row.merchant_id, mode: row.mode }, id, input);
  }

  async resend(owner: Owner, id: string, input: ResendInput, idempotencyKey?: string) {
    try {
      return await this.resendOnce(owner, id, input, idempotencyKey);
    } catch (err) {
      // The first run committed meanwhile (it outlived its abandoned key): the retry now finds its deliveries.
      if (idempotencyKey === undefined || !this.db.isUniqueViolation(err)) throw err;
      return this.resendOnce(owner, id, input, idempotencyKey);
    }
  }

  private async resendOnce(owner: Owner, id: string, input: ResendInput, idempotencyKey: string | undefined) {
    const event = await this.find(owner, id);
    if (!event) throw notFound('event', id);
    const at = this.clock.now();
    const now = at.toISOString();
    const created = await this.db.transaction(async (trx) => {
      const targets: { endpointId: string | null; url: string }[] = [];
      if (input.endpointId) {
        const endpoint = await inScope(trx
          .selectFrom('webhook_endpoints')
          .select(['id', 'url'])
          .where('id', '=', input.endpointId)
          .where(ownedBy(owner))
          .where('deleted_at', 'is', null), owner)
          .executeTakeFirst();
        if (!endpoint) throw notFound('webhook endpoint', input.endpointId);
        targets.push({ endpointId: endpoint.id, url: endpoint.url });
      } else {
        const previous = await trx
          .selectFrom('webhook_deliveries')
          .leftJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
          .select(['webhook_deliveries.endpoint_id', 'webhook_deliveries.url', 'webhook_endpoints.url as endpoint_url', 'webhook_endpoints.deleted_at', 'webhook_endpoints.store_id'])
          .where('webhook_deliveries.event_id', '=', id)
          .execute();
        const seen = new Set<string>();
        for (const p of previous) {
          if (input.target === 'notification_url' && p.endpoint_id) continue;
          if (p.endpoint_id && p.deleted_at) continue;
          if (p.endpoint_id && owner.storeId && p.store_id !== owner.storeId) continue; // another scope's endpoint
          const key = p.endpoint_id ?? `url:${p.url}`;
          if (seen.has(key)) continue;
          seen.add(key);
          targets.push({ endpointId: p.endpoint_id, url: p.endpoint_id ? p.endpoint_url ?? p.url : p.url });
        }
      }
      if (targets.length === 0) throw new AppError('BUSINESS_RULE_VIOLATION', 'This event has no target to resend to', { eventId: id });
      const targetKey = (t: { endpointId: string | null; url: string }) => t.endpointId ?? `url:${t.url}`;
      let ids = targets.map(() => newTimeOrderedId('del'));
      if (idempotencyKey !== undefined) {
        for (let use = 0; ; use++) {
          ids = targets.map((t) => resendDeliveryIdFor(owner, idempotencyKey, id, targetKey(t), use));
          const earlier = await trx.selectFrom('webhook_deliveries').selectAll().where('id', 'in', ids).orderBy('created_at').orderBy('id').execute();
          if (earlier.length === 0) break;
          if (earlier.some((d) => Date.parse(d.created_at) > at.getTime() - KEY_REUSE_AFTER_MS)) return { rows: earlier, earlier: true };
        }
      }
      const rows = targets.map((t, i) => ({
        id: ids[i]!,
        event_id: id,
        event_seq: event.seq,
        merchant_id: owner.merchantId,
        mode: owner.mode,
        endpoint_id: t.endpointId,
        url: t.url,
        target_key: targetKey(t),
        status: 'pending' as const,
        attempt_count: 0,
        next_attempt_at: now,
        claim_token: null,
        lease_until: null,
        last_status_code: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      }));
      await trx.insertInto('webhook_deliveries').values(rows).execute();
      await notifyOnCommit(trx);
      return { rows, earlier: false };
    });
    // The deliveries an earlier run made are answered as they stand now, with their attempts so far.
    const attempts = created.earlier
      ? await this.db.kysely.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', created.rows.map((r) => r.id)).orderBy('attempt').execute()
      : [];
    return { eventId: id, deliveries: created.rows.map((r) => deliveryView(r, attempts.filter((a) => a.delivery_id === r.id))) };
  }
}

/** The id of the delivery to `targetKey` made by the `use`-th use of `idempotencyKey` to resend event `eventId`. */
export function resendDeliveryIdFor(owner: Owner, idempotencyKey: string, eventId: string, targetKey: string, use = 0): string {
  return idFromKey('del', keyUseParts(['del', owner.merchantId, owner.mode, 'resend', eventId, targetKey, idempotencyKey], use));
}
