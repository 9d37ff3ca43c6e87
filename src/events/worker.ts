// The delivery worker. The webhook_deliveries table is the queue, worked in three stages (src/events/delivery/):
//   1. claim due rows in a short transaction (FOR UPDATE SKIP LOCKED on PostgreSQL, so several processes
//      never claim the same row; SQLite has one process), stamping a claim token and a lease; commit. A claim
//      takes a batch, but never more rows of one target than that target has free slots (per-target bound), so
//      every claimed row is sent at once and a slow target cannot fill the process's slots with its backlog.
//      Stale claims of stopped workers are looked for at most once a second; between those, a claim on
//      PostgreSQL is one statement committed on its own;
//   2. send each over HTTP outside any transaction (keep-alive agents, transport.ts), signed with secrets
//      cached per merchant and mode (secret-cache.ts: dropped by a rotation in this process, 5 s TTL otherwise);
//   3. record the outcomes of many finished attempts in ONE transaction (on SQLite one fsync for the batch; on
//      PostgreSQL one statement), each update guarded by its claim token: 2xx → succeeded; otherwise the next retry per
//      config.webhookRetrySchedule; after the last retry → abandoned, and a registered endpoint is taken out of
//      service until the merchant re-enables it.
// A crashed worker's claims expire with their lease and are taken again (at-least-once); the attempt it had in
// flight is recorded then as a failed attempt without an answer, so a receiver that hangs while workers die
// still reaches the end of the schedule. Rows are claimed and sent in due order (next_attempt_at, then the order
// their events were recorded in, event_seq): a failing target's retry waits behind what fell due before it for that
// target, so with a backlog its time to out of service grows with the backlog divided by its per-target bound.
// Woken within milliseconds of a commit (in-process signal; on PostgreSQL a NOTIFY heard by the process's one
// listening connection, Database.listen), with a slow poll as fallback.
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { Clock } from '../shared/clock.js';
import { secretBoxFor } from '../shared/secret-box.js';
import { claimDue } from './delivery/claim.js';
import type { Claimed, DeliveryContext, Finished, Logger } from './delivery/context.js';
import { recordOutcomes } from './delivery/record.js';
import { send } from './delivery/send.js';
import { OUTBOX_CHANNEL } from './outbox.js';
import { SigningSecretCache } from './secret-cache.js';
import { onOutboxSignal } from './signal.js';

export type { Logger } from './delivery/context.js';

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

const LEASE_MARGIN_MS = 5_000;
/** Finished attempts recorded per transaction at most. */
const RECORD_BATCH = 512;

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
  const ctx: DeliveryContext = { db, clock, logger, config, schedule, perTarget, leaseMs, workerId };

  let stopping = false;
  let claiming = false;
  let active = 0;
  // target → sends in flight, from the claim to the answer (or the send's failure): what the per-target bound counts is
  // what the target's server holds open. The attempt's record comes after, in a batch of its own, and takes no slot: a
  // record turn that waits for a busy group commit no longer keeps the target's next deliveries from being sent.
  const busy = new Map<string, number>();
  let idleResolve: (() => void) | undefined;

  // Wake-ups: from outside (a commit's signal, NOTIFY, the poll) anything may be due; from a finished send, only
  // its target got a free slot. While a claim runs they are noted, and another claim follows only if one from
  // outside came, or a freed target still has room after the claim (else that query would only walk over the
  // saturated target's backlog to find nothing) and may have rows waiting for it: it filled its slots (rows of it
  // may have been left for the bound), or the process's slots were all taken. A slot freed by a target that never
  // filled them waits for nothing: every row of it that was due when the last claim ran was claimed then, and rows
  // that became due since come with a wake-up from outside. Without this, under a light load every recorded batch was
  // followed by a claim that found nothing (on PostgreSQL a statement, on SQLite a transaction of the group commit).
  let external = false;
  const freed = new Set<string>();
  /** Targets that filled their slots since a claim last found them with room (rows of them may be due and left). */
  const waiting = new Set<string>();
  /** The last claim stopped for want of the process's slots: any freed slot may take a row left. */
  let roomShort = false;
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
  const worthClaiming = () => external || [...freed].some((k) => (roomShort || waiting.has(k)) && (busy.get(k) ?? 0) < perTarget);

  async function claimLoop(): Promise<void> {
    claiming = true;
    try {
      // Let the wake-ups of this turn (a record batch frees many slots at once) gather into one claim.
      await new Promise((r) => setImmediate(r));
      while (worthClaiming() && !stopping) {
        external = false;
        freed.clear();
        const room = concurrency - active;
        roomShort = room <= 0;
        if (roomShort) break;
        // The free slots, as this claim starts, of the targets that had filled theirs: it takes every row of theirs it
        // reads, within those slots.
        const free = new Map<string, number>();
        for (const k of waiting) if ((busy.get(k) ?? 0) < perTarget) free.set(k, perTarget - (busy.get(k) ?? 0));
        const { claimed, more } = await claimDue(ctx, busy, room);
        for (const c of claimed) {
          run(c);
          const left = free.get(c.row.target_key);
          if (left !== undefined) free.set(c.row.target_key, left - 1);
        }
        if (more) external = true;
        // A target whose free slots the claim did not fill had no row left behind for the bound, unless the window was
        // full: then the next claim, at once, reads on. (Slots freed while the claim ran are not counted here: their
        // wake-up is in `freed`, and the target stays waiting if this claim filled the slots it knew of.)
        else for (const [k, left] of free) if (left > 0) waiting.delete(k);
        roomShort = concurrency - active <= 0;
      }
    } catch (err) {
      logger.error({ err: String(err) }, 'webhook claim failed');
    } finally {
      claiming = false;
    }
  }

  function run(c: Claimed): void {
    active++;
    const key = c.row.target_key;
    const n = (busy.get(key) ?? 0) + 1;
    busy.set(key, n);
    if (n >= perTarget) waiting.add(key);
    let slotHeld = true;
    const freeSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      const left = (busy.get(key) ?? 1) - 1;
      if (left <= 0) busy.delete(key);
      else busy.set(key, left);
      wakeFor(key);
    };
    void deliver(c, freeSlot)
      .catch((err) => logger.error({ err: String(err), deliveryId: c.row.id }, 'webhook delivery failed to record'))
      .finally(() => {
        active--;
        if (active === 0 && idleResolve) idleResolve();
        // The process's room too (`concurrency`): a claim stopped for want of it may go on.
        if (roomShort) wakeFor(key);
      });
  }

  async function deliver(c: Claimed, freeSlot: () => void): Promise<void> {
    let sent: Awaited<ReturnType<typeof send>>;
    try {
      sent = await send(ctx, secrets, c);
    } finally {
      freeSlot();
    }
    if (!sent) return;
    await new Promise<void>((done) => {
      finished.push({ c, ...sent, done });
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
          await recordOutcomes(ctx, batch);
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
