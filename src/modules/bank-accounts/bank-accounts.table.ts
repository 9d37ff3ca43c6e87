import type { Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

/** new: usable; errored: three payouts in a row failed on it (automatic payouts pause until another default is set). */
export type BankAccountStatus = 'new' | 'errored';

export interface BankAccountsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  currency: string;
  /** ISO 3166 country of the IBAN (its first two letters). */
  country: string;
  last4: string;
  /** Stable for one IBAN within a merchant and mode, not reversible (HMAC of the IBAN under a derived key). */
  fingerprint: string;
  /** The IBAN, sealed (AES-256-GCM); never returned, logged or sent in an event. */
  iban_sealed: string;
  holder_name: string;
  bic: string | null;
  status: BankAccountStatus;
  is_default: number;
  created_at: string;
  deleted_at: string | null;
}

export type BankAccountRow = Selectable<BankAccountsTable>;
