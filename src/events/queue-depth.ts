// The webhook delivery queue as /metrics shows it (src/http/metrics.ts): read on each scrape, in one query.
import { sql } from 'kysely';
import type { Database } from '../db/database.js';

export interface QueueDepth {
  /** Waiting to be delivered: due, scheduled for a retry, or being sent. */
  pending: number;
  /** Of those, the ones that failed at least once and wait for a retry (or are being retried). */
  retrying: number;
  /** Given up after the last retry (kept: `abandoned` rows are never deleted). */
  abandoned: number;
  /** Seconds since the oldest pending one was queued; 0 when none is. */
  oldestPendingSeconds: number;
}

export function depthOf(row: { pending: unknown; retrying: unknown; abandoned: unknown; oldest: unknown } | undefined, now: Date): QueueDepth {
  const oldest = row?.oldest ? new Date(String(row.oldest)).getTime() : undefined;
  return {
    pending: Number(row?.pending ?? 0),
    retrying: Number(row?.retrying ?? 0),
    abandoned: Number(row?.abandoned ?? 0),
    oldestPendingSeconds: oldest === undefined ? 0 : Math.max(0, (now.getTime() - oldest) / 1000),
  };
}

/**
 * One statement, three walks of partial indexes (migration 0057): the pending and the sending rows (the queue itself,
 * few), and a count of the abandoned ones that reads their index only. Each status is named as a literal: a partial
 * index serves only a condition that names its own.
 */
export async function webhookQueueDepth(db: Database, now: Date): Promise<QueueDepth> {
  const { rows } = await sql<{ pending: unknown; retrying: unknown; abandoned: unknown; oldest: unknown }>`
    select q.pending, q.retrying, q.oldest, a.abandoned
    from (select count(*) as pending, coalesce(sum(case when attempt_count > 0 then 1 else 0 end), 0) as retrying,
                 min(created_at) as oldest
          from (select attempt_count, created_at from webhook_deliveries where status = 'pending'
                union all
                select attempt_count, created_at from webhook_deliveries where status = 'sending') u) q,
         (select count(*) as abandoned from webhook_deliveries where status = 'abandoned') a`.execute(db.kysely);
  return depthOf(rows[0], now);
}
