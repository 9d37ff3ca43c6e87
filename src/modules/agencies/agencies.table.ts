import type { Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

export type InvitationStatus = 'pending' | 'accepted' | 'cancelled' | 'expired';
export type MandateStatus = 'active' | 'revoked';

export interface AgencyInvitationsTable {
  id: string;
  agency_id: string;
  mode: Mode;
  email: string;
  /** JSON array of scopes. */
  scopes: string;
  /** The secret of the hosted page's URL: whoever holds it may see the invitation and accept it with their account. */
  token: string;
  status: InvitationStatus;
  expires_at: string;
  /** The client that accepted it. */
  merchant_id: string | null;
  mandate_id: string | null;
  created_at: string;
  updated_at: string;
}
export type AgencyInvitationRow = Selectable<AgencyInvitationsTable>;

export interface AgencyMandatesTable {
  id: string;
  agency_id: string;
  /** The client. */
  merchant_id: string;
  mode: Mode;
  /** JSON array of scopes. */
  scopes: string;
  status: MandateStatus;
  invitation_id: string | null;
  revoked_by: 'client' | 'agency' | null;
  revoked_at: string | null;
  created_at: string;
  updated_at: string;
}
export type AgencyMandateRow = Selectable<AgencyMandatesTable>;

/** An object an agency created on its client's account: the answers show it with `actedBy: {agencyId}`. */
export interface AgencyCreatedObjectsTable {
  object_id: string;
  merchant_id: string;
  mode: Mode;
  agency_id: string;
  created_at: string;
}
