// The database as Kysely sees it: every table, from the module that owns it.
import type { IdempotencyKeysTable } from '../http/idempotency.table.js';
import type { CustomersTable } from '../modules/customers/customers.table.js';
import type {
  ApiKeysTable, ContractsTable, MerchantsTable, SettingsTable, StoresTable, WebhookSecretsTable,
} from '../modules/merchants/merchants.table.js';
import type { PaymentSessionsTable, PaymentsTable } from '../modules/payments/payments.table.js';
import type { RefundsTable } from '../modules/refunds/refunds.table.js';
import type { AcquirerAuthorizationsTable, AcquirerCardsTable, AcquirerRefundsTable, AcquirerTokensTable } from '../acquirer/acquirer.table.js';
import type { CardLinksTable, PaymentMethodsTable, WalletSessionsTable } from '../modules/wallet/wallet.table.js';
import type { BalanceTransactionsTable, LedgerLinesTable, LedgerPostingsTable, PayoutItemsTable } from '../modules/ledger/ledger.table.js';
import type { BankAccountsTable } from '../modules/bank-accounts/bank-accounts.table.js';
import type { PayoutSchedulesTable, PayoutsTable } from '../modules/payouts/payouts.table.js';
import type { TestClocksTable } from '../modules/test-clocks/test-clocks.table.js';
import type { DisputesTable } from '../modules/disputes/disputes.table.js';
import type { BillingSequencesTable, CreditNotesTable, InvoicePaymentsTable, InvoicesTable } from '../modules/invoices/invoices.table.js';
import type { SubscriptionDueDatesTable, SubscriptionsTable } from '../modules/subscriptions/subscriptions.table.js';
import type { MailAttemptsTable, MailJobsTable } from '../mail/mail.table.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEventsTable } from '../events/events.table.js';
import type { WebhookEndpointsTable } from '../modules/webhooks/endpoints.table.js';
import type { UserSessionsTable, UsersTable } from '../modules/users/users.table.js';
import type { AuditLogTable } from '../modules/audit/audit.table.js';

export interface DB {
  settings: SettingsTable;
  merchants: MerchantsTable;
  webhook_secrets: WebhookSecretsTable;
  contracts: ContractsTable;
  stores: StoresTable;
  api_keys: ApiKeysTable;
  customers: CustomersTable;
  idempotency_keys: IdempotencyKeysTable;
  payment_sessions: PaymentSessionsTable;
  payments: PaymentsTable;
  refunds: RefundsTable;
  acquirer_cards: AcquirerCardsTable;
  acquirer_tokens: AcquirerTokensTable;
  acquirer_authorizations: AcquirerAuthorizationsTable;
  acquirer_refunds: AcquirerRefundsTable;
  webhook_events: WebhookEventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  payment_methods: PaymentMethodsTable;
  card_links: CardLinksTable;
  wallet_sessions: WalletSessionsTable;
  mail_jobs: MailJobsTable;
  mail_attempts: MailAttemptsTable;
  bank_accounts: BankAccountsTable;
  payouts: PayoutsTable;
  balance_transactions: BalanceTransactionsTable;
  ledger_postings: LedgerPostingsTable;
  ledger_lines: LedgerLinesTable;
  payout_items: PayoutItemsTable;
  test_clocks: TestClocksTable;
  disputes: DisputesTable;
  payout_schedules: PayoutSchedulesTable;
  subscriptions: SubscriptionsTable;
  subscription_due_dates: SubscriptionDueDatesTable;
  invoices: InvoicesTable;
  invoice_payments: InvoicePaymentsTable;
  credit_notes: CreditNotesTable;
  billing_sequences: BillingSequencesTable;
  users: UsersTable;
  user_sessions: UserSessionsTable;
  audit_log: AuditLogTable;
}
