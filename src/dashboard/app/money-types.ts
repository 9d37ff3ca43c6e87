// The shapes the money pages read (home, customers, balance, payouts, disputes, subscriptions, invoices), from the
// /api/v1 routes' schemas (src/modules/*/*.routes.ts). Only the fields the pages use are named.
import type { Payment } from './types.js';

export interface CurrencyAmount { currency: string; amount: number }

export interface Balance { available: CurrencyAmount[]; pending: CurrencyAmount[] }

export interface VolumeDay { day: string; count: number; amountEur: number }

export interface Home { balance: Balance; volume: VolumeDay[]; recentPayments: Payment[] }

export const TRANSACTION_TYPES = [
  'payment', 'payment_fee', 'refund', 'refund_fee', 'dispute', 'dispute_fee', 'dispute_reversal', 'payout', 'payout_failure', 'adjustment',
] as const;

export interface BalanceTransaction {
  id: string;
  type: string;
  amount: number;
  currency: string;
  amountEur: number;
  status: 'pending' | 'available';
  availableOn: string;
  source: { type: string; id: string };
  payoutId: string | null;
  description: string | null;
  createdAt: string;
}

export interface Customer {
  id: string;
  email: string | null;
  externalId: string | null;
  name: string | null;
  phone: string | null;
  createdAt: string;
  testClockId: string | null;
}

export interface PaymentMethod {
  id: string;
  customerId: string;
  brand: string;
  network: string;
  last4: string;
  expMonth: number;
  expYear: number;
  status: 'active' | 'removed';
  removedReason: string | null;
  createdAt: string;
}

export interface CardLink {
  id: string;
  url: string;
  status: string;
  emailStatus: string;
  expiresAt: string;
}

export type SubscriptionStatus = 'waiting_mandate' | 'active' | 'past_due' | 'cancelled' | 'ended';
export const SUBSCRIPTION_STATUSES: SubscriptionStatus[] = ['waiting_mandate', 'active', 'past_due', 'cancelled', 'ended'];

export interface Subscription {
  id: string;
  customerId: string;
  paymentMethodId: string | null;
  status: SubscriptionStatus;
  amount: number;
  currency: string;
  interval: 'day' | 'week' | 'month' | 'year';
  intervalCount: number;
  startDate: string;
  nextDueDate: string | null;
  cancelAt: string | null;
  cancelledAt: string | null;
  endAfter: number | null;
  dueDatesOpened: number;
  description: string | null;
  createdAt: string;
}

export interface DueDate {
  dueDate: string;
  status: 'scheduled' | 'paid' | 'retrying' | 'unpaid' | 'skipped';
  attempts: Array<{ at: string; paymentId: string; outcome: string; refusalCode: string | null }>;
  nextAttemptAt: string | null;
  invoiceId: string | null;
}

export type InvoiceStatus = 'draft' | 'open' | 'partially_paid' | 'paid' | 'disputed' | 'credited' | 'uncollectible';
export const INVOICE_STATUSES: InvoiceStatus[] = ['draft', 'open', 'partially_paid', 'paid', 'disputed', 'credited', 'uncollectible'];

export interface InvoiceLine { description: string; quantity: number; unitPrice: number; taxRate: number; amount: number }

export interface Invoice {
  id: string;
  number: string | null;
  status: InvoiceStatus;
  customerId: string;
  subscriptionId: string | null;
  currency: string;
  lines: InvoiceLine[];
  memo: string | null;
  subtotal: number;
  taxes: Array<{ rate: number; base: number; amount: number }>;
  total: number;
  amountPaid: number;
  amountCredited: number;
  amountRemaining: number;
  dueDate: string | null;
  overdue: boolean;
  finalizedAt: string | null;
  sentAt: string | null;
  paidAt: string | null;
  createdAt: string;
  url?: string;
}

export interface CreditNote { id: string; invoiceId: string; number: string; amount: number; reason: string; refund: boolean; createdAt: string }

export type PayoutStatus = 'pending' | 'in_transit' | 'paid' | 'failed' | 'cancelled';

export interface Payout {
  id: string;
  amount: number;
  currency: string;
  status: PayoutStatus;
  automatic: boolean;
  bankAccountId: string;
  arrivalDate: string;
  description: string | null;
  failureReason: string | null;
  failureMessage: string | null;
  createdAt: string;
}

export interface BankAccount {
  id: string;
  country: string;
  last4: string;
  currency: string;
  holderName: string;
  bic: string | null;
  status: 'new' | 'errored';
  default: boolean;
  createdAt: string;
}

export const DISPUTE_STATUSES = ['needs_response', 'under_review', 'won', 'lost', 'warning_needs_response', 'warning_under_review', 'warning_closed'] as const;
export const EVIDENCE_FIELDS = ['productDescription', 'customerCommunication', 'refundPolicy', 'shippingTracking', 'uncategorizedText'] as const;
export type EvidenceField = (typeof EVIDENCE_FIELDS)[number];

export interface Dispute {
  id: string;
  paymentId: string;
  kind: 'chargeback' | 'inquiry';
  reason: string;
  amount: number;
  currency: string;
  amountEur: number;
  status: (typeof DISPUTE_STATUSES)[number];
  evidenceDueBy: string;
  evidence: Partial<Record<EvidenceField, string>>;
  evidenceSubmittedAt: string | null;
  createdAt: string;
  closedAt: string | null;
}

/** A dispute the merchant can still answer (evidence or accept). */
export function disputeOpen(dispute: Dispute): boolean {
  return dispute.status === 'needs_response' || dispute.status === 'warning_needs_response';
}
