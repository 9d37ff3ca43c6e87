// The mail sender, a job of the worker role's scheduler. The mail_jobs table is the queue:
//   1. claim due jobs in a short transaction (FOR UPDATE SKIP LOCKED on PostgreSQL; SQLite has one process),
//      stamping a claim token and a lease; commit;
//   2. compose (the receipt PDF is rendered now) and send over SMTP outside any transaction;
//   3. record the outcome guarded by the claim token: sent; or the next retry per MAIL_RETRY_SECONDS; after the
//      last one, failed.
// A worker stopped mid-send leaves its claim to expire; the job is sent again (at least once).
// Logs name the job, its kind and the attempt, never the address nor the body.
import { randomBytes } from 'node:crypto';
import type { Database } from '../db/database.js';
import type { ScheduledJob } from '../events/scheduler.js';
import type { Logger } from '../events/worker.js';
import { addSeconds, type Clock } from '../shared/clock.js';
import type { MailJobRow } from './mail.table.js';
import type { Mailer } from './mailer.js';
import { composeMail } from './messages.js';

/** Seconds before retries 1 to 5; the sixth failed attempt ends the job `failed`. */
export const MAIL_RETRY_SECONDS = [30, 120, 600, 3600, 21600] as const;
const LEASE_SECONDS = 120;
const BATCH = 20;

export interface MailJobDeps {
  db: Database;
  clock: Clock;
  mailer: Mailer;
  publicUrl: string;
  /** MOTU_TIMEZONE: receipts of a merchant without its own time zone. */
  timezone: string;
  logger?: Logger;
}

async function claim({ db, clock }: MailJobDeps, now: Date): Promise<MailJobRow[]> {
  const nowIso = now.toISOString();
  const token = randomBytes(12).toString('hex');
  return db.transaction(async (trx) => {
    let q = trx.selectFrom('mail_jobs').select('id')
      .where((eb) => eb.or([
        eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', nowIso)]),
        eb.and([eb('status', '=', 'sending'), eb('lease_until', '<', nowIso)]),
      ]))
      .orderBy('next_attempt_at').limit(BATCH);
    if (db.caps.skipLocked) q = q.forUpdate().skipLocked();
    const ids = (await q.execute()).map((r) => r.id);
    if (ids.length === 0) return [];
    return trx.updateTable('mail_jobs')
      .set((eb) => ({
        status: 'sending', claim_token: token, lease_until: addSeconds(clock.now(), LEASE_SECONDS).toISOString(),
        attempts: eb('attempts', '+', 1), updated_at: nowIso,
      }))
      .where('id', 'in', ids).returningAll().execute();
  });
}

/** Sends the mail jobs due at `now`; returns how many were sent. */
export async function sendDueMail(deps: MailJobDeps, now: Date): Promise<number> {
  const { db, clock, mailer, logger } = deps;
  let sent = 0;
  for (const job of await claim(deps, now)) {
    let outcome: { ok: true } | { ok: false; error: string } | 'skip';
    try {
      const mail = await composeMail(deps, job);
      outcome = mail ? await mailer.send(mail) : 'skip';
    } catch (err) {
      outcome = { ok: false, error: `compose: ${err instanceof Error ? err.name : 'error'}` };
    }
    const at = clock.now();
    const guard = db.kysely.updateTable('mail_jobs').where('id', '=', job.id).where('claim_token', '=', job.claim_token);
    const base = { claim_token: null, lease_until: null, updated_at: at.toISOString() };
    if (outcome === 'skip') {
      await guard.set({ ...base, status: 'skipped' }).execute();
      logger?.info({ mailJob: job.id, kind: job.kind }, 'mail skipped: no longer due');
    } else if (outcome.ok) {
      await guard.set({ ...base, status: 'sent', sent_at: at.toISOString(), last_error: null }).execute();
      logger?.info({ mailJob: job.id, kind: job.kind, attempt: job.attempts }, 'mail sent');
      sent += 1;
    } else {
      const delay = MAIL_RETRY_SECONDS[job.attempts - 1];
      await guard.set({
        ...base, last_error: outcome.error.slice(0, 200),
        ...(delay === undefined ? { status: 'failed' as const } : { status: 'pending' as const, next_attempt_at: addSeconds(at, delay).toISOString() }),
      }).execute();
      logger?.warn({ mailJob: job.id, kind: job.kind, attempt: job.attempts, error: outcome.error, final: delay === undefined }, 'mail attempt failed');
    }
  }
  return sent;
}

/** The scheduler's mail job (worker role), when a mailer is configured. */
export function mailJobs(deps: MailJobDeps, everyMs = 1000): ScheduledJob[] {
  return [{ name: 'send-mail', everyMs, run: (now) => sendDueMail(deps, now) }];
}
