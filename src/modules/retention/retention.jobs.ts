// Retention: the rows that grow with the traffic and outlive their use, deleted by the worker (job `apply-retention`,
// hourly) once older than their setting (config.retention; docs/reliability.md, "Retention"). A setting of 0 keeps
// those rows forever.
//
// - Webhook attempts of deliveries that succeeded, once the delivery is older than `attemptsDays`. Only the attempts go:
//   the delivery itself stays (its status, attempt count, last status code and error: what GET
//   /api/v1/events/{id}/deliveries answers, with an empty list of attempts), and so does the event. The attempts of a
//   delivery still pending or abandoned are never touched: the merchant needs them to see what went wrong.
// - Card tokens used more than `usedTokensHours` ago: a used token is never read again (a second use is refused
//   whether its row is there or not). Its card stays, with the authorizations made on it. The tokens never used are
//   deleted with their cards by `purge-card-tokens` once expired.
// - Back-office audit rows older than `auditDays` (ten years by default: keep them as long as the law asks).
//
// Never deleted here: payments, refunds, disputes, the ledger, payouts, invoices and credit notes, events, deliveries.
// Idempotency keys (24 hours) and sign-in counters (a day) have their own purges (src/jobs.ts).
//
// Each batch is one short statement over at most `batchSize` rows found by an index in their age, the oldest first,
// so no lock is held for long and the API's writes go on between batches.
import type { RetentionConfig } from '../../config.js';
import type { Database } from '../../db/database.js';

export interface RetentionCounts {
  webhookAttempts: number;
  usedCardTokens: number;
  auditRows: number;
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Every purge of retention, in turn; what each deleted. */
export async function applyRetention(db: Database, settings: RetentionConfig, now: Date): Promise<RetentionCounts> {
  return {
    webhookAttempts: await purgeDeliveredAttempts(db, settings, now),
    usedCardTokens: await purgeUsedCardTokens(db, settings, now),
    auditRows: await purgeAuditRows(db, settings, now),
  };
}

const cutoff = (now: Date, ms: number) => new Date(now.getTime() - ms).toISOString();
/** Lets the event loop (the API, in an `all` process) run between two batches. */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The attempts of deliveries that succeeded longer ago than `attemptsDays`. */
export async function purgeDeliveredAttempts(db: Database, settings: RetentionConfig, now: Date): Promise<number> {
  if (settings.attemptsDays === 0) return 0;
  const before = cutoff(now, settings.attemptsDays * DAY_MS);
  let deleted = 0;
  // Where the previous batch stopped, in the index of started_at: the attempts kept (of a delivery abandoned, or
  // succeeded later) are read once a run, not once a batch.
  let from = '';
  for (;;) {
    const rows = await db.kysely.selectFrom('webhook_attempts as a')
      .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .select(['a.id', 'a.started_at'])
      .where('a.started_at', '>=', from).where('a.started_at', '<', before)
      .where('d.status', '=', 'succeeded').where('d.updated_at', '<', before)
      .orderBy('a.started_at').limit(settings.batchSize).execute();
    if (rows.length === 0) return deleted;
    const result = await db.kysely.deleteFrom('webhook_attempts').where('id', 'in', rows.map((r) => r.id)).executeTakeFirst();
    deleted += Number(result.numDeletedRows);
    if (rows.length < settings.batchSize) return deleted;
    from = rows[rows.length - 1]!.started_at;
    await breathe();
  }
}

/** Card tokens used longer ago than `usedTokensHours`. */
export async function purgeUsedCardTokens(db: Database, settings: RetentionConfig, now: Date): Promise<number> {
  if (settings.usedTokensHours === 0) return 0;
  const before = cutoff(now, settings.usedTokensHours * HOUR_MS);
  return inBatches(settings.batchSize, async (limit) => {
    const rows = await db.kysely.selectFrom('acquirer_tokens').select('id')
      .where('used_at', 'is not', null).where('used_at', '<', before).orderBy('used_at').limit(limit).execute();
    if (rows.length === 0) return { found: 0, deleted: 0 };
    const result = await db.kysely.deleteFrom('acquirer_tokens').where('id', 'in', rows.map((r) => r.id)).executeTakeFirst();
    return { found: rows.length, deleted: Number(result.numDeletedRows) };
  });
}

/** Audit rows written longer ago than `auditDays`. */
export async function purgeAuditRows(db: Database, settings: RetentionConfig, now: Date): Promise<number> {
  if (settings.auditDays === 0) return 0;
  const before = cutoff(now, settings.auditDays * DAY_MS);
  return inBatches(settings.batchSize, async (limit) => {
    const rows = await db.kysely.selectFrom('audit_log').select('id').where('created_at', '<', before).orderBy('created_at').limit(limit).execute();
    if (rows.length === 0) return { found: 0, deleted: 0 };
    const result = await db.kysely.deleteFrom('audit_log').where('id', 'in', rows.map((r) => r.id)).executeTakeFirst();
    return { found: rows.length, deleted: Number(result.numDeletedRows) };
  });
}

/** Runs `batch` (which finds up to `limit` rows and deletes them) until a batch finds fewer; the rows deleted. */
async function inBatches(limit: number, batch: (limit: number) => Promise<{ found: number; deleted: number }>): Promise<number> {
  let total = 0;
  for (;;) {
    const { found, deleted } = await batch(limit);
    total += deleted;
    if (found < limit) return total;
    await breathe();
  }
}
