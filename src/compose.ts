// The composition root: every service built once, from the configuration, the database and the clock, in one place
// used by the app (src/app.ts), the worker role's jobs (src/start/workers.ts), the command line and the tests.
import { Acquirers } from './acquirer/acquirers.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { MailOutbox } from './mail/outbox.js';
import { BankAccountsService } from './modules/bank-accounts/bank-accounts.service.js';
import { InvoicesService } from './modules/invoices/invoices.service.js';
import { SubscriptionsEngine } from './modules/subscriptions/subscriptions.engine.js';
import { SubscriptionsService } from './modules/subscriptions/subscriptions.service.js';
import { BankFilesService } from './modules/payouts/bank-files/bank-files.service.js';
import { PayoutScheduleService } from './modules/payouts/payout-schedule.js';
import { PayoutsService } from './modules/payouts/payouts.service.js';
import { CheckoutService } from './modules/checkout/checkout.service.js';
import { CustomersService } from './modules/customers/customers.service.js';
import { BalanceService, LIVE_SETTLEMENT_ESTIMATE_SECONDS } from './modules/ledger/balance.service.js';
import { MerchantPaymentsService } from './modules/merchant-payments/merchant-payments.service.js';
import { ApiKeysService } from './modules/merchants/api-keys.js';
import { ContractsService } from './modules/merchants/contracts.service.js';
import { MerchantsService } from './modules/merchants/merchants.service.js';
import { StoresService } from './modules/merchants/stores.service.js';
import { PaymentLifecycleService } from './modules/payments/lifecycle.service.js';
import { PaymentsService } from './modules/payments/payments.service.js';
import { RefundsService } from './modules/refunds/refunds.service.js';
import { PaymentSessionsService } from './modules/sessions/sessions.service.js';
import { WalletSessionsService } from './modules/wallet/wallet-sessions.service.js';
import { WalletService } from './modules/wallet/wallet.service.js';
import { EventsService } from './modules/webhooks/events.service.js';
import { WebhooksService } from './modules/webhooks/webhooks.service.js';
import { keepEndpointsCached } from './events/endpoint-cache.js';
import { DisputesService } from './modules/disputes/disputes.service.js';
import { TestClocksService } from './modules/test-clocks/test-clocks.service.js';
import { AuditService } from './modules/audit/audit.service.js';
import { GoLiveService } from './modules/back-office/go-live.js';
import { HomeService } from './modules/back-office/home.js';
import { TimelineService } from './modules/back-office/timeline.js';
import { UserSessions } from './modules/users/user-sessions.js';
import { UsersService } from './modules/users/users.service.js';
import type { Clock } from './shared/clock.js';
import { secretBoxFor } from './shared/secret-box.js';
import { OnboardingService } from './modules/platforms/onboarding.service.js';
import { AgencyInvitationsService } from './modules/agencies/invitations.service.js';
import { AgencyMandatesService } from './modules/agencies/mandates.service.js';

export interface Services {
  merchants: MerchantsService;
  contracts: ContractsService;
  stores: StoresService;
  apiKeys: ApiKeysService;
  customers: CustomersService;
  paymentSessions: PaymentSessionsService;
  payments: PaymentsService;
  lifecycle: PaymentLifecycleService;
  refunds: RefundsService;
  merchantPayments: MerchantPaymentsService;
  webhooks: WebhooksService;
  events: EventsService;
  acquirers: Acquirers;
  checkout: CheckoutService;
  wallet: WalletService;
  walletSessions: WalletSessionsService;
  balance: BalanceService;
  bankAccounts: BankAccountsService;
  payouts: PayoutsService;
  testClocks: TestClocksService;
  disputes: DisputesService;
  payoutSchedule: PayoutScheduleService;
  bankFiles: BankFilesService;
  subscriptions: SubscriptionsService;
  subscriptionsEngine: SubscriptionsEngine;
  invoices: InvoicesService;
  users: UsersService;
  userSessions: UserSessions;
  audit: AuditService;
  timeline: TimelineService;
  home: HomeService;
  goLive: GoLiveService;
  onboarding: OnboardingService;
  agencyInvitations: AgencyInvitationsService;
  agencyMandates: AgencyMandatesService;
}

export function buildServices(config: Config, db: Database, clock: Clock): Services {
  const acquirers = new Acquirers(db, clock, {
    publicUrl: config.publicUrl, settlementDelaySeconds: config.testSettlementDelaySeconds,
    box: secretBoxFor(config), monext: {
      baseUrl: config.monext.apiUrl, widgetUrl: config.monext.widgetUrl, timeoutMs: config.monext.timeoutMs, settlementDelaySeconds: config.monext.settlementDelaySeconds,
    },
  });
  // Mails are queued only when a mailer is configured (MOTU_SMTP_URL); the worker role sends them.
  const mail = config.mail ? new MailOutbox(clock) : null;
  const customers = new CustomersService(db, clock);
  const paymentSessions = new PaymentSessionsService(db, clock, config);
  const payments = new PaymentsService(db, acquirers);
  const wallet = new WalletService(db, clock, acquirers);
  const bankAccounts = new BankAccountsService(db, clock, secretBoxFor(config));
  const balance = new BalanceService(db, clock, {
    pendingEstimateSeconds: (mode) => (mode === 'test' ? config.testSettlementDelaySeconds : LIVE_SETTLEMENT_ESTIMATE_SECONDS),
  });
  const refunds = new RefundsService(db, clock, acquirers);
  const merchantPayments = new MerchantPaymentsService(db, clock, acquirers, paymentSessions, payments, config);
  const invoices: InvoicesService = new InvoicesService(db, clock, config.publicUrl, async (owner, link) => paymentSessions.create(owner, {
      order: { reference: link.reference, amount: link.amount, currency: link.currency }, customerId: link.customerId, redirectUrl: link.returnUrl,
    } as never, { channel: 'link', defaultExpiresIn: 30 * 86_400 }), async (owner, paymentId, amount, reason) => {
      await refunds.refund(owner, paymentId, { amount, reason });
    }, mail, config.mail?.testAllowlist ?? []);
  const subscriptionsEngine = new SubscriptionsEngine(db, clock, merchantPayments, config.operationClaimSeconds, (owner, invoiceId) => invoices.send(owner, invoiceId));
  const payouts = new PayoutsService(db, clock, bankAccounts, balance, { testPayoutSeconds: config.testPayoutSeconds });
  const events = new EventsService(db, clock);
  const disputes = new DisputesService(db, clock);
  const audit = new AuditService(db, clock);
  const merchants = new MerchantsService(db, clock, secretBoxFor(config));
  const apiKeys = new ApiKeysService(db, clock);
  const webhooks = new WebhooksService(config, db, clock);
  // Every event reads its merchant's endpoints: kept in the process (src/events/endpoint-cache.ts).
  keepEndpointsCached(db);
  return {
    merchants,
    contracts: new ContractsService(db, clock, secretBoxFor(config)),
    stores: new StoresService(db, clock),
    apiKeys,
    customers,
    paymentSessions,
    payments,
    lifecycle: new PaymentLifecycleService(db, clock, acquirers, config.operationClaimSeconds),
    refunds,
    merchantPayments,
    webhooks,
    events,
    acquirers,
    checkout: new CheckoutService(db, clock, acquirers, config, wallet, customers, mail),
    wallet,
    walletSessions: new WalletSessionsService(db, clock, acquirers, config, mail),
    bankAccounts,
    balance,
    payouts,
    payoutSchedule: new PayoutScheduleService(db, clock, payouts),
    bankFiles: new BankFilesService(db, clock, bankAccounts, payouts, config.operatorAccount),
    subscriptions: new SubscriptionsService(db, clock, subscriptionsEngine),
    subscriptionsEngine,
    invoices,
    testClocks: new TestClocksService(db, clock),
    disputes,
    users: new UsersService(db, clock, { publicUrl: config.publicUrl, box: secretBoxFor(config), mail }),
    userSessions: new UserSessions(db, clock),
    audit,
    timeline: new TimelineService({ payments, refunds, disputes, events, audit }),
    home: new HomeService(db, clock, balance, payments),
    goLive: new GoLiveService({ merchants, invoices, bankAccounts, apiKeys, webhooks }),
    onboarding: new OnboardingService(db, clock, secretBoxFor(config), config.publicUrl, merchants, bankAccounts, balance, config.allowLoopbackUrls),
    agencyInvitations: new AgencyInvitationsService(db, clock, config.publicUrl),
    agencyMandates: new AgencyMandatesService(db, clock),
  };
}
