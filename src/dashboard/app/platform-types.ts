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

/** A platform's seller: a merchant it onboarded, linked to it (its state, its balance in this mode). */
export type Seller = ListItem<'listPlatformMerchants'>;

/** An onboarding session: the hosted form's link a future seller fills in. */
export type OnboardingSession = ListItem<'listOnboardingSessions'>;

/** An onboarding case: what a session submitted, and its review. */
export type OnboardingCase = ListItem<'listOnboardingCases'>;

/** A split payment's distribution as GET /api/v1/payments/{id} answers it: each seller's share, then the platform's. */
export type DistributionEntry = NonNullable<Payment['platformDistribution']>[number];
export type PlatformShare = Extract<DistributionEntry, { role: 'platform' }>;
export type SellerShare = Exclude<DistributionEntry, PlatformShare>;
export type CommissionLine = SellerShare['detailedCommission'][number];
