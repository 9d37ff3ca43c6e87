// `new Motu(secretKey, { baseUrl })`: one object per key, its resources named after the API's.
import { MotuClient, type MotuOptions } from './client.js';
import { BillingSettings, CreditNotes, Invoices, Subscriptions } from './resources/billing.js';
import { CardLinks, Customers, PaymentMethods, WalletSessions } from './resources/customers.js';
import { BalanceResource, BalanceTransactions, BankAccounts, Disputes, PayoutScheduleResource, Payouts } from './resources/money.js';
import { PaymentLinks, PaymentSessions, Payments, Refunds } from './resources/payments.js';
import { Agency, AgencyInvitationAcceptance, AgencyMandates } from './resources/agency.js';
import { Platform } from './resources/platform.js';
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
  /** A platform's sellers and their onboarding (a platform's key). */
  readonly platform: Platform;
  /** An agency's invitations and the mandates it holds (an agency's key). */
  readonly agency: Agency;
  /** A client accepting an agency's invitation. */
  readonly agencyInvitations: AgencyInvitationAcceptance;
  /** The mandates given on the client's account: list, change, transfer, revoke. */
  readonly agencyMandates: AgencyMandates;

  readonly #secretKey: string;
  readonly #options: MotuOptions;

  constructor(secretKey: string, options: MotuOptions) {
    const client = new MotuClient(secretKey, options);
    this.client = client;
    this.#secretKey = secretKey;
    this.#options = options;
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
    this.platform = new Platform(client);
    this.agency = new Agency(client);
    this.agencyInvitations = new AgencyInvitationAcceptance(client);
    this.agencyMandates = new AgencyMandates(client);
  }

  /**
   * The same key acting for a client under the agency's mandate: every call sends `Motu-Account: <merchantId>`.
   * A scope the mandate lacks is a MotuPermissionError (`PERMISSION_DENIED`, `details.scope`), a revoked mandate one
   * with `MANDATE_REVOKED`, no mandate a MotuNotFoundError.
   */
  withAccount(merchantId: string): Motu {
    if (typeof merchantId !== 'string' || !/^mer_\S+$/.test(merchantId)) throw new TypeError("withAccount(merchantId): a merchant id starts with mer_");
    return new Motu(this.#secretKey, { ...this.#options, headers: { ...this.#options.headers, 'motu-account': merchantId } });
  }
}
