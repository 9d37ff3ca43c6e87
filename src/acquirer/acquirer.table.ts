// The acquirer's own store (the simulator's tables). Motu's modules never read these tables:
// they go through the Acquirer interface. No card number is kept: a card is its keyed fingerprint,
// the details Motu may see, and the test behaviour its number selected.
import type { Selectable } from 'kysely';
import type { Mode } from '../modules/merchants/merchants.table.js';

export interface AcquirerCardsTable {
  /** Durable card reference `card_…` (what a saved payment method points to). */
  id: string;
  mode: Mode;
  fingerprint: string;
  brand: string;
  network: string;
  /** JSON array of networks the card carries. */
  networks: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  /** The simulated behaviour the test card number selected (see simulator/test-cards.ts). */
  behaviour: string;
  /** 1 once kept by a verification or a saving payment; unsaved cards only back one-time tokens. */
  saved: number;
  /** 'active' | 'disabled' | 'unknown': a saved card can be made unusable by a test helper. */
  state: string;
  created_at: string;
}

export interface AcquirerTokensTable {
  /** One-time token `tok_…`. */
  id: string;
  mode: Mode;
  card_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface AcquirerAuthorizationsTable {
  id: string;
  mode: Mode;
  card_id: string;
  merchant_reference: string;
  /** The caller's idempotency reference (AuthorizeInput.reference), unique per mode; NULL when none was given. */
  reference: string | null;
  status: 'challenge' | 'authorized' | 'refused' | 'captured' | 'cancelled';
  amount: number;
  currency: string;
  captured_amount: number;
  refunded_amount: number;
  refusal_code: string | null;
  /** Capture the full amount once authorized (AUTO capture waiting for a 3-D Secure challenge). */
  capture_on_auth: number;
  save_card: number;
  /** Where the simulated bank page sends the customer back. */
  return_url: string | null;
  /** 3-D Secure result chosen on the bank page: 'authenticated' | 'failed'. */
  authentication: string | null;
  /** The statement label the authorization was asked with (what the cardholder's bank statement would show). */
  statement_label: string | null;
  created_at: string;
  captured_at: string | null;
  updated_at: string;
}

/** A refund at the acquirer, by the caller's idempotency reference (Motu's `re_` id). */
export interface AcquirerRefundsTable {
  reference: string;
  mode: Mode;
  authorization_id: string;
  amount: number;
  /** 'succeeded' | 'refused': the first call's result, returned again to any later call with this reference. */
  status: string;
  reason: string | null;
  created_at: string;
}

export type AcquirerCardRow = Selectable<AcquirerCardsTable>;
export type AcquirerAuthorizationRow = Selectable<AcquirerAuthorizationsTable>;
