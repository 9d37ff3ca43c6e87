// The transactional outbox: how any module emits an event.
//
//   import { recordEvent } from '../../events/outbox.js';
//   import { payloads } from '../../events/payloads.js';
//
//   await db.transaction(async (trx) => {
//     await trx.updateTable('payments')…;                       // the state change
//     await recordEvent(trx, {
//       merchantId, mode, paymentId: payment.id,               // paymentId → also sent to its notificationUrl
//       at: clock.now(),                                       // createdAt of the event (defaults to now)
//       ...payloads.paymentCaptured({ paymentId: …, … }),      // {type, data}, typed per event type
//     });
//   });
//
// recordEvent writes, on the caller's transaction, the event row (`whe_…`, its exact JSON body) and one
// delivery row per target: the payment's notificationUrl for `payment.*`/`refund.*` events of that payment
// (read from the payments table, or given as `notificationUrl`), plus every enabled endpoint of the merchant
// and mode whose filter matches (an endpoint of a store only for that store's payments and for events of no payment). If the transaction rolls back, nothing is sent; once it commits, the delivery
// worker picks the rows up within milliseconds (in-process wake-up, and NOTIFY on PostgreSQL). A request
// handler never sends HTTP itself.
import { PostgresAdapter, sql } from 'kysely';
import { compiledQuery, deferWrite } from '../db/compiled.js';
import type { Trx } from '../db/database.js';
import { notifyAfterCommit } from '../db/notify.js';
import type { Mode } from '../modules/merchants/merchants.table.js';
import { newTimeOrderedId } from '../shared/ids.js';
import { endpointCacheOf, type EndpointTarget } from './endpoint-cache.js';
import type { EventDataMap, EventType } from './payloads.js';
import { filterMatches, goesToNotificationUrl } from './payloads.js';
import { signalOutbox } from './signal.js';

export interface RecordEventInput<T extends EventType> {
  merchantId: string;
  mode: Mode;
  type: T;
  data: EventDataMap[T];
  /** The payment the event is about: makes it listable by paymentId and sends it to the payment's notificationUrl. */
  paymentId?: string | null;
  /** The payment's notificationUrl when the caller has it at hand (else read from payments; null: none). */
  notificationUrl?: string | null;
  /** The event's createdAt: pass clock.now(). */
  at?: Date;
}

export interface RecordedEvent {
  id: string;
  type: EventType;
  createdAt: string;
  /** The exact bytes every delivery of this event sends. */
  body: string;
  /**
   * The deliveries asked for. SQLite: those written. PostgreSQL: the statement, sent with the transaction's next one,
   * leaves out those to an endpoint out of service, or deleted by another process since this one's cache was read.
   */
  deliveryIds: string[];
}

/** Writes the event and its deliveries on the caller's transaction. */
export async function recordEvent<T extends EventType>(trx: Trx, input: RecordEventInput<T>): Promise<RecordedEvent> {
  const id = newTimeOrderedId('whe');
  const createdAt = (input.at ?? new Date()).toISOString();
  const body = JSON.stringify({ id, type: input.type, createdAt, data: input.data });
  const event = {
    id,
    merchant_id: input.merchantId,
    mode: input.mode,
    type: input.type,
    payment_id: input.paymentId ?? null,
    body,
    created_at: createdAt,
  };
  const targets = await targetsOf(trx, input);
  const deliveries = targets.map((t) => ({ id: newTimeOrderedId('del'), endpointId: t.endpointId, url: t.url, targetKey: t.endpointId ?? `url:${t.url}` }));
  // The endpoints come from the process's cache (endpoint-cache.ts): the statement that writes the deliveries keeps
  // only those of endpoints still in service and not deleted, with the URL the endpoint has now.
  let deliveryIds: string[];
  if (trx.getExecutor().adapter instanceof PostgresAdapter) {
    // One statement for the event and its deliveries, whose answer nobody reads: held back, it goes with the
    // transaction's next statement or its COMMIT (deferWrite), no round trip of its own. It writes the deliveries asked
    // for but those to an endpoint out of service (the cache does not know: paused, or taken out by a worker) or deleted
    // by another process since this one's cache was read; an event left with none is still announced (NOTIFY, carried
    // by the COMMIT), and a worker's claim then finds nothing.
    const parameters = [...Object.values(event), deliveries.map((d) => d.id), deliveries.map((d) => d.endpointId), deliveries.map((d) => d.url), deliveries.map((d) => d.targetKey)];
    await deferWrite(trx, { sql: RECORD_EVENT_SQL, parameters });
    deliveryIds = deliveries.map((d) => d.id);
  } else {
    // seq: assigned by the database, the order events are recorded in (same-millisecond events included).
    const { seq } = await insertEvent.executeTakeFirstOrThrow(trx, event);
    // One prepared statement per target (an event has one or two): cheaper on SQLite than a list read by json_each.
    deliveryIds = [];
    for (const d of deliveries) {
      const at = { id: d.id, eventId: id, seq, merchantId: input.merchantId, mode: input.mode, at: createdAt };
      const written = d.endpointId === null
        ? await insertUrlDeliverySqlite.run(trx, { ...at, url: d.url, targetKey: d.targetKey })
        : await insertEndpointDeliverySqlite.run(trx, { ...at, endpointId: d.endpointId });
      if (written > 0) deliveryIds.push(d.id);
    }
  }
  if (deliveryIds.length > 0) await notifyOnCommit(trx);
  return { id, type: input.type, createdAt, body, deliveryIds };
}

/**
 * PostgreSQL: the event (its seq assigned by the database) and one pending delivery per target, due at once: a
 * notificationUrl's, and an endpoint's only while it is in service and not deleted (read here, not from the cache).
 */
const RECORD_EVENT_SQL = `
  with e as (
    insert into webhook_events (id, merchant_id, mode, type, payment_id, body, created_at)
    values ($1, $2, $3, $4, $5, $6, $7)
    returning seq
  )
  insert into webhook_deliveries (id, event_id, event_seq, merchant_id, mode, endpoint_id, url, target_key, status,
    attempt_count, next_attempt_at, claim_token, lease_until, last_status_code, last_error, created_at, updated_at)
  select d.id, $1, e.seq, $2, $3, d.endpoint_id, coalesce(w.url, d.url), d.target_key, 'pending', 0, $7, null, null, null, null, $7, $7
  from e cross join unnest($8::text[], $9::text[], $10::text[], $11::text[]) as d(id, endpoint_id, url, target_key)
    left join webhook_endpoints w on w.id = d.endpoint_id
  where d.endpoint_id is null or (w.enabled = 1 and w.deleted_at is null)`;

interface Target {
  endpointId: string | null;
  url: string;
}

async function targetsOf(trx: Trx, input: RecordEventInput<EventType>): Promise<Target[]> {
  const targets: Target[] = [];
  const endpoints = await endpointsFor(trx, input.merchantId, input.mode);
  const toUrl = Boolean(input.paymentId && goesToNotificationUrl(input.type));
  // The payment's store matters only when an endpoint belongs to a store; read with its notificationUrl if needed.
  const storeBound = Boolean(input.paymentId) && endpoints.some((e) => e.store_id !== null);
  let url = toUrl ? input.notificationUrl : null;
  let paymentStore: string | null = null;
  if ((toUrl && url === undefined) || storeBound) {
    const payment = await trx
      .selectFrom('payments')
      .select(['notification_url', 'store_id'])
      .where('id', '=', input.paymentId!)
      .executeTakeFirst();
    if (url === undefined) url = payment?.notification_url ?? null;
    paymentStore = payment?.store_id ?? null;
  }
  if (url) targets.push({ endpointId: null, url });
  for (const e of endpoints) {
    // A store's endpoint: that store's payment events, and the merchant's events that belong to no payment (what a key
    // of that store reads through GET /events); never another store's payments, nor payments without a store.
    if (e.store_id !== null && input.paymentId && e.store_id !== paymentStore) continue;
    if (filterMatches(e.events, input.type)) targets.push({ endpointId: e.id, url: e.url });
  }
  return targets;
}

/**
 * The endpoints of the merchant and mode that are not deleted, in service or not (the deliveries' statement keeps
 * only those in service): from the process's cache when the application keeps one for this database.
 */
function endpointsFor(trx: Trx, merchantId: string, mode: Mode): Promise<readonly EndpointTarget[]> {
  const load = async () => (await endpointsOf.execute(trx, { merchantId, mode })).map((e) => ({ ...e, events: JSON.parse(e.events) as string[] }));
  const cache = endpointCacheOf(trx);
  return cache ? cache.get(merchantId, mode, load) : load();
}

// recordEvent's statements, compiled once (src/db/compiled.ts): every payment records two events.
const insertEvent = compiledQuery((db, p: { id: string; merchant_id: string; mode: Mode; type: string; payment_id: string | null; body: string; created_at: string }) =>
  db.insertInto('webhook_events')
    .values({ id: p.id, merchant_id: p.merchant_id, mode: p.mode, type: p.type, payment_id: p.payment_id, body: p.body, created_at: p.created_at })
    .returning('seq'));
type DeliveryOf = { id: string; eventId: string; seq: number; merchantId: string; mode: Mode; at: string };

/** SQLite: a pending delivery to a notificationUrl, due at once. */
const insertUrlDeliverySqlite = compiledQuery((db, p: DeliveryOf & { url: string; targetKey: string }) => ({
  compile: () => sql`
    insert into webhook_deliveries (id, event_id, event_seq, merchant_id, mode, endpoint_id, url, target_key, status,
      attempt_count, next_attempt_at, claim_token, lease_until, last_status_code, last_error, created_at, updated_at)
    values (${p.id}, ${p.eventId}, ${p.seq}, ${p.merchantId}, ${p.mode}, null, ${p.url}, ${p.targetKey}, 'pending', 0, ${p.at},
      null, null, null, null, ${p.at}, ${p.at})`.compile(db),
}));

/**
 * SQLite: a pending delivery to an endpoint, due at once, written only while the endpoint is in service and not
 * deleted, to the URL it has now (read here, not from the cache).
 */
const insertEndpointDeliverySqlite = compiledQuery((db, p: DeliveryOf & { endpointId: string }) => ({
  compile: () => sql`
    insert into webhook_deliveries (id, event_id, event_seq, merchant_id, mode, endpoint_id, url, target_key, status,
      attempt_count, next_attempt_at, claim_token, lease_until, last_status_code, last_error, created_at, updated_at)
    select ${p.id}, ${p.eventId}, ${p.seq}, ${p.merchantId}, ${p.mode}, w.id, w.url, w.id, 'pending', 0, ${p.at},
      null, null, null, null, ${p.at}, ${p.at}
    from webhook_endpoints w
    where w.id = ${p.endpointId} and w.enabled = 1 and w.deleted_at is null`.compile(db),
}));

const endpointsOf = compiledQuery((db, p: { merchantId: string; mode: Mode }) => db
  .selectFrom('webhook_endpoints')
  .select(['id', 'url', 'events', 'store_id'])
  .where('merchant_id', '=', p.merchantId)
  .where('mode', '=', p.mode)
  .where('deleted_at', 'is', null));

/** Wakes delivery workers: in this process, and on PostgreSQL every process listening, once the transaction commits. */
export async function notifyOnCommit(trx: Trx): Promise<void> {
  await notifyAfterCommit(trx, OUTBOX_CHANNEL, signalOutbox);
}

export const OUTBOX_CHANNEL = 'motu_outbox';
