import type { Generated, Selectable } from 'kysely';
import type { Mode } from '../merchants/merchants.table.js';

export type PaymentStatus =
  | 'pending' | 'transit' | 'captured' | 'failed' | 'cancelled' | 'expired'
  | 'partially_refunded' | 'refunded';

export type SessionKind = 'payment' | 'wallet';
export type SessionStatus = 'open' | 'complete' | 'expired' | 'cancelled';

export interface PaymentSessionsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  kind: SessionKind;
  status: SessionStatus;
  payment_id: string | null;
  customer_id: string | null;
  /** Lets a payment link and its session share one flow: 'session' | 'link'. */
  channel: string;
  redirect_url: string | null;
  failure_redirect_url: string | null;
  success_page_mode: string;
  failure_page_mode: string;
  language_code: string;
  allow_save_payment_method: number;
  save_payment_method_default: number;
  /** 1 when the session was created with `customerId`: only then does the page offer saved cards
   * (a payer who merely types an email must not see someone's cards). */
  offer_saved_cards: number;
  email: string | null;
  expires_at: string;
  /** The customer's test clock: the row lives at the clock's time (src/modules/test-clocks/clock-time.ts). */
  test_clock_id: string | null;
  created_at: string;
  completed_at: string | null;
  /** `lnk_…` when the session was created as a payment link (channel 'link'). */
  link_id: string | null;
  /** Cards sent to the acquirer for this session so far (at most MOTU_MAX_CARD_ATTEMPTS; migration 0014). */
  card_attempts: Generated<number>;
  /** Card tokens asked for this session so far (at most MOTU_TOKENS_PER_SESSION; migration 0020). */
  tokens_issued: Generated<number>;
}

export interface PaymentsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  session_id: string | null;
  status: PaymentStatus;
  /** `SPR-…`, the payment reference carried in events. */
  reference: string;
  order_reference: string | null;
  external_id: string | null;
  /** Amount to pay in the original currency's minor unit, taxes included. */
  amount: number;
  currency: string;
  /** The same amount in EUR cents (XPF at the peg, 1,000 XPF = 8.38 EUR, rounded half up). */
  amount_eur_cents: number;
  /** Taxes added on top when isInclTaxAmount was false, else 0. */
  tax_amount: number;
  is_incl_tax_amount: number;
  /** JSON text of the validated order. */
  order_json: string;
  capture_mode: 'AUTO' | 'MANUAL';
  store_id: string | null;
  contract_id: string;
  customer_id: string | null;
  customer_created: number;
  email: string | null;
  save_customer: number;
  /** '' when none was given (a payment link may leave it out). */
  notification_url: string;
  /** JSON text; holds customerEmail for the receipt. */
  private_data: string | null;
  authorized_amount: number;
  captured_amount: number;
  /** What the payment's open and lost chargebacks took back: a refund may not reach into it. */
  disputed_amount: number;
  refunded_amount: number;
  refusal_code: string | null;
  refusal_message: string | null;
  payment_method_id: string | null;
  card_brand: string | null;
  card_last4: string | null;
  card_network: string | null;
  authorized_at: string | null;
  captured_at: string | null;
  settled: number;
  /** The acquirer authorization backing this payment (captures, cancels and refunds go to it). */
  acquirer_authorization_id: string | null;
  /** Claim held by a capture, cancel or expiry while the acquirer answers: 'capture' | 'cancel' | 'expire'. */
  operation: string | null;
  operation_at: string | null;
  /** Sum of refunds under way (pending at the acquirer), so concurrent refunds never exceed what was captured. */
  refund_reserved: number;
  /** Authorizations asked of the acquirer for this payment (each billed on the fee lines); kept by the payment transitions. */
  authorization_attempts: Generated<number>;
  settled_at: string | null;
  /** The customer's test clock: the row lives at the clock's time (src/modules/test-clocks/clock-time.ts). */
  /** A subscription's charge: the subscription and the due date it collects. */
  /** Made from an invoice's page: its capture pays that invoice. */
  invoice_id: string | null;
  subscription_id: string | null;
  due_date: string | null;
  test_clock_id: string | null;
  created_at: string;
  updated_at: string;
}

export type PaymentSessionRow = Selectable<PaymentSessionsTable>;
export type PaymentRow = Selectable<PaymentsTable>;
