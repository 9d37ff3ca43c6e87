import type { Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

/** What a back-office user may do (docs/back-office.md, Users and roles). */
export type Role = 'owner' | 'admin' | 'developer' | 'support' | 'analyst';
export const ROLES: readonly Role[] = ['owner', 'admin', 'developer', 'support', 'analyst'];

export interface UsersTable {
  id: string;
  merchant_id: string;
  email: string;
  role: Role;
  password_hash: string | null;
  setup_nonce: string | null;
  setup_expires_at: string | null;
  totp_secret: string | null;
  totp_enabled: number;
  totp_last_step: number | null;
  recovery_codes: string | null;
  /** Unused since the count moved to sign_in_attempts (kept per address, a user's or not); left by migration. */
  failed_sign_ins: number;
  /** Unused, as failed_sign_ins. */
  locked_until: string | null;
  invited_by: string | null;
  created_at: string;
  last_sign_in_at: string | null;
  removed_at: string | null;
}
export type UserRow = Selectable<UsersTable>;

export interface UserSessionsTable {
  id: string;
  user_id: string;
  mode: Mode;
  csrf_token: string;
  created_at: string;
  last_seen_at: string;
  ended_at: string | null;
}
export type UserSessionRow = Selectable<UserSessionsTable>;

/** The sign-in count and lock of an email address, known or not (keyed by its SHA-256). */
export interface SignInAttemptsTable {
  email_hash: string;
  attempts: number;
  locked_until: string | null;
  updated_at: string;
}
