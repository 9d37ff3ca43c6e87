// The worker role's scheduled jobs, assembled from the modules that own them: each module exports its time-driven
// steps (a function of its dependencies and "now"), and this is the one list the scheduler runs
// (src/start/workers.ts). Tests run the payment jobs in order with `runPaymentSchedule` after moving a ManualClock.
import type { Config } from './config.js';
import { buildServices, type Services } from './compose.js';
import type { Database } from './db/database.js';
import type { ScheduledJob } from './events/scheduler.js';
import type { Logger } from './events/worker.js';
import { purgeExpiredIdempotencyKeys } from './http/idempotency.js';
import { purgeSignInAttempts } from './modules/users/sign-in-attempts.js';
import { applyRetention } from './modules/retention/retention.jobs.js';
import { mailJobs } from './mail/mail.worker.js';
import { smtpMailer } from './mail/mailer.js';
import { composeMail } from './pages/mail/messages.js';
import { DocumentPdfs } from './pages/pdf/documents.js';
import { pdfPool } from './pages/pdf/pool.js';
import {
  expireAuthorizations, expireSessions, paymentTimeRules, recoverClaims, recoveryEveryMs, settlePayments, type PaymentJobDeps,
} from './modules/payments/payments.scheduler.js';
import { closeOverdueDisputes, decideTestDisputes, disputeTimeRules, openNotifiedDisputes, type DisputeJobDeps } from './modules/disputes/disputes.jobs.js';
import type { InvoicesService } from './modules/invoices/invoices.service.js';
import type { SubscriptionsEngine } from './modules/subscriptions/subscriptions.engine.js';
import { advanceTestClocks, type TimeRule } from './modules/test-clocks/advance.js';
import { realTime } from './modules/test-clocks/clock-time.js';
import { RECOVERY_AFTER_SECONDS, recoverRefunds, refundInvoiceOverpayments, type RefundJobDeps } from './modules/refunds/refunds.jobs.js';
import type { Clock } from './shared/clock.js';

export type ScheduleDeps = PaymentJobDeps & RefundJobDeps & DisputeJobDeps & { subscriptions: SubscriptionsEngine; invoices: InvoicesService };

/** What the payment and refund jobs need, from the services. */
export function scheduleDeps(services: Services, config: Config, db: Database, clock: Clock): ScheduleDeps {
  return {
    db, clock, acquirers: services.acquirers, lifecycle: services.lifecycle, refunds: services.refunds, subscriptions: services.subscriptionsEngine, invoices: services.invoices,
    refundRecoverySeconds: config.refundRecoverySeconds, testSettlementDelaySeconds: config.testSettlementDelaySeconds,
  };
}

/** One scheduler tick of every payment job, in order. */
export async function runPaymentSchedule(deps: ScheduleDeps, now: Date = deps.clock.now()) {
  return {
    sessionsExpired: await expireSessions(deps, realTime(now)),
    claimsRecovered: await recoverClaims(deps, now),
    refundsRecovered: await recoverRefunds(deps, now),
    overpaymentsRefunded: await refundInvoiceOverpayments(deps),
    authorizationsExpired: await expireAuthorizations(deps, realTime(now)),
    settled: await settlePayments(deps, now),
    disputesOpened: await openNotifiedDisputes(deps, now),
    disputesOverdue: await closeOverdueDisputes(deps, realTime(now)),
    disputesDecided: await decideTestDisputes(deps, now),
    subscriptionDueDatesOpened: await deps.subscriptions.openDue(realTime(now)),
    subscriptionsCharged: await deps.subscriptions.chargeDue(realTime(now)),
    invoicesOverdue: await deps.invoices.markOverdue(realTime(now)),
    testClocksReady: await advanceTestClocks(deps.db, deps.clock, timeRules(deps)),
  };
}

export function paymentJobs(deps: ScheduleDeps): ScheduledJob[] {
  const refundsEveryMs = recoveryEveryMs(deps.refundRecoverySeconds ?? RECOVERY_AFTER_SECONDS);
  const claimsEveryMs = recoveryEveryMs(deps.lifecycle.claimTtlSeconds);
  return [
    { name: 'expire-payment-sessions', everyMs: 5_000, run: (now) => expireSessions(deps, realTime(now)) },
    { name: 'expire-authorizations', everyMs: 60_000, run: (now) => expireAuthorizations(deps, realTime(now)) },
    { name: 'settle-payments', everyMs: 10_000, run: (now) => settlePayments(deps, now) },
    { name: 'recover-payment-claims', everyMs: claimsEveryMs, run: (now) => recoverClaims(deps, now) },
    { name: 'recover-refunds', everyMs: refundsEveryMs, run: (now) => recoverRefunds(deps, now) },
    { name: 'refund-invoice-overpayments', everyMs: 1_000, run: () => refundInvoiceOverpayments(deps) },
    // Disputes: the acquirer's notices, the evidence deadline, and in test mode the simulated bank's decision.
    { name: 'open-notified-disputes', everyMs: 1_000, run: (now) => openNotifiedDisputes(deps, now) },
    { name: 'close-overdue-disputes', everyMs: 60_000, run: (now) => closeOverdueDisputes(deps, realTime(now)) },
    { name: 'decide-test-disputes', everyMs: 1_000, run: (now) => decideTestDisputes(deps, now) },
    // Subscriptions: due dates opened when reached, then charged (and retried) when their attempt comes.
    { name: 'open-subscription-due-dates', everyMs: 5_000, run: (now) => deps.subscriptions.openDue(realTime(now)) },
    { name: 'charge-subscription-due-dates', everyMs: 5_000, run: (now) => deps.subscriptions.chargeDue(realTime(now)) },
    // Invoices left unpaid past their due date: overdue, once.
    { name: 'mark-overdue-invoices', everyMs: 60_000, run: (now) => deps.invoices.markOverdue(realTime(now)) },
    // Test clocks asked to advance: every time rule above, at the clock's time, for the objects on it.
    { name: 'advance-test-clocks', everyMs: 1_000, run: () => advanceTestClocks(deps.db, deps.clock, timeRules(deps)) },
  ];
}

/** Every rule that reads "now": what a test clock's advance runs, in time order, for the objects on the clock. */
export function timeRules(deps: ScheduleDeps): TimeRule[] {
  return [...paymentTimeRules(deps), ...disputeTimeRules(deps), ...deps.subscriptions.timeRules(), ...deps.invoices.timeRules()];
}

/** Jobs every worker process runs; modules add theirs here. */
export function scheduledJobs(db: Database, clock: Clock, config?: Config, logger?: Logger): ScheduledJob[] {
  const jobs: ScheduledJob[] = [
    // Idempotency keys past their 24 hours, in batches.
    { name: 'purge-idempotency-keys', everyMs: 3_600_000, run: () => purgeExpiredIdempotencyKeys(db, clock, config?.retention.batchSize) },
    // The sign-in counts of addresses nobody tried for a day (any address may be tried, a user's or not).
    { name: 'purge-sign-in-attempts', everyMs: 3_600_000, run: () => purgeSignInAttempts(db, clock) },
  ];
  if (config) {
    const services = buildServices(config, db, clock);
    // Card tokens never used, and their cards, deleted once expired (the token endpoint is anonymous).
    jobs.push({ name: 'purge-card-tokens', everyMs: 600_000, run: (now) => services.acquirers.simulator.purgeUnusedTokens(now) });
    // Webhook attempts of old successful deliveries, used card tokens, and audit rows past their legal period.
    jobs.push({ name: 'apply-retention', everyMs: 3_600_000, run: (now) => applyRetention(db, config.retention, now) });
    // Payment expiries, settlement, and the recovery of interrupted captures, cancels and refunds.
    jobs.push(...paymentJobs(scheduleDeps(services, config, db, clock)));
    // Merchant-initiated payments left pending by a stopped request, and the authorizations that reach the acquirer
    // after that job failed their payment, given back.
    const recoveryEvery = recoveryEveryMs(config.operationClaimSeconds);
    jobs.push({ name: 'recover-merchant-payments', everyMs: recoveryEvery, run: (now) => services.merchantPayments.recoverLeftPending(now) });
    // Test mode: the simulated bank's answer to payouts, MOTU_TEST_PAYOUT_SECONDS after each was made.
    jobs.push({ name: 'answer-test-payouts', everyMs: 5_000, run: (now) => services.payouts.answerDueTestPayouts(now) });
    // Automatic payouts: each merchant's day of its schedule, once (the day is claimed before the run).
    jobs.push({ name: 'run-automatic-payouts', everyMs: 60_000, run: (now) => services.payoutSchedule.runDue(now) });
    // Onboarding sessions of platforms left unused past their expiry: expired, with merchant.session.expired.
    jobs.push({ name: 'expire-onboarding-sessions', everyMs: 30_000, run: (now) => services.onboarding.expireSessions(now) });
    jobs.push({ name: 'release-late-authorizations', everyMs: recoveryEvery, run: (now) => services.merchantPayments.releaseLateAuthorizations(now, recoveryEvery) });
    // Receipts and card-link mails queued in mail_jobs, when MOTU_SMTP_URL is set.
    if (config.mail) {
      // Attachments drawn on worker threads (idle ones do not hold the process) and kept, as the downloads.
      const pdfs = new DocumentPdfs(db, clock, pdfPool(config.pdfThreads));
      const compose = { db, clock, publicUrl: config.publicUrl, timezone: config.timezone, setupUrl: (userId: string, nonce: string) => services.users.setupUrl(userId, nonce), pdfs };
      jobs.push(...mailJobs({ db, clock, mailer: smtpMailer(config.mail), compose: (job) => composeMail(compose, job), logger }));
    }
  }
  return jobs;
}
