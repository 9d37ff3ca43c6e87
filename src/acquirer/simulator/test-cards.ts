// The test cards (listed for merchants in docs/checkout.md). The simulator keeps only the behaviour a number selects,
// never the number itself.
import type { RefusalCode } from '../acquirer.js';

export type Behaviour =
  | 'approve'
  | 'challenge'
  | 'save_then_decline'
  | 'save_then_unknown'
  | 'browser_unfit'
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
};

/** Any Luhn-valid number not listed is authorized without a challenge. */
export function behaviourOf(number: string): Behaviour {
  return TEST_CARDS[number] ?? 'approve';
}
