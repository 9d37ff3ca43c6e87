// The test cards (listed for merchants in docs/checkout.md). The simulator keeps only the behaviour a number selects,
// never the number itself.
import type { RefusalCode } from '../acquirer.js';

export type Behaviour =
  | 'approve'
  | 'challenge'
  | 'save_then_decline'
  | 'save_then_unknown'
  | 'browser_unfit'
  | 'settle_at_once'
  | `dispute:${'chargeback' | 'inquiry'}:${string}`
  | `refuse:${RefusalCode}`;

const TEST_CARDS: Record<string, Behaviour> = {
  '4000000000003220': 'challenge',
  '4000000000000002': 'refuse:card_declined',
  '4000000000009995': 'refuse:insufficient_funds',
  '4000000000000069': 'refuse:expired_card',
  '4000000000000127': 'refuse:incorrect_cvc',
  '4000000000000119': 'refuse:processing_error',
  '4000000000000341': 'save_then_decline',
  '4000000000005126': 'save_then_unknown',
  '4000000000001208': 'browser_unfit',
  // Authorized; the capture is settled at once (no settlement delay).
  '4000000000000077': 'settle_at_once',
  // Authorized and captured; then the cardholder's bank contests the whole captured amount a moment later.
  '4000000000000259': 'dispute:chargeback:fraudulent',
  '4000000000002685': 'dispute:chargeback:product_not_received',
  '4000000000001976': 'dispute:inquiry:general',
};

/** Seconds between a capture on a dispute card and the bank's notification of the dispute. */
export const DISPUTE_AFTER_SECONDS = 2;

/** Any Luhn-valid number not listed is authorized without a challenge. */
export function behaviourOf(number: string): Behaviour {
  return TEST_CARDS[number] ?? 'approve';
}
