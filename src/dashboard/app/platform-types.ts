// The shapes of the marketplace and agency routes the pages read (docs/platforms.md, docs/agencies.md), written after
// the API reference until their schemas reach the generated types.

export type Scope =
  | 'payments.read' | 'payments.write' | 'refunds.write' | 'customers.read' | 'customers.write'
  | 'subscriptions.write' | 'invoices.write' | 'webhooks.manage' | 'balance.read' | 'payouts.write';

export const SCOPES: Scope[] = [
  'payments.read', 'payments.write', 'refunds.write', 'customers.read', 'customers.write',
  'subscriptions.write', 'invoices.write', 'webhooks.manage', 'balance.read', 'payouts.write',
];

export type EnrollmentStatus = 'SUBMITTED' | 'IN_REVIEW' | 'APPROVED' | 'CORRECTION_REQUESTED' | 'REFUSED';

export interface AmountByCurrency { amount: number; currency: string }


/** A mandate: an agency managing a client's account (the agency's portfolio, the client's agencies). */
export interface Mandate {
  id: string;
  agencyId: string;
  merchantId: string;
  scopes: Scope[];
  status: 'active' | 'revoked';
  createdAt: string;
  revokedAt?: string | null;
  /** The names people know the two by. */
  merchantName?: string | null;
  agencyName?: string | null;
}

export interface Invitation {
  id: string;
  email: string;
  scopes: Scope[];
  status: 'pending' | 'accepted' | 'expired' | 'cancelled';
  url?: string;
  expiresAt: string;
  createdAt: string;
}

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

/** A line of a seller's commission, shaped like a fee line (`platform_commission`, `platform_fixed_fee`). */
export interface CommissionLine { id: string; label: string; rate?: number; totalAmount: number }

/** A split payment's share of one seller. */
export interface SellerShare {
  merchantId: string;
  amount: number;
  discount: number;
  commission: number;
  netAmount: number;
  currency: string;
  detailedCommission: CommissionLine[];
}

/** The platform's own line of a split payment. */
export interface PlatformShare {
  role: 'platform';
  merchantId: string;
  commission: number;
  discounts: number;
  financing: number;
  fees: number;
  netAmount: number;
  currency?: string;
}

export type DistributionEntry = SellerShare | PlatformShare;

/** A refund's share of one seller (its amount and the commission given back). */
export interface RefundShare { merchantId: string; amount: number; commission?: number; currency?: string }
