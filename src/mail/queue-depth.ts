// The mail queue as /metrics shows it (src/http/metrics.ts): read on each scrape, in one query.
import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import { depthOf, type QueueDepth } from '../events/queue-depth.js';

/**
 * One statement, two index range scans of mail_jobs_due (status, next_attempt_at). A job's `attempts` counts from its
 * claim: a pending job that was tried, or one being sent again, has failed before. `failed` is the end (abandoned).
 */
export async function mailQueueDepth(db: Database, now: Date): Promise<QueueDepth> {
  const { rows } = await sql<{ pending: unknown; retrying: unknown; abandoned: unknown; oldest: unknown }>`
    select q.pending, q.retrying, q.oldest, a.abandoned
    from (select count(*) as pending,
                 coalesce(sum(case when attempts > (case when status = 'sending' then 1 else 0 end) then 1 else 0 end), 0) as retrying,
                 min(created_at) as oldest
          from mail_jobs where status in ('pending', 'sending')) q,
         (select count(*) as abandoned from mail_jobs where status = 'failed') a`.execute(db.kysely);
  return depthOf(rows[0], now);
}
