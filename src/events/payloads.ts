// Every event type Motu emits and the shape of its `data`, in one place (docs/webhooks.md, docs/payments.md).
// Producers build `data` with the function named after the event (payloads.paymentAuthorized(…), …) and hand
// the result to recordEvent(trx, {…, ...built}). The compiler checks each type gets its own payload shape.

export interface StoreRef {
  id: string;
  code: string;
  name: string;
}

// ---------- settlement block (authorized, captured, settled, refunded, partially_refunded, cancelled) ----------

export interface FeeTax {
  id: string;
  type: string;
  value: number;
  amount: number;
  amountEur: number;
}

/** A full line (PERCENTAGE) or a simple line carrying only id, label and the totals. */
export interface FeeLine {
  id: string;
  label: string;
  type?: string;
  rate?: number;
  amount?: number;
  amountEur?: number;
  taxAmount?: number;
  taxAmountEur?: number;
  taxes?: FeeTax[];
  totalAmount: number;
  totalAmountEur: number;
}

export interface Settlement {
  capturedAmount: number;
  mobupayCommission: number;
  netAmount: number;
  /** The payment's original currency. */
  currency: string;
  settled: boolean;
  detailedFees: FeeLine[];
}

// ---------- split payments (docs/platforms.md) ----------

/** A seller's part of a split payment (minor units of `currency`, the order's). */
export interface PlatformSellerShare {
  merchantId: string;
  /** The seller's amount (its captured share once captured). */
  amount: number;
  /** Funded by the platform: the seller still gets its whole amount. */
  discount: number;
  commission: number;
  /** amount − commission. */
  netAmount: number;
  currency: string;
  /** What refunds took from the seller so far, and the commission they gave back. */
  refundedAmount: number;
  refundedCommission: number;
  /** platform_commission (PERCENTAGE) and platform_fixed_fee, shaped like the settlement block's lines, no tax. */
  detailedCommission: FeeLine[];
}

/** The platform's part: commissions − discounts − financing − fees (Motu's, the settlement block's commission). */
export interface PlatformOwnShare {
  role: 'platform';
  merchantId: string;
  commission: number;
  discounts: number;
  financing: number;
  fees: number;
  netAmount: number;
  currency: string;
  /** Commission given back to the sellers by refunds so far. */
  refundedCommission: number;
}

export type PlatformDistributionEntry = PlatformSellerShare | PlatformOwnShare;

/** What one refund of a split payment took from a seller, and the commission it gave back. */
export interface RefundShare {
  merchantId: string;
  /** Taken from that seller by this refund. */
  amount: number;
  /** The commission this refund gave back to that seller. */
  commission: number;
}

// ---------- payment events ----------

/** Fields every payment event's data carries (the existing integrations read them). */
export interface PaymentBase {
  paymentId: string;
  status: string;
  /** The payment's `SPR-…` reference. */
  reference: string;
  /** The merchant's own order reference. */
  order: { reference: string | null };
  externalId: string | null;
  /** EUR cents. */
  amount: number;
  currency: 'EUR';
  store: StoreRef | null;
  customerId?: string | null;
  privateData?: Record<string, unknown> | null;
  /** A split payment only: each seller's part, then the platform's. */
  platformDistribution?: PlatformDistributionEntry[];
}

export interface PaymentAuthorizedData extends PaymentBase {
  status: 'transit';
  customerId: string | null;
  customerCreated: boolean;
  paymentMethodId: string | null;
  cardBrand: string | null;
  cardLast4: string | null;
  grossAmount: number;
  originalCurrency: string;
  settlement: Settlement;
}
export interface PaymentCapturedData extends PaymentBase {
  grossAmount: number;
  originalCurrency: string;
  settlement: Settlement;
}
export interface PaymentSettledData extends PaymentBase {
  settlement?: Settlement;
}
export interface PaymentFailedData extends PaymentBase {
  refusalCode: string;
  refusalMessage?: string | null;
}
export type PaymentExpiredData = PaymentBase;
export interface PaymentRefundData extends PaymentBase {
  refundId: string;
  refundOriginalAmount: number;
  totalRefundedOriginalAmount: number;
  remainingOriginalAmount: number;
  originalCurrency: string;
  settlement: Settlement;
  /** A split payment only: what this refund took from each seller. */
  refundDistribution?: RefundShare[];
}
export interface PaymentCancelledData extends PaymentBase {
  cancelledBy: 'porteur' | 'merchant_api';
  settlement: Settlement;
}

// ---------- invoicing: identifiers, status, amounts, amount remaining due; never lines nor customer identity ----------

/** Never the lines nor the customer's identity. */
export interface InvoiceData {
  invoiceId: string;
  number: string | null;
  status: string;
  currency: string;
  total: number;
  amountPaid: number;
  amountRemaining: number;
  dueDate: string | null;
  subscriptionId?: string;
}

/** A card payment (or a chargeback won) brought the invoice money it no longer owed: that is refunded at once. */
export interface InvoiceOverpaymentData extends InvoiceData {
  paymentId: string;
  refundId: string;
  refundAmount: number;
}

// ---------- subscriptions ----------

export interface SubscriptionData {
  subscriptionId: string;
  status: string;
  customerId: string | null;
}
export interface SubscriptionCreatedData extends SubscriptionData {
  amount: number;
  currency: string;
  interval: string;
  intervalCount: number;
  nextDueDate: string | null;
}
export interface SubscriptionPaymentData {
  subscriptionId: string;
  dueDate: string;
  paymentId: string;
  amount: number;
  currency: string;
  /** Counted from 1. */
  attempt: number;
  refusalCode?: string | null;
  /** payment_failed: when the next attempt is, null when none is left. */
  nextAttemptAt?: string | null;
}
export interface SubscriptionPastDueData {
  subscriptionId: string;
  dueDate: string;
  paymentId: string;
  amountDue: number;
}
export interface SubscriptionMandateData {
  subscriptionId: string;
  paymentMethodId: string | null;
  reason: string;
}

// ---------- account: the full object as known to the merchant ----------

/** The customer as `GET /api/v1/customers/{id}` answers it. */
export interface CustomerData {
  id: string;
  /** The customer's email, as given (unique per merchant and mode, compared without case). */
  email: string | null;
  /** The merchant's own reference of the customer. */
  externalId: string | null;
  name: string | null;
  /** The phone number, as given. */
  phone: string | null;
  /** The postal address as the merchant or the payment gave it. */
  address: Record<string, unknown> | null;
  /** The merchant's free JSON, returned as is. */
  metadata: Record<string, unknown> | null;
  /** Test mode: the test clock the customer follows; null otherwise. */
  testClockId: string | null;
  /** When the customer was created (ISO 8601). */
  createdAt: string;
  /** When it last changed (ISO 8601). */
  updatedAt: string;
}
export interface CustomerUpdatedData extends CustomerData {
  /** What changed: email, externalId, name, phone, address, metadata. */
  updatedFields: string[];
}
export interface PaymentMethodData {
  id: string;
  customerId: string;
  cardBrand: string | null;
  cardLast4: string | null;
  [extra: string]: unknown;
}
export type PaymentMethodRemovedData = PaymentMethodData & { reason: 'deleted' | 'disabled' | 'unknown_at_acquirer' };
/** Never the recipient's bank details: only recipientId. */
export interface PayoutData {
  payoutId: string;
  recipientId: string;
  amount: number;
  currency: string;
  status: string;
  automatic: boolean;
  arrivalDate: string;
}
export type PayoutFailedData = PayoutData & { failureReason: string };
/** Never the raw data received from the bank partner. */
/** Never the bank partner's raw data, never a store. */
export interface DisputeData {
  disputeId: string;
  paymentId: string;
  kind: 'chargeback' | 'inquiry';
  reason: string;
  amount: number;
  currency: string;
  status: string;
  evidenceDueBy: string;
}
export type DisputeUpdatedData = DisputeData & { previousStatus: string };

// ---------- platform (marketplaces) and agency ----------

/** An onboarding session of a platform (merchant.session.*). */
export interface MerchantSessionData {
  sessionId: string;
  /** The address the platform gave the business. */
  email: string;
  status: 'open' | 'completed' | 'expired' | 'cancelled';
  /** When the session's link stops working. */
  expiresAt: string;
  /** The onboarding case the session corrects, when it corrects one. */
  caseId?: string;
}
/** An onboarding case's enrollment status changed (merchant.onboarding.updated). */
export interface MerchantOnboardingData {
  /** The onboarding case (obc_…). */
  caseId: string;
  enrollmentStatus: 'SUBMITTED' | 'IN_REVIEW' | 'APPROVED' | 'CORRECTION_REQUESTED' | 'REFUSED';
  /** null when the case was just submitted for the first time. */
  previousStatus: 'SUBMITTED' | 'IN_REVIEW' | 'APPROVED' | 'CORRECTION_REQUESTED' | 'REFUSED' | null;
  /** Why corrections are asked or the case is refused. */
  reasons?: string[];
}
/** A seller of the platform (merchant.created, .opened, .linked, .unlinked). */
export interface MerchantPlatformData {
  /** The seller. */
  merchantId: string;
  /** The platform. */
  platformId: string;
  /** The onboarding case that made the seller. */
  caseId?: string;
}
export interface MerchantRejectedData {
  /** The onboarding case (obc_…). */
  caseId: string;
  enrollmentStatus: 'CORRECTION_REQUESTED' | 'REFUSED';
  /** Why corrections are asked or the case is refused. */
  reasons: string[];
}
/** An agency's invitation (`agency.invitation.*`): sent to the agency. */
export interface AgencyInvitationData {
  invitationId: string;
  agencyId: string;
  /** Who the invitation was addressed to. */
  email: string;
  scopes: string[];
  status: 'pending' | 'accepted' | 'cancelled' | 'expired';
  /** When the invitation expires if nobody accepts it. */
  expiresAt: string;
}
/** A new business onboarding through an agency's invitation (`agency.client.onboarding.updated`). */
export interface AgencyClientOnboardingData {
  invitationId: string;
  agencyId: string;
  /** The new business's onboarding case. */
  caseId: string;
  enrollmentStatus: 'SUBMITTED' | 'IN_REVIEW' | 'APPROVED' | 'CORRECTION_REQUESTED' | 'REFUSED';
  /** The status before this change (null: the case was just created). */
  previousStatus: 'SUBMITTED' | 'IN_REVIEW' | 'APPROVED' | 'CORRECTION_REQUESTED' | 'REFUSED' | null;
  /** The reasons of a CORRECTION_REQUESTED or REFUSED decision. */
  reasons?: string[];
}
/** The account of a client onboarded through an agency's invitation can collect (`agency.client.opened`). */
export interface AgencyClientOpenedData {
  invitationId: string;
  agencyId: string;
  merchantId: string;
  /** The onboarding case that opened it. */
  caseId?: string;
}
/** A mandate given to an agency (`agency.mandate.created`, `agency.mandate.revoked`). */
export interface AgencyMandateData {
  mandateId: string;
  agencyId: string;
  /** The client (mer_…). */
  merchantId: string;
  scopes: string[];
  /** The invitation it came from (created only). */
  invitationId?: string | null;
  /** Who revoked it (revoked only). */
  revokedBy?: 'client' | 'agency';
}
/** A mandate's scopes changed (`change: "scopes"`) or moved to another agency (`change: "ownership_transferred"`). */
export type AgencyMandateUpdatedData =
  | { mandateId: string; agencyId: string; merchantId: string; change: 'scopes'; scopes: string[]; previousScopes: string[] }
  | { mandateId: string; agencyId: string; merchantId: string; change: 'ownership_transferred'; previousAgencyId: string; scopes: string[] };

/** Every event type and its payload. */
export interface EventDataMap {
  'payment.authorized': PaymentAuthorizedData;
  'payment.captured': PaymentCapturedData;
  'payment.settled': PaymentSettledData;
  'payment.failed': PaymentFailedData;
  'payment.expired': PaymentExpiredData;
  'payment.refunded': PaymentRefundData;
  'payment.partially_refunded': PaymentRefundData;
  'payment.cancelled': PaymentCancelledData;
  'invoice.issued': InvoiceData;
  'invoice.sent': InvoiceData;
  'invoice.paid': InvoiceData;
  'invoice.partially_paid': InvoiceData;
  'invoice.overdue': InvoiceData;
  'invoice.disputed': InvoiceData;
  'invoice.credited': InvoiceData;
  'invoice.uncollectible': InvoiceData;
  'invoice.overpayment_refunded': InvoiceOverpaymentData;
  'subscription.created': SubscriptionCreatedData;
  'subscription.payment_succeeded': SubscriptionPaymentData;
  'subscription.payment_failed': SubscriptionPaymentData;
  'subscription.past_due': SubscriptionPastDueData;
  'subscription.mandate_revoked': SubscriptionMandateData;
  'subscription.mandate_restored': SubscriptionMandateData;
  'subscription.cancelled': SubscriptionData;
  'customer.created': CustomerData;
  'customer.updated': CustomerUpdatedData;
  'payment_method.added': PaymentMethodData;
  'payment_method.removed': PaymentMethodRemovedData;
  'payout.created': PayoutData;
  'payout.completed': PayoutData;
  'payout.failed': PayoutFailedData;
  'dispute.created': DisputeData;
  'dispute.updated': DisputeUpdatedData;
  'merchant.session.created': MerchantSessionData;
  'merchant.session.expired': MerchantSessionData;
  'merchant.session.cancelled': MerchantSessionData;
  'merchant.onboarding.updated': MerchantOnboardingData;
  'merchant.created': MerchantPlatformData;
  'merchant.opened': MerchantPlatformData;
  'merchant.rejected': MerchantRejectedData;
  'merchant.linked': MerchantPlatformData;
  'merchant.unlinked': MerchantPlatformData;
  'agency.invitation.created': AgencyInvitationData;
  'agency.invitation.expired': AgencyInvitationData;
  'agency.invitation.cancelled': AgencyInvitationData;
  'agency.client.onboarding.updated': AgencyClientOnboardingData;
  'agency.client.opened': AgencyClientOpenedData;
  'agency.mandate.created': AgencyMandateData;
  'agency.mandate.updated': AgencyMandateUpdatedData;
  'agency.mandate.revoked': AgencyMandateData;
}

export type EventType = keyof EventDataMap;

/** `{type, data}` ready to spread into recordEvent. */
export interface BuiltEvent<T extends EventType = EventType> {
  type: T;
  data: EventDataMap[T];
}

const ALL: Record<EventType, true> = {
  'payment.authorized': true, 'payment.captured': true, 'payment.settled': true, 'payment.failed': true,
  'payment.expired': true, 'payment.refunded': true, 'payment.partially_refunded': true, 'payment.cancelled': true,
  'invoice.issued': true, 'invoice.sent': true, 'invoice.paid': true, 'invoice.partially_paid': true,
  'invoice.overdue': true, 'invoice.disputed': true, 'invoice.credited': true, 'invoice.uncollectible': true,
  'invoice.overpayment_refunded': true,
  'subscription.created': true, 'subscription.payment_succeeded': true, 'subscription.payment_failed': true,
  'subscription.past_due': true, 'subscription.mandate_revoked': true, 'subscription.mandate_restored': true,
  'subscription.cancelled': true, 'customer.created': true, 'customer.updated': true, 'payment_method.added': true,
  'payment_method.removed': true, 'payout.created': true, 'payout.completed': true, 'payout.failed': true,
  'dispute.created': true, 'dispute.updated': true, 'merchant.session.created': true, 'merchant.session.expired': true,
  'merchant.session.cancelled': true, 'merchant.onboarding.updated': true, 'merchant.created': true,
  'merchant.opened': true, 'merchant.rejected': true, 'merchant.linked': true, 'merchant.unlinked': true,
  'agency.invitation.created': true, 'agency.invitation.expired': true, 'agency.invitation.cancelled': true,
  'agency.client.onboarding.updated': true, 'agency.client.opened': true, 'agency.mandate.created': true,
  'agency.mandate.updated': true, 'agency.mandate.revoked': true,
};

/** Every event type, for validation of endpoint filters and the events list. */
export const EVENT_TYPES = Object.keys(ALL) as EventType[];

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(ALL, value);
}

function build<T extends EventType>(type: T) {
  return (data: EventDataMap[T]): BuiltEvent<T> => ({ type, data });
}

/** One builder per event type. */
export const payloads = {
  paymentAuthorized: build('payment.authorized'),
  paymentCaptured: build('payment.captured'),
  paymentSettled: build('payment.settled'),
  paymentFailed: build('payment.failed'),
  paymentExpired: build('payment.expired'),
  paymentRefunded: build('payment.refunded'),
  paymentPartiallyRefunded: build('payment.partially_refunded'),
  paymentCancelled: build('payment.cancelled'),
  invoiceIssued: build('invoice.issued'),
  invoiceSent: build('invoice.sent'),
  invoicePaid: build('invoice.paid'),
  invoicePartiallyPaid: build('invoice.partially_paid'),
  invoiceOverdue: build('invoice.overdue'),
  invoiceDisputed: build('invoice.disputed'),
  invoiceCredited: build('invoice.credited'),
  invoiceUncollectible: build('invoice.uncollectible'),
  invoiceOverpaymentRefunded: build('invoice.overpayment_refunded'),
  subscriptionCreated: build('subscription.created'),
  subscriptionPaymentSucceeded: build('subscription.payment_succeeded'),
  subscriptionPaymentFailed: build('subscription.payment_failed'),
  subscriptionPastDue: build('subscription.past_due'),
  subscriptionMandateRevoked: build('subscription.mandate_revoked'),
  subscriptionMandateRestored: build('subscription.mandate_restored'),
  subscriptionCancelled: build('subscription.cancelled'),
  customerCreated: build('customer.created'),
  customerUpdated: build('customer.updated'),
  paymentMethodAdded: build('payment_method.added'),
  paymentMethodRemoved: build('payment_method.removed'),
  payoutCreated: build('payout.created'),
  payoutCompleted: build('payout.completed'),
  payoutFailed: build('payout.failed'),
  disputeCreated: build('dispute.created'),
  disputeUpdated: build('dispute.updated'),
  merchantSessionCreated: build('merchant.session.created'),
  merchantSessionExpired: build('merchant.session.expired'),
  merchantSessionCancelled: build('merchant.session.cancelled'),
  merchantOnboardingUpdated: build('merchant.onboarding.updated'),
  merchantCreated: build('merchant.created'),
  merchantOpened: build('merchant.opened'),
  merchantRejected: build('merchant.rejected'),
  merchantLinked: build('merchant.linked'),
  merchantUnlinked: build('merchant.unlinked'),
  agencyInvitationCreated: build('agency.invitation.created'),
  agencyInvitationExpired: build('agency.invitation.expired'),
  agencyInvitationCancelled: build('agency.invitation.cancelled'),
  agencyClientOnboardingUpdated: build('agency.client.onboarding.updated'),
  agencyClientOpened: build('agency.client.opened'),
  agencyMandateCreated: build('agency.mandate.created'),
  agencyMandateUpdated: build('agency.mandate.updated'),
  agencyMandateRevoked: build('agency.mandate.revoked'),
} as const;

/** `payment.*` and `refund.*` events also go to the payment's notificationUrl. */
export function goesToNotificationUrl(type: string): boolean {
  return type.startsWith('payment.') || type.startsWith('refund.') || type.startsWith('dispute.');
}

/** Does an endpoint filter list (`["*"]`, `["payment.*", "customer.created"]`) accept this type? */
export function filterMatches(filters: readonly string[], type: string): boolean {
  return filters.some((f) => f === '*' || f === type || (f.endsWith('.*') && type.startsWith(f.slice(0, -1))));
}
