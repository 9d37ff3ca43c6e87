// The shapes of the marketplace and agency routes the pages read (docs/platforms.md, docs/agencies.md), written after
// the API reference until their schemas reach the generated types.

export { SCOPES, type Scope } from '../../modules/agencies/scopes.js';
import type { Scope } from '../../modules/agencies/scopes.js';
import type { Payment } from './types.js';
import type { operations } from '../../../packages/node/src/generated/openapi.js';

/** An item of a list route's answer, from the generated types (the route's operation id). */
type ListItem<Op extends keyof operations> = operations[Op] extends { responses: { 200: { content: { 'application/json': { data: Array<infer T> } } } } } ? T : never;

export type EnrollmentStatus = 'SUBMITTED' | 'IN_REVIEW' | 'APPROVED' | 'CORRECTION_REQUESTED' | 'REFUSED';

export interface AmountByCurrency { amount: number; currency: string }


/** A mandate: an agency managing a client's account (the agency's portfolio, the client's agencies). */
export type Mandate = Omit<ListItem<'listAgencyPortfolio'>, 'scopes'> & { scopes: Scope[] };

/** An agency's invitation: the link a client opens to give it a mandate. */
export type Invitation = Omit<ListItem<'listAgencyInvitations'>, 'scopes'> & { scopes: Scope[] };

/** A platform's seller: a merchant it onboarded, linked to it. */
export interface Seller {
  id: string;
  name: string;
  /** When its payment account was opened (it can collect); null: not yet. */
  openedAt: string | null;
  linkedAt: string;
  unlinkedAt: string | null;
  caseId?: string | null;
  enrollmentStatus?: EnrollmentStatus | null;
  balance?: { available: AmountByCurrency[]; pending: AmountByCurrency[] };
}

export interface OnboardingSession {
  id: string;
  email: string;
  businessName?: string | null;
  status: 'open' | 'completed' | 'expired' | 'cancelled';
  url?: string;
  returnUrl?: string;
  caseId?: string | null;
  expiresAt: string;
  createdAt: string;
}

export interface OnboardingCase {
  id: string;
  enrollmentStatus: EnrollmentStatus;
  legalName?: string | null;
  email?: string | null;
  reasons?: string[] | null;
  merchantId?: string | null;
  createdAt: string;
  updatedAt?: string;
}

/** A split payment's distribution as GET /api/v1/payments/{id} answers it: each seller's share, then the platform's. */
export type DistributionEntry = NonNullable<Payment['platformDistribution']>[number];
export type PlatformShare = Extract<DistributionEntry, { role: 'platform' }>;
export type SellerShare = Exclude<DistributionEntry, PlatformShare>;
export type CommissionLine = SellerShare['detailedCommission'][number];
