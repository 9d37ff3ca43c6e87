// The Monext connector's own tables (migration 0034). Motu's modules never read them: they go through the Acquirer
// interface. No card data: Monext keeps the cards; these rows hold Monext's transaction ids and Motu's references.
import type { Mode } from '../../modules/merchants/merchants.table.js';

export interface MonextAuthorizationsTable {
  id: string;
  contract_id: string;
  mode: Mode;
  /** Motu's payment id (pay_…). */
  merchant_reference: string;
  /** Motu's idempotency reference (merchant-initiated: the pay_ id) or the widget session's token. Unique per contract. */
  reference: string;
  /** 'session': the widget's authorization, read from its session; 'direct': asked by Motu with a saved card. */
  kind: 'session' | 'direct';
  amount: number;
  currency: string;
  /** Monext's transaction id; null while the call is on its way (or its answer was lost). */
  transaction_id: string | null;
  /**
   * 'created' (a widget session not read yet) | 'sending' | 'answered' | 'authorized' | 'refused' | 'cancelled' (Motu's
   * cancel accepted) | 'unknown' (Monext refused a duplicate order: it has a transaction Motu cannot see) | 'rejected'
   * (Monext refused to read the widget session, a 4xx: nothing authorized under it).
   */
  state: string;
  created_at: string;
  updated_at: string;
  /** The Monext wallet the widget session registers the card in (a card registration, or a payment whose card may be saved). */
  wallet_id: string | null;
  /** The capture: as Motu made it (Monext accepted it then), or as Monext's transaction shows it, once seen (settlement, migration 0035). */
  captured_amount: number | null;
  captured_at: string | null;
  /** The last read of a not yet captured authorization. */
  checked_at: string | null;
  /** When the connector reported the payment settled (or closed it without a capture: captured_amount 0). */
  settled_at: string | null;
  /** The card as Monext described it, JSON of CardInfo (no number), once the attempt's outcome is known (migration 0036). */
  card: string | null;
  /** Motu's refusal code of a refused attempt. */
  refusal_code: string | null;
  /** A widget session's own page at Monext (3-D Secure), as its creation answered it: reading the session does not give it (migration 0041). */
  redirect_url: string | null;
}

export interface MonextRefundsTable {
  /** Motu's refund reference (re_…, release_…). */
  reference: string;
  contract_id: string;
  mode: Mode;
  authorization_id: string;
  amount: number;
  status: 'sent' | 'succeeded' | 'refused';
  transaction_id: string | null;
  reason: string | null;
  created_at: string;
}
