import type { Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

/** A seller linked to a platform in one mode; unlinking keeps the row (history), at most one current per pair and mode. */
export interface PlatformLinksTable {
  id: string;
  platform_id: string;
  seller_id: string;
  mode: Mode;
  /** The onboarding case that made the seller (obc_…); null for a link made otherwise. */
  case_id: string | null;
  linked_at: string;
  unlinked_at: string | null;
}

export type PlatformLink = Selectable<PlatformLinksTable>;

export type SessionStatus = 'open' | 'completed' | 'expired' | 'cancelled';
export type EnrollmentStatus = 'SUBMITTED' | 'IN_REVIEW' | 'APPROVED' | 'CORRECTION_REQUESTED' | 'REFUSED';

/** The link a platform hands a business to fill in the hosted onboarding form, once, until it expires. */
export interface OnboardingSessionsTable {
  id: string;
  platform_id: string;
  mode: Mode;
  email: string;
  business_name: string | null;
  return_url: string;
  refresh_url: string | null;
  /** The case this session corrects (given at creation), or the case its form submitted. */
  case_id: string | null;
  /** 'expired' is written by the expiry job (with its event); a session past expires_at reads expired before. */
  status: SessionStatus;
  expires_at: string;
  created_at: string;
  completed_at: string | null;
  cancelled_at: string | null;
  /** The agency's invitation (agi_…) this session onboards a new client for; platform_id is then the agency's id. */
  invitation_id: string | null;
}

/** What a business submitted: its legal identity, representative and IBAN (sealed), and the review's outcome. */
export interface OnboardingCasesTable {
  id: string;
  platform_id: string;
  mode: Mode;
  email: string;
  enrollment_status: EnrollmentStatus;
  legal_name: string;
  registration_number: string;
  /** JSON {line1, line2?, postalCode, city, country}. */
  address: string;
  /** JSON {firstName, lastName, birthDate, email?}. */
  representative: string;
  iban_sealed: string;
  iban_country: string;
  iban_last4: string;
  /** The payout currency of the IBAN's account (EUR or XPF). */
  currency: string;
  /** JSON string[] of the last CORRECTION_REQUESTED or REFUSED decision. */
  reasons: string | null;
  /** How many times the form submitted it (1, then 2 after a correction…). */
  submissions: number;
  /** The seller merchant, once approved. */
  seller_id: string | null;
  created_at: string;
  updated_at: string;
  decided_at: string | null;
  /** The agency's invitation (agi_…) this case onboards a new client for: never linked to a platform, its events go
   *  to the agency (platform_id holds the agency's id) and its approval accepts the invitation. */
  invitation_id: string | null;
}

export type OnboardingSession = Selectable<OnboardingSessionsTable>;
export type OnboardingCase = Selectable<OnboardingCasesTable>;
