// `new Motu(secretKey, { baseUrl })`: one object per key, its resources named after the API's.
import { MotuClient, type MotuOptions } from './client.js';
import { BillingSettings, CreditNotes, Invoices, Subscriptions } from './resources/billing.js';
import { CardLinks, Customers, PaymentMethods, WalletSessions } from './resources/customers.js';
import { BalanceResource, BalanceTransactions, BankAccounts, Disputes, PayoutScheduleResource, Payouts } from './resources/money.js';
import { PaymentLinks, PaymentSessions, Payments, Refunds } from './resources/payments.js';
import { TestHelpers } from './resources/test-helpers.js';
import { AgencyWebhooks, Events, WebhookEndpoints, WebhookSigningSecret } from './resources/webhooks.js';

export class Motu {
  /** The HTTP core: `motu.client.request('get', '/api/v1/…', …)` reaches any operation of the document. */
  readonly client: MotuClient;

  readonly paymentSessions: PaymentSessions;
  readonly paymentLinks: PaymentLinks;
  readonly payments: Payments;
  readonly refunds: Refunds;
  readonly customers: Customers;
  readonly paymentMethods: PaymentMethods;
  readonly walletSessions: WalletSessions;
  readonly cardLinks: CardLinks;
  readonly events: Events;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly webhookSigningSecret: WebhookSigningSecret;
  readonly agencyWebhooks: AgencyWebhooks;
  readonly balance: BalanceResource;
  readonly balanceTransactions: BalanceTransactions;
  readonly bankAccounts: BankAccounts;
  readonly payoutSchedule: PayoutScheduleResource;
  readonly payouts: Payouts;
  readonly disputes: Disputes;
  readonly subscriptions: Subscriptions;
  readonly invoices: Invoices;
  readonly creditNotes: CreditNotes;
  readonly billingSettings: BillingSettings;
  readonly testHelpers: TestHelpers;

  constructor(secretKey: string, options: MotuOptions) {
    const client = new MotuClient(secretKey, options);
    this.client = client;
    this.paymentSessions = new PaymentSessions(client);
    this.paymentLinks = new PaymentLinks(client);
    this.payments = new Payments(client);
    this.refunds = new Refunds(client);
    this.customers = new Customers(client);
    this.paymentMethods = new PaymentMethods(client);
    this.walletSessions = new WalletSessions(client);
    this.cardLinks = new CardLinks(client);
    this.events = new Events(client);
    this.webhookEndpoints = new WebhookEndpoints(client);
    this.webhookSigningSecret = new WebhookSigningSecret(client);
    this.agencyWebhooks = new AgencyWebhooks(client);
    this.balance = new BalanceResource(client);
    this.balanceTransactions = new BalanceTransactions(client);
    this.bankAccounts = new BankAccounts(client);
    this.payoutSchedule = new PayoutScheduleResource(client);
    this.payouts = new Payouts(client);
    this.disputes = new Disputes(client);
    this.subscriptions = new Subscriptions(client);
    this.invoices = new Invoices(client);
    this.creditNotes = new CreditNotes(client);
    this.billingSettings = new BillingSettings(client);
    this.testHelpers = new TestHelpers(client);
  }
}
