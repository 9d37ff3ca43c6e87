// Monext's return codes (result.code, five digits, with result.title ACCEPTED / REFUSED / ERROR / INPROGRESS /
// CANCELLED…) mapped onto Motu's refusal codes. The table is docs/live.md's "What Motu does on each Monext answer".
import type { RefusalCode } from '../acquirer.js';

/** Session titles that are not final: the cardholder is still in the widget (3-D Secure included). */
export const PENDING_TITLES = new Set(['INPROGRESS', 'ONHOLD_PARTNER', 'PENDING_RISK']);

const REFUSALS: Record<string, RefusalCode> = {
  '01101': 'expired_card', '01201': 'expired_card',
  '01116': 'insufficient_funds', '01121': 'insufficient_funds', '01183': 'insufficient_funds',
  '01130': 'incorrect_cvc',
  '01111': 'card_unknown', '01114': 'card_unknown', '01118': 'card_unknown', '01125': 'card_unknown',
  // The card's recurring payments were revoked (by the cardholder, at the issuer): final, like a card the bank no longer
  // knows. The saved card is detached and the subscriptions charging it wait for another card (docs/live.md).
  '01132': 'card_unknown', '01133': 'card_unknown',
  '01131': 'authentication_failed',
  '01197': 'processing_error', '01198': 'processing_error', '01199': 'processing_error',
};

/** 03xxx: 3-D Secure authentication. */
export function isAuthentication(code: string): boolean {
  return /^03\d{3}$/.test(code);
}

/** The refusal a REFUSED (or ERROR) result means for the card. */
export function refusalOf(code: string, title: string): RefusalCode {
  const known = REFUSALS[code];
  if (known) return known;
  if (isAuthentication(code)) return 'authentication_failed';
  if (title === 'ERROR') return 'processing_error';
  return 'card_declined';
}

/** 02319: the buyer left the widget (cancel). */
export const BUYER_CANCELLED = '02319';
/** A session nobody finished: no transaction for this token (02304), expired (02324), abandoned (02534). */
export const ABANDONED = new Set(['02304', '02324', '02534']);
/** 01185 "Used order": Monext already has a transaction under this order reference (a repeated call). */
export const USED_ORDER = '01185';
