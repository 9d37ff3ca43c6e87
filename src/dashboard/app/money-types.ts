// The shapes the money pages read (home, customers, balance, payouts, disputes, subscriptions, invoices): the merchant
// API's schemas as the OpenAPI document describes them, through the types generated for `@motu/node`
// (packages/node/src/generated/openapi.ts), so a change of a route's schema reaches these pages through the compiler.
// Only what /api/v1 does not describe (the home page's figures, read from /dashboard/api) is written here.
import type { components } from '../../../packages/node/src/generated/openapi.js';
import type { ResponseBody } from '../../../packages/node/src/types.js';
import type { Payment } from './types.js';

type Schemas = components['schemas'];

export type Balance = Schemas['Balance'];

export interface VolumeDay { day: string; count: number; amountEur: number }

export interface Home { balance: Balance; volume: VolumeDay[]; recentPayments: Payment[] }

export type BalanceTransaction = Schemas['BalanceTransaction'];

export const TRANSACTION_TYPES = [
  'payment', 'payment_fee', 'refund', 'refund_fee', 'dispute', 'dispute_fee', 'dispute_reversal', 'payout', 'payout_failure', 'adjustment',
  'platform_share', 'platform_commission',
] as const satisfies ReadonlyArray<BalanceTransaction['type']>;

export type Customer = Schemas['Customer'];

export type PaymentMethod = Schemas['PaymentMethod'];

export type CardLink = Schemas['CardLink'];

export type Subscription = Schemas['Subscription'];
export type SubscriptionStatus = Subscription['status'];
export const SUBSCRIPTION_STATUSES: SubscriptionStatus[] = ['waiting_mandate', 'active', 'past_due', 'cancelled', 'ended'];

export type DueDate = Schemas['DueDate'];

export type Invoice = Schemas['Invoice'];
export type InvoiceStatus = Invoice['status'];
export const INVOICE_STATUSES: InvoiceStatus[] = ['draft', 'open', 'partially_paid', 'paid', 'disputed', 'credited', 'uncollectible'];
export type InvoiceLine = Invoice['lines'][number];
/** What Send answers: the invoice and its hosted page's address. */
export type InvoiceSent = ResponseBody<'/api/v1/billing/invoices/{id}/send', 'post'>;

export type CreditNote = Schemas['CreditNote'];

export type Payout = Schemas['Payout'];
export type PayoutStatus = Payout['status'];

export type BankAccount = Schemas['BankAccount'];

export type Dispute = Schemas['Dispute'];
export const DISPUTE_STATUSES = [
  'needs_response', 'under_review', 'won', 'lost', 'warning_needs_response', 'warning_under_review', 'warning_closed',
] as const satisfies ReadonlyArray<Dispute['status']>;
export const EVIDENCE_FIELDS = [
  'productDescription', 'customerCommunication', 'refundPolicy', 'shippingTracking', 'uncategorizedText',
] as const satisfies ReadonlyArray<keyof Dispute['evidence']>;
export type EvidenceField = (typeof EVIDENCE_FIELDS)[number];

/** A dispute the merchant can still answer (evidence or accept). */
export function disputeOpen(dispute: Dispute): boolean {
  return dispute.status === 'needs_response' || dispute.status === 'warning_needs_response';
}
