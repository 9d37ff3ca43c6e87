// The delivery worker. The webhook_deliveries table is the queue:
//   1. claim due rows in a short transaction (FOR UPDATE SKIP LOCKED on PostgreSQL, so several processes
//      never claim the same row; SQLite has one process), stamping a claim token and a lease; commit. A claim
//      takes a batch, but never more rows of one target than that target has free slots (per-target bound), so
//      every claimed row is sent at once and a slow target cannot fill the process's slots with its backlog;
//   2. send each over HTTP outside any transaction (keep-alive agents, transport.ts), signed with secrets
//      cached per merchant and mode (secret-cache.ts: dropped by a rotation in this process, 5 s TTL otherwise);
//   3. record the outcomes of many finished attempts in ONE transaction (on SQLite one fsync for the batch),
//      each update guarded by its claim token: 2xx → succeeded; otherwise the next retry per
//      config.webhookRetrySchedule; after the last retry → abandoned, and a registered endpoint is taken out of
//      service until the merchant re-enables it.
// A crashed worker's claims expire with their lease and are taken again (at-least-once); the attempt it had in
// flight is recorded then as a failed attempt without an answer, so a receiver that hangs while workers die
// still reaches the end of the schedule. Rows are claimed and sent in due order (next_attempt_at, then the order
// their events were recorded in, event_seq): a failing target's retry waits behind what fell due before it for that
// target, so with a backlog its time to out of service grows with the backlog divided by its per-target bound.
// Woken within milliseconds of a commit (in-process signal; on PostgreSQL a NOTIFY heard by the process's one
// listening connection, Database.listen), with a slow poll as fallback.
import { secretBoxFor } from '../shared/secret-box.js';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import type { Database, Trx } from '../db/database.js';
import { LOST_ATTEMPT_ERROR } from '../db/lease.js';
import type { Clock } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import type { DeliveryStatus, WebhookAttemptsTable, WebhookDeliveryRow } from './events.table.js';
import { addressPolicy } from './address-guard.js';
import { OUTBOX_CHANNEL } from './outbox.js';
import { SigningSecretCache } from './secret-cache.js';
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
  /** PostgreSQL: connections of the worker's own pool. */
  poolSize?: number;
}

export interface DeliveryWorker {
  /** Claims and sends now (also called on every wake-up). */
  wake(): void;
  stop(): Promise<void>;
}

interface Claimed {
  row: WebhookDeliveryRow;
  body: Buffer;
}

interface Finished {
  c: Claimed;
  started: Date;
  result: SendResult;
  done: () => void;
}

const LEASE_MARGIN_MS = 5_000;
/** Finished attempts recorded per transaction at most. */
const RECORD_BATCH = 512;
/** Rows per multi-row INSERT (SQLite and PostgreSQL bound the number of parameters of one statement). */
const INSERT_CHUNK = 200;

export function startDeliveryWorker(
  config: Config,
  shared: Database,
  clock: Clock,
  logger: Logger,
  options: DeliveryWorkerOptions = {},
): DeliveryWorker {
  const concurrency = options.concurrency ?? 128;
  const perTarget = options.perTarget ?? 16;
  const pollMs = options.pollMs ?? 500;
  const leaseMs = config.webhookTimeoutMs + LEASE_MARGIN_MS;
  const schedule = config.webhookRetrySchedule;
  const workerId = randomBytes(6).toString('hex');
  // The worker has its own few connections where there is a pool: claims and records never queue behind the API's
  // transactions in a busy pool (nor take the API's connections).
  const db = shared.withPool(options.poolSize ?? 4);
  const secrets = new SigningSecretCache(db, secretBoxFor(config));

  let stopping = false;
  let claiming = false;
  let active = 0;
  const busy = new Map<string, number>(); // target → sends in flight (until recorded)
  let idleResolve: (() => void) | undefined;

  // Wake-ups: from outside (a commit's signal, NOTIFY, the poll) anything may be due; from a finished send, only
  // its target got a free slot. While a claim runs they are noted, and another claim follows only if one from
  // outside came, or a freed target still has room after the claim (else that query would only walk over the
  // saturated target's backlog to find nothing).
  let external = false;
  const freed = new Set<string>();
  const wake = () => {
    if (stopping) return;
    external = true;
    if (!claiming) void claimLoop();
  };
  const wakeFor = (target: string) => {
    if (stopping) return;
    freed.add(target);
    if (!claiming) void claimLoop();
  };
  const worthClaiming = () => external || [...freed].some((k) => (busy.get(k) ?? 0) < perTarget);

  async function claimLoop(): Promise<void> {
    claiming = true;
    try {
      // Let the wake-ups of this turn (a record batch frees many slots at once) gather into one claim.
      await new Promise((r) => setImmediate(r));
      while (worthClaiming() && !stopping) {
        external = false;
        freed.clear();
        const room = concurrency - active;
        if (room <= 0) break;
        const { claimed, more } = await claim(room);
        for (const c of claimed) run(c);
        if (more) external = true;
      }
    } catch (err) {
      logger.error({ err: String(err) }, 'webhook claim failed');
    } finally {
      claiming = false;
    }
  }

  /** Claims up to `limit` due rows, at most the free slots of each target. `more`: the window was full, query again. */
  async function claim(limit: number): Promise<{ claimed: Claimed[]; more: boolean }> {
    const saturated = [...busy.entries()].filter(([, n]) => n >= perTarget).map(([k]) => k);
    const now = clock.now();
    const nowIso = now.toISOString();
    const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
    const token = `${workerId}:${randomBytes(6).toString('hex')}`;
    let windowFull = false;
    let skipped = false;
    const bodies = new Map<string, string>();
    const rows = await db.transaction(async (trx) => {
      // Two index walks rather than one OR (which would sort every due row on each claim): stale claims of a
      // stopped worker (by lease, usually none), then pending rows in due order, stopping at the limit.
      const select = (status: 'sending' | 'pending', n: number) => {
        let q = trx
          .selectFrom('webhook_deliveries as d')
          .select(['d.id', 'd.target_key', 'd.status', 'd.attempt_count', 'd.event_id', 'd.updated_at'])
          .where('d.status', '=', status)
          .where(status === 'sending' ? 'd.lease_until' : 'd.next_attempt_at', status === 'sending' ? '<' : '<=', nowIso)
          // A delivery to an endpoint out of service waits until it is enabled again.
          .where((eb) =>
            eb.or([
              eb('d.endpoint_id', 'is', null),
              eb('d.endpoint_id', 'in', eb.selectFrom('webhook_endpoints').select('id').where('enabled', '=', 1)),
            ]),
          )
          .orderBy(status === 'sending' ? 'd.lease_until' : 'd.next_attempt_at')
          // Rows due at the same instant in the order their events were recorded (the index ends with event_seq).
          .orderBy('d.event_seq')
          .limit(n);
        if (saturated.length > 0) q = q.where('d.target_key', 'not in', saturated);
        return db.skipLockedRows(q).execute();
      };
      const stale = await select('sending', limit);
      const due = stale.length < limit ? [...stale, ...(await select('pending', limit - stale.length))] : stale;
      windowFull = due.length === limit;
      // The per-target bound: no more rows of a target than it has free slots; the rest stay pending.
      const taken = new Map<string, number>();
      const ids: string[] = [];
      const lost: typeof due = [];
      for (const r of due) {
        const n = taken.get(r.target_key) ?? busy.get(r.target_key) ?? 0;
        if (n >= perTarget) {
          skipped = true;
          continue;
        }
        taken.set(r.target_key, n + 1);
        ids.push(r.id);
        if (r.status === 'sending') lost.push(r);
      }
      if (ids.length === 0) return [];
      if (lost.length > 0) await recordLost(trx, lost, nowIso);
      const updated = await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'sending', claim_token: token, lease_until: leaseUntil, updated_at: nowIso })
        .where('id', 'in', ids)
        .returningAll()
        .execute();
      // RETURNING comes in the table's order, not the claim's: sent in claim order (so in recording order).
      const byId = new Map(updated.map((r) => [r.id, r]));
      const claimed = ids.flatMap((id) => byId.get(id) ?? []);
      // The bodies only of what was claimed (joining them above would read one for every due row).
      const events = await trx
        .selectFrom('webhook_events')
        .select(['id', 'body'])
        .where('id', 'in', [...new Set(claimed.map((r) => r.event_id))])
        .execute();
      for (const e of events) bodies.set(e.id, e.body);
      return claimed;
    });
    // A full window all claimed: there may be more. Rows left for the per-target bound are not a reason to query
    // again at once (that query would skip over the saturated target's backlog): the next completion wakes us.
    const more = windowFull && !skipped;
    return { claimed: rows.map((row) => ({ row, body: Buffer.from(bodies.get(row.event_id)!, 'utf8') })), more };
  }

  /**
   * A stale claim: its worker stopped (crash, kill) between the claim and the record. The attempt it had in flight
   * may or may not have reached the receiver; it counts as a failed attempt without an answer. The row is sent
   * again now; if that lost attempt was the last of the schedule, this one more send decides.
   */
  async function recordLost(trx: Trx, lost: Array<{ id: string; event_id: string; attempt_count: number; updated_at: string }>, nowIso: string): Promise<void> {
    const values: WebhookAttemptsTable[] = lost.map((r) => ({
      id: newId('att'),
      delivery_id: r.id,
      event_id: r.event_id,
      attempt: r.attempt_count + 1,
      started_at: r.updated_at,
      status_code: null,
      latency_ms: Math.max(0, Date.parse(nowIso) - Date.parse(r.updated_at)),
      succeeded: 0,
      response_excerpt: null,
      error: LOST_ATTEMPT_ERROR,
    }));
    for (let i = 0; i < values.length; i += INSERT_CHUNK) await trx.insertInto('webhook_attempts').values(values.slice(i, i + INSERT_CHUNK)).execute();
    await trx
      .updateTable('webhook_deliveries')
      .set((eb) => ({ attempt_count: eb('attempt_count', '+', 1), last_status_code: null, last_error: LOST_ATTEMPT_ERROR }))
      .where('id', 'in', lost.map((r) => r.id))
      .execute();
    logger.warn({ count: lost.length }, 'webhook claims of a stopped worker retaken; their attempts are recorded as lost');
  }

  function run(c: Claimed): void {
    active++;
    const key = c.row.target_key;
    busy.set(key, (busy.get(key) ?? 0) + 1);
    void deliver(c)
      .catch((err) => logger.error({ err: String(err), deliveryId: c.row.id }, 'webhook delivery failed to record'))
      .finally(() => {
        active--;
        const left = (busy.get(key) ?? 1) - 1;
        if (left <= 0) busy.delete(key);
        else busy.set(key, left);
        if (active === 0 && idleResolve) idleResolve();
        wakeFor(key);
      });
  }

  async function deliver(c: Claimed): Promise<void> {
    const { merchant_id: merchantId, mode } = c.row;
    let s: SigningSecrets | undefined;
    for (let tries = 0; (s = secrets.cached(merchantId, mode, clock.now().getTime())) === undefined; tries++) {
      if (tries === 3) {
        logger.error({ deliveryId: c.row.id }, 'webhook delivery without a signing secret');
        return;
      }
      await secrets.load([`${merchantId}:${mode}`]);
    }
    // Signed right after the synchronous look-up: a rotation that has returned is never overtaken.
    const started = clock.now();
    const headers = signatureHeaders(c.body, s, Math.floor(started.getTime() / 1000), c.row.event_id);
    const result = await postWebhook(c.row.url, c.body, headers, {
      timeoutMs: config.webhookTimeoutMs,
      guard: addressPolicy(c.row.mode, config.allowLoopbackUrls),
    });
    await new Promise<void>((done) => {
      finished.push({ c, started, result, done });
      if (!flushing) {
        flushing = true;
        setImmediate(() => void flush());
      }
    });
  }

  // Finished attempts wait here for the next record transaction; one runs at a time, so under load each one
  // carries every attempt that finished while the previous was committing.
  const finished: Finished[] = [];
  let flushing = false;

  async function flush(): Promise<void> {
    try {
      while (finished.length > 0) {
        const batch = finished.splice(0, RECORD_BATCH);
        try {
          await recordBatch(batch);
        } catch (err) {
          // Not recorded: the rows stay claimed until their lease ends, then are retaken (at-least-once).
          logger.error({ err: String(err), count: batch.length }, 'webhook attempts failed to record');
        }
        for (const f of batch) f.done();
      }
    } finally {
      flushing = false;
    }
  }

  interface Outcome {
    f: Finished;
    ok: boolean;
    abandon: boolean;
    attempt: number;
    error: string | null;
  }

  async function recordBatch(batch: Finished[]): Promise<void> {
    const now = clock.now();
    const nowIso = now.toISOString();
    // Rows that get the same update share one statement (typically: a claim's batch, all answered 2xx).
    const groups = new Map<string, { token: string; set: Record<string, unknown>; outcomes: Outcome[] }>();
    for (const f of batch) {
      const { c, result } = f;
      const ok = result.error === null && result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
      const attempt = c.row.attempt_count + 1;
      const retryIndex = attempt - 1; // the first send failed → retry 1 is schedule[0]
      const abandon = !ok && retryIndex >= schedule.length;
      const error = ok ? null : result.error ?? `HTTP ${result.statusCode}`;
      const status: DeliveryStatus = ok ? 'succeeded' : abandon ? 'abandoned' : 'pending';
      const next = ok || abandon ? null : new Date(now.getTime() + schedule[retryIndex]! * 1000).toISOString();
      const key = JSON.stringify([c.row.claim_token, status, attempt, next, result.statusCode, error]);
      let g = groups.get(key);
      if (!g) {
        const set: Record<string, unknown> = {
          status,
          attempt_count: attempt,
          claim_token: null,
          lease_until: null,
          last_status_code: result.statusCode,
          last_error: error,
          updated_at: nowIso,
        };
        if (next) set.next_attempt_at = next;
        g = { token: c.row.claim_token!, set, outcomes: [] };
        groups.set(key, g);
      }
      g.outcomes.push({ f, ok, abandon, attempt, error });
    }
    const recorded: Outcome[] = [];
    const lostClaims: Outcome[] = [];
    await db.transaction(async (trx) => {
      recorded.length = 0;
      lostClaims.length = 0;
      for (const g of groups.values()) {
        const updated = await trx
          .updateTable('webhook_deliveries')
          .set(g.set)
          .where('id', 'in', g.outcomes.map((o) => o.f.c.row.id))
          .where('claim_token', '=', g.token)
          .returning('id')
          .execute();
        const ids = new Set(updated.map((u) => u.id));
        for (const o of g.outcomes) (ids.has(o.f.c.row.id) ? recorded : lostClaims).push(o);
      }
      const attempts: WebhookAttemptsTable[] = recorded.map((o) => ({
        id: newId('att'),
        delivery_id: o.f.c.row.id,
        event_id: o.f.c.row.event_id,
        attempt: o.attempt,
        started_at: o.f.started.toISOString(),
        status_code: o.f.result.statusCode,
        latency_ms: o.f.result.latencyMs,
        succeeded: o.ok ? 1 : 0,
        response_excerpt: o.f.result.excerpt,
        error: o.error,
      }));
      for (let i = 0; i < attempts.length; i += INSERT_CHUNK) await trx.insertInto('webhook_attempts').values(attempts.slice(i, i + INSERT_CHUNK)).execute();
      const disable = [...new Set(recorded.filter((o) => o.abandon && o.f.c.row.endpoint_id).map((o) => o.f.c.row.endpoint_id!))];
      if (disable.length > 0) {
        await trx
          .updateTable('webhook_endpoints')
          .set({ enabled: 0, disabled_reason: 'failing', disabled_at: nowIso, updated_at: nowIso })
          .where('id', 'in', disable)
          .execute();
      }
    });
    for (const o of lostClaims) logger.warn({ deliveryId: o.f.c.row.id }, 'webhook claim lost before the attempt was recorded');
    for (const o of recorded) {
      if (!o.abandon) continue;
      const row = o.f.c.row;
      logger.warn(
        { deliveryId: row.id, eventId: row.event_id, endpointId: row.endpoint_id },
        row.endpoint_id ? 'webhook abandoned; endpoint taken out of service' : 'webhook to notificationUrl abandoned',
      );
    }
  }

  const unsubscribe = onOutboxSignal(wake);
  // Not unref'd: a worker-only process has nothing else keeping it alive between events.
  const poll = setInterval(wake, pollMs);
  // Other processes' commits (PostgreSQL NOTIFY, on the process's one listening connection).
  const unlisten = db.listen(OUTBOX_CHANNEL, wake);
  wake();

  return {
    wake,
    async stop() {
      if (stopping) return;
      stopping = true;
      unsubscribe();
      clearInterval(poll);
      unlisten();
      while (claiming) await new Promise((r) => setTimeout(r, 5));
      // Every send in flight finishes (bounded by the timeout) and its attempt is recorded before we return.
      if (active > 0) await new Promise<void>((r) => (idleResolve = r));
      secrets.close();
      await db.close();
    },
  };
}
