// The background role: the webhook delivery worker and the scheduler. Started by `motu serve` for roles
// worker and all; stop() finishes the deliveries in flight (graceful SIGTERM).
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { startScheduler, type ScheduledJob } from '../events/scheduler.js';
import { startDeliveryWorker, type DeliveryWorkerOptions, type Logger } from '../events/worker.js';
import { purgeExpiredIdempotencyKeys } from '../http/idempotency.js';
import type { Clock } from '../shared/clock.js';
import { Acquirers } from '../acquirer/acquirers.js';
import { PaymentLifecycleService } from '../modules/payments/lifecycle.service.js';
import { paymentJobs, recoveryEveryMs } from '../modules/payments/payments.scheduler.js';
import { PaymentSessionsService } from '../modules/sessions/sessions.service.js';
import { PaymentsService } from '../modules/payments/payments.service.js';
import { MerchantPaymentsService } from '../modules/merchant-payments/merchant-payments.service.js';
import { mailJobs } from '../mail/mail.worker.js';
import { smtpMailer } from '../mail/mailer.js';

export interface Workers {
  stop(): Promise<void>;
}

/** Jobs every worker process runs; modules add theirs here. */
export function scheduledJobs(db: Database, clock: Clock, config?: Config, logger?: Logger): ScheduledJob[] {
  const jobs: ScheduledJob[] = [{ name: 'purge-idempotency-keys', everyMs: 3_600_000, run: () => purgeExpiredIdempotencyKeys(db, clock) }];
  if (config) {
    // Payment expiries and settlement (src/modules/payments/payments.scheduler.ts).
    const acquirers = new Acquirers(db, clock, { publicUrl: config.publicUrl, settlementDelaySeconds: config.testSettlementDelaySeconds });
    // Card tokens never used, and their cards, deleted once expired (the token endpoint is anonymous).
    jobs.push({ name: 'purge-card-tokens', everyMs: 600_000, run: (now) => acquirers.simulator.purgeUnusedTokens(now) });
    jobs.push(...paymentJobs({ db, clock, acquirers, lifecycle: new PaymentLifecycleService(db, clock, acquirers, config.operationClaimSeconds), refundRecoverySeconds: config.refundRecoverySeconds }));
    // Merchant-initiated payments left pending by a stopped request (src/modules/wallet/merchant-payments.service.ts).
    const merchantPayments = new MerchantPaymentsService(db, clock, acquirers, new PaymentSessionsService(db, clock, config), new PaymentsService(db, acquirers), config);
    const recoveryEvery = recoveryEveryMs(config.operationClaimSeconds);
    jobs.push({ name: 'recover-merchant-payments', everyMs: recoveryEvery, run: (now) => merchantPayments.recoverLeftPending(now) });
    // …and the authorizations that reach the acquirer after that job failed their payment, given back.
    jobs.push({ name: 'release-late-authorizations', everyMs: recoveryEvery, run: (now) => merchantPayments.releaseLateAuthorizations(now, recoveryEvery) });
    // Receipts and card-link mails queued in mail_jobs (src/mail/mail.worker.ts), when MOTU_SMTP_URL is set.
    if (config.mail) jobs.push(...mailJobs({ db, clock, mailer: smtpMailer(config.mail), publicUrl: config.publicUrl, timezone: config.timezone, logger }));
  }
  return jobs;
}

export function startWorkers(
  config: Config,
  db: Database,
  clock: Clock,
  logger: Logger,
  options: { delivery?: DeliveryWorkerOptions; jobs?: ScheduledJob[] } = {},
): Workers {
  const delivery = startDeliveryWorker(config, db, clock, logger, options.delivery);
  const scheduler = startScheduler(options.jobs ?? scheduledJobs(db, clock, config, logger), clock, logger);
  return {
    async stop() {
      await Promise.all([delivery.stop(), scheduler.stop()]);
    },
  };
}
