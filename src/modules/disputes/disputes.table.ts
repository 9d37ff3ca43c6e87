import type { Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

export type DisputeKind = 'chargeback' | 'inquiry';

/** Chargeback: needs_response → under_review → won | lost (or lost at once: accepted, or no evidence in time).
 *  Inquiry: warning_needs_response → warning_under_review → warning_closed. */
export type DisputeStatus = 'needs_response' | 'under_review' | 'won' | 'lost' | 'warning_needs_response' | 'warning_under_review' | 'warning_closed';

export const DISPUTE_REASONS = [
  'fraudulent', 'duplicate', 'product_not_received', 'product_unacceptable', 'subscription_canceled', 'credit_not_processed',
  'unrecognized', 'general',
] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

export const EVIDENCE_FIELDS = ['productDescription', 'customerCommunication', 'refundPolicy', 'shippingTracking', 'uncategorizedText'] as const;
export type Evidence = Partial<Record<(typeof EVIDENCE_FIELDS)[number], string>>;

export interface DisputesTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  store_id: string | null;
  payment_id: string;
  kind: DisputeKind;
  reason: string;
  amount: number;
  currency: string;
  amount_eur: number;
  status: DisputeStatus;
  /** JSON text of Evidence. */
  evidence: string | null;
  evidence_submitted_at: string | null;
  evidence_due_by: string;
  test_outcome: 'won' | 'lost' | null;
  test_outcome_at: string | null;
  acquirer_notice: string | null;
  test_clock_id: string | null;
  created_at: string;
  closed_at: string | null;
  updated_at: string;
}

export type DisputeRow = Selectable<DisputesTable>;
