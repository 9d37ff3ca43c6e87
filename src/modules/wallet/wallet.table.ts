import type { Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

export type PaymentMethodStatus = 'active' | 'removed';
export type RemovalReason = 'deleted' | 'disabled' | 'unknown_at_acquirer';

/** A saved card. Never the number: the acquirer keeps the card, we keep its reference and what it tells about it. */
export interface PaymentMethodsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  customer_id: string;
  /** The acquirer's durable card reference (`card_…` in the simulator). Never exposed. */
  acquirer_card_ref: string;
  brand: string;
  /** The network applied (CB for a co-badged card). */
  network: string;
  /** JSON array of every network the card carries. */
  networks: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  fingerprint: string;
  status: PaymentMethodStatus;
  removed_reason: RemovalReason | null;
  removed_at: string | null;
  created_at: string;
}

/** A card-registration invitation that lives days; it owns one wallet session (payment_sessions, kind 'wallet'). */
export interface CardLinksTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  customer_id: string;
  session_id: string;
  send_email: number;
  cancelled_at: string | null;
  expires_at: string;
  created_at: string;
}

export type WalletOutcome = 'success' | 'failed' | 'error';

/** The wallet side of a registration session: how it ended. */
export interface WalletSessionsTable {
  session_id: string;
  card_link_id: string | null;
  outcome: WalletOutcome | null;
  payment_method_id: string | null;
  refusal_code: string | null;
  /** Made for a subscription: the card saved through it becomes the subscription's (mandate restored by the cardholder). */
  subscription_id: string | null;
  updated_at: string;
}

export type PaymentMethodRow = Selectable<PaymentMethodsTable>;
export type CardLinkRow = Selectable<CardLinksTable>;
export type WalletSessionRow = Selectable<WalletSessionsTable>;
