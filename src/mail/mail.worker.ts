// The mail sender, a job of the worker role's scheduler. The mail_jobs table is the queue, in three stages:
//   1. claim: due jobs, and jobs whose worker stopped mid-send (lease run out: their attempt is recorded as lost), are
//      stamped with a claim token and a lease in a short transaction (src/db/lease.ts, shared with the webhook
//      deliveries); commit;
//   2. send: the mail is composed now from the current rows (by the `compose` the composition root passes in: mail
//      text is presentation) and sent over SMTP, outside any transaction;
//   3. record: guarded by the claim token, the job is sent, skipped (no longer due), or due again per
//      MAIL_RETRY_SECONDS, failed after the last retry; every attempt is a mail_attempts row.
// Logs name the job, its kind and the attempt, never the address nor the body.
import type { Database, Trx } from '../db/database.js';
import { claimedColumns, LOST_ATTEMPT_ERROR, newClaim, releasedColumns, type Claim } from '../db/lease.js';
import type { ScheduledJob } from '../events/scheduler.js';
import type { Logger } from '../events/worker.js';
import { addSeconds, type Clock } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import type { MailJobRow, MailOutcome } from './mail.table.js';
import type { Mailer, OutgoingMail } from './mailer.js';

/** Seconds before retries 1 to 5; the sixth failed attempt ends the job `failed`. */
export const MAIL_RETRY_SECONDS = [30, 120, 600, 3600, 21600] as const;
const LEASE_MS = 120_000;
const BATCH = 20;

export interface MailJobDeps {
  db: Database;
  clock: Clock;
  mailer: Mailer;
  /** The mail a job sends, composed from the current rows; null when it is no longer due (the job is skipped). */
  compose(job: MailJobRow): Promise<OutgoingMail | null>;
  logger?: Logger;
}

type Result = { ok: true } | { ok: false; error: string } | 'skip';

async function recordAttempt(trx: Trx, job: Pick<MailJobRow, 'id' | 'attempts'>, startedAt: string, finishedAt: string, outcome: MailOutcome, error: string | null) {
  await trx.insertInto('mail_attempts').values({
    id: newId('mat'), mail_id: job.id, attempt: job.attempts, started_at: startedAt, finished_at: finishedAt, outcome, error,
  }).execute();
}

/** Stage 1: due jobs and abandoned claims, stamped with a new claim. */
async function claim({ db, logger }: MailJobDeps, c: Claim): Promise<MailJobRow[]> {
  return db.transaction(async (trx) => {
    const due = await db.skipLockedRows(trx.selectFrom('mail_jobs').select(['id', 'status', 'attempts', 'updated_at'])
      .where((eb) => eb.or([
        eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', c.nowIso)]),
        eb.and([eb('status', '=', 'sending'), eb('lease_until', '<', c.nowIso)]),
      ]))
      .orderBy('next_attempt_at').limit(BATCH)).execute();
    if (due.length === 0) return [];
    const lost = due.filter((r) => r.status === 'sending');
    for (const job of lost) await recordAttempt(trx, job, job.updated_at, c.nowIso, 'lost', LOST_ATTEMPT_ERROR);
    if (lost.length) logger?.warn({ count: lost.length }, 'mail claims of a stopped worker retaken; their attempts are recorded as lost');
    return trx.updateTable('mail_jobs')
      .set((eb) => ({ ...claimedColumns(c), attempts: eb('attempts', '+', 1) }))
      .where('id', 'in', due.map((r) => r.id)).returningAll().execute();
  });
}

/** Stage 2: composed and sent, outside any transaction. */
async function send({ mailer, compose }: MailJobDeps, job: MailJobRow): Promise<Result> {
  try {
    const mail = await compose(job);
    return mail ? await mailer.send(mail) : 'skip';
  } catch (err) {
    return { ok: false, error: `compose: ${err instanceof Error ? err.name : 'error'}` };
  }
}

/** Stage 3: the outcome, guarded by the claim token, and its attempt row, in one transaction. */
async function record({ db, clock, logger }: MailJobDeps, job: MailJobRow, startedAt: string, result: Result): Promise<boolean> {
  const at = clock.now();
  const nowIso = at.toISOString();
  const recorded = await db.transaction(async (trx) => {
    const guard = trx.updateTable('mail_jobs').where('id', '=', job.id).where('claim_token', '=', job.claim_token);
    const base = releasedColumns(nowIso);
    let outcome: MailOutcome;
    let update;
    if (result === 'skip') {
      outcome = 'skipped';
      update = guard.set({ ...base, status: 'skipped' });
    } else if (result.ok) {
      outcome = 'sent';
      update = guard.set({ ...base, status: 'sent', sent_at: nowIso, last_error: null });
    } else {
      outcome = 'failed';
      const delay = MAIL_RETRY_SECONDS[job.attempts - 1];
      update = guard.set({
        ...base, last_error: result.error.slice(0, 200),
        ...(delay === undefined ? { status: 'failed' as const } : { status: 'pending' as const, next_attempt_at: addSeconds(at, delay).toISOString() }),
      });
    }
    const res = await update.executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false; // the claim was lost (lease ran out and another worker took it)
    await recordAttempt(trx, job, startedAt, nowIso, outcome, result !== 'skip' && !result.ok ? result.error.slice(0, 200) : null);
    return true;
  });
  if (!recorded) logger?.warn({ mailJob: job.id }, 'mail claim lost before the attempt was recorded');
  else if (result === 'skip') logger?.info({ mailJob: job.id, kind: job.kind }, 'mail skipped: no longer due');
  else if (result.ok) logger?.info({ mailJob: job.id, kind: job.kind, attempt: job.attempts }, 'mail sent');
  else logger?.warn({ mailJob: job.id, kind: job.kind, attempt: job.attempts, error: result.error, final: MAIL_RETRY_SECONDS[job.attempts - 1] === undefined }, 'mail attempt failed');
  return recorded && result !== 'skip' && result.ok;
}

/** Sends the mail jobs due at `now`; returns how many were sent. */
export async function sendDueMail(deps: MailJobDeps, now: Date): Promise<number> {
  let sent = 0;
  for (const job of await claim(deps, newClaim(now, LEASE_MS))) {
    const startedAt = deps.clock.now().toISOString();
    if (await record(deps, job, startedAt, await send(deps, job))) sent += 1;
  }
  return sent;
}

/** The scheduler's mail job (worker role), when a mailer is configured. */
export function mailJobs(deps: MailJobDeps, everyMs = 1000): ScheduledJob[] {
  return [{ name: 'send-mail', everyMs, run: (now) => sendDueMail(deps, now) }];
}
