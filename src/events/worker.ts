// The delivery worker. The webhook_deliveries table is the queue:
//   1. claim due rows in a short transaction (FOR UPDATE SKIP LOCKED on PostgreSQL, so several processes
//      never claim the same row; SQLite has one process), stamping a claim token and a lease; commit;
//   2. send each over HTTP outside any transaction;
//   3. record the attempt and the outcome, guarded by the claim token: 2xx → succeeded; otherwise the next
//      retry per config.webhookRetrySchedule; after the last retry → abandoned, and a registered endpoint is
//      taken out of service until the merchant re-enables it.
// A crashed worker's claims expire with their lease and are taken again (at-least-once). Woken within
// milliseconds of a commit (in-process signal; LISTEN/NOTIFY on PostgreSQL), with a slow poll as fallback.
// Concurrency is bounded globally and per target, so one slow merchant cannot take every slot.
import { secretBoxFor } from '../shared/secret-box.js';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { Clock } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import type { WebhookDeliveryRow } from './events.table.js';
import { OUTBOX_CHANNEL } from './outbox.js';
import { onOutboxSignal } from './signal.js';
import { signatureHeaders, type SigningSecrets } from './signer.js';
import { postWebhook, type SendResult } from './transport.js';

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface DeliveryWorkerOptions {
  /** Sends in flight at once in this process. */
  concurrency?: number;
  /** Sends in flight at once to one target (endpoint or notificationUrl). */
  perTarget?: number;
  /** Fallback poll when no wake-up arrives (retries falling due, other processes on SQLite). */
  pollMs?: number;
}

export interface DeliveryWorker {
  /** Claims and sends now (also called on every wake-up). */
  wake(): void;
  stop(): Promise<void>;
}

interface Claimed {
  row: WebhookDeliveryRow;
  body: string;
  secrets: SigningSecrets;
  leaseUntil: number;
}

const LEASE_MARGIN_MS = 5_000;

export function startDeliveryWorker(
  config: Config,
  db: Database,
  clock: Clock,
  logger: Logger,
  options: DeliveryWorkerOptions = {},
): DeliveryWorker {
  const concurrency = options.concurrency ?? 128;
  const perTarget = options.perTarget ?? 16;
  const pollMs = options.pollMs ?? 500;
  const leaseMs = config.webhookTimeoutMs + LEASE_MARGIN_MS;
  const workerId = randomBytes(6).toString('hex');
  const box = secretBoxFor(config);

  let stopping = false;
  let claiming = false;
  let again = false;
  let active = 0;
  const busy = new Map<string, number>(); // target → sending + queued
  const queued = new Map<string, Claimed[]>();
  const inFlight = new Set<Promise<void>>();
  let idleResolve: (() => void) | undefined;

  const wake = () => {
    if (stopping) return;
    if (claiming) {
      again = true;
      return;
    }
    void claimLoop();
  };

  async function claimLoop(): Promise<void> {
    claiming = true;
    try {
      do {
        again = false;
        const room = concurrency - active - queuedCount();
        if (room <= 0 || stopping) break;
        const claimed = await claim(room);
        for (const c of claimed) dispatch(c);
        if (claimed.length === room) again = true;
      } while (again && !stopping);
    } catch (err) {
      logger.error({ err: String(err) }, 'webhook claim failed');
    } finally {
      claiming = false;
    }
  }

  function queuedCount(): number {
    let n = 0;
    for (const q of queued.values()) n += q.length;
    return n;
  }

  async function claim(limit: number): Promise<Claimed[]> {
    const saturated = [...busy.entries()].filter(([, n]) => n >= perTarget).map(([k]) => k);
    const now = clock.now();
    const nowIso = now.toISOString();
    const leaseUntil = now.getTime() + leaseMs;
    const token = `${workerId}:${randomBytes(6).toString('hex')}`;
    const rows = await db.transaction(async (trx) => {
      let q = trx
        .selectFrom('webhook_deliveries')
        .select('id')
        .where((eb) =>
          eb.or([
            eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', nowIso)]),
            eb.and([eb('status', '=', 'sending'), eb('lease_until', '<', nowIso)]),
          ]),
        )
        // A delivery to an endpoint out of service waits until it is enabled again.
        .where((eb) =>
          eb.or([
            eb('endpoint_id', 'is', null),
            eb('endpoint_id', 'in', eb.selectFrom('webhook_endpoints').select('id').where('enabled', '=', 1)),
          ]),
        )
        .orderBy('next_attempt_at')
        .limit(limit);
      if (saturated.length > 0) q = q.where('target_key', 'not in', saturated);
      if (db.caps.skipLocked) q = q.forUpdate().skipLocked();
      const ids = (await q.execute()).map((r) => r.id);
      if (ids.length === 0) return [];
      return trx
        .updateTable('webhook_deliveries')
        .set({ status: 'sending', claim_token: token, lease_until: new Date(leaseUntil).toISOString(), updated_at: nowIso })
        .where('id', 'in', ids)
        .returningAll()
        .execute();
    });
    if (rows.length === 0) return [];
    const bodies = new Map(
      (
        await db.kysely
          .selectFrom('webhook_events')
          .select(['id', 'body'])
          .where('id', 'in', [...new Set(rows.map((r) => r.event_id))])
          .execute()
      ).map((e) => [e.id, e.body]),
    );
    const secretRows = await db.kysely
      .selectFrom('webhook_secrets')
      .selectAll()
      .where('merchant_id', 'in', [...new Set(rows.map((r) => r.merchant_id))])
      .execute();
    const secrets = new Map(
      secretRows.map((s) => [
        `${s.merchant_id}:${s.mode}`,
        {
          secret: box.open(s.secret),
          previous: s.previous_secret && s.previous_valid_until && s.previous_valid_until > nowIso ? box.open(s.previous_secret) : null,
        },
      ]),
    );
    const out: Claimed[] = [];
    for (const row of rows) {
      const body = bodies.get(row.event_id);
      const secret = secrets.get(`${row.merchant_id}:${row.mode}`);
      if (body === undefined || !secret) {
        logger.error({ deliveryId: row.id }, 'webhook delivery without event or secret');
        continue;
      }
      out.push({ row, body, secrets: secret, leaseUntil });
    }
    return out;
  }

  function dispatch(c: Claimed): void {
    const key = c.row.target_key;
    const n = busy.get(key) ?? 0;
    busy.set(key, n + 1);
    const sending = n - (queued.get(key)?.length ?? 0);
    if (sending >= perTarget) {
      const q = queued.get(key) ?? [];
      q.push(c);
      queued.set(key, q);
      return;
    }
    run(c);
  }

  function run(c: Claimed): void {
    active++;
    const p = deliver(c)
      .catch((err) => logger.error({ err: String(err), deliveryId: c.row.id }, 'webhook delivery failed to record'))
      .finally(() => {
        inFlight.delete(p);
        active--;
        const key = c.row.target_key;
        const left = (busy.get(key) ?? 1) - 1;
        if (left <= 0) busy.delete(key);
        else busy.set(key, left);
        const next = queued.get(key)?.shift();
        if (queued.get(key)?.length === 0) queued.delete(key);
        if (next && !stopping) run(next);
        else if (next) void release(next);
        if (active === 0 && idleResolve) idleResolve();
        wake();
      });
    inFlight.add(p);
  }

  async function deliver(c: Claimed): Promise<void> {
    // A row that waited in the local queue renews its lease first, so no other worker retakes it mid-send.
    if (c.leaseUntil - clock.now().getTime() < config.webhookTimeoutMs + 1000) {
      const until = clock.now().getTime() + leaseMs;
      const renewed = await db.kysely
        .updateTable('webhook_deliveries')
        .set({ lease_until: new Date(until).toISOString() })
        .where('id', '=', c.row.id)
        .where('claim_token', '=', c.row.claim_token)
        .where('status', '=', 'sending')
        .executeTakeFirst();
      if (Number(renewed.numUpdatedRows) === 0) return;
      c.leaseUntil = until;
    }
    const started = clock.now();
    const headers = signatureHeaders(c.body, c.secrets, Math.floor(started.getTime() / 1000), c.row.event_id);
    const result = await postWebhook(c.row.url, c.body, headers, {
      timeoutMs: config.webhookTimeoutMs,
      publicOnly: c.row.mode === 'live',
    });
    await record(c, started, result);
  }

  async function record(c: Claimed, started: Date, result: SendResult): Promise<void> {
    const ok = result.error === null && result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const attempt = c.row.attempt_count + 1;
    const now = clock.now();
    const nowIso = now.toISOString();
    const schedule = config.webhookRetrySchedule;
    const retryIndex = attempt - 1; // the first send failed → retry 1 is schedule[0]
    const abandon = !ok && retryIndex >= schedule.length;
    const error = ok ? null : result.error ?? `HTTP ${result.statusCode}`;
    await db.transaction(async (trx) => {
      const updated = await trx
        .updateTable('webhook_deliveries')
        .set({
          status: ok ? 'succeeded' : abandon ? 'abandoned' : 'pending',
          attempt_count: attempt,
          next_attempt_at: ok || abandon ? c.row.next_attempt_at : new Date(now.getTime() + schedule[retryIndex]! * 1000).toISOString(),
          claim_token: null,
          lease_until: null,
          last_status_code: result.statusCode,
          last_error: error,
          updated_at: nowIso,
        })
        .where('id', '=', c.row.id)
        .where('claim_token', '=', c.row.claim_token)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) {
        logger.warn({ deliveryId: c.row.id }, 'webhook claim lost before the attempt was recorded');
        return;
      }
      await trx
        .insertInto('webhook_attempts')
        .values({
          id: newId('att'),
          delivery_id: c.row.id,
          event_id: c.row.event_id,
          attempt,
          started_at: started.toISOString(),
          status_code: result.statusCode,
          latency_ms: result.latencyMs,
          succeeded: ok ? 1 : 0,
          response_excerpt: result.excerpt,
          error,
        })
        .execute();
      if (abandon && c.row.endpoint_id) {
        await trx
          .updateTable('webhook_endpoints')
          .set({ enabled: 0, disabled_reason: 'failing', disabled_at: nowIso, updated_at: nowIso })
          .where('id', '=', c.row.endpoint_id)
          .execute();
      }
    });
    if (abandon) {
      logger.warn(
        { deliveryId: c.row.id, eventId: c.row.event_id, endpointId: c.row.endpoint_id },
        c.row.endpoint_id ? 'webhook abandoned; endpoint taken out of service' : 'webhook to notificationUrl abandoned',
      );
    }
  }

  /** Hands a claimed, unsent row back (on stop), so another worker takes it at once. */
  async function release(c: Claimed): Promise<void> {
    await db.kysely
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', claim_token: null, lease_until: null })
      .where('id', '=', c.row.id)
      .where('claim_token', '=', c.row.claim_token)
      .execute();
  }

  const unsubscribe = onOutboxSignal(wake);
  // Not unref'd: a worker-only process has nothing else keeping it alive between events.
  const poll = setInterval(wake, pollMs);
  const listener = config.databaseUrl && db.dialect === 'postgres' ? listen(config.databaseUrl, wake, logger) : undefined;
  wake();

  return {
    wake,
    async stop() {
      if (stopping) return;
      stopping = true;
      unsubscribe();
      clearInterval(poll);
      await listener?.close();
      while (claiming) await new Promise((r) => setTimeout(r, 5));
      const waiting = [...queued.values()].flat();
      queued.clear();
      await Promise.all(waiting.map((c) => release(c).catch(() => {})));
      if (active > 0) await new Promise<void>((r) => (idleResolve = r));
      await Promise.all([...inFlight]);
    },
  };
}

/** LISTEN on a dedicated connection; reconnects after a failure. */
function listen(databaseUrl: string, onNotify: () => void, logger: Logger): { close(): Promise<void> } {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    const c = new pg.Client({ connectionString: databaseUrl });
    client = c;
    c.on('notification', () => onNotify());
    c.on('error', () => {
      void c.end().catch(() => {});
      if (!closed) retry = setTimeout(() => void connect(), 1000);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${OUTBOX_CHANNEL}`);
      onNotify(); // anything committed while we were not listening
    } catch (err) {
      logger.warn({ err: String(err) }, 'webhook LISTEN connection failed; retrying');
      void c.end().catch(() => {});
      if (!closed) retry = setTimeout(() => void connect(), 1000);
    }
  };
  void connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
