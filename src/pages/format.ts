// Amounts as people read them on the hosted pages, the receipts and the mails: one formatting for all three.
import { formatAmount, isCurrency } from '../shared/money.js';

export function money(amount: number, currency: string, lang: string): string {
  return isCurrency(currency) ? formatAmount(amount, currency, lang) : `${amount} ${currency}`;
}

/** A rate in basis points as people read it: "16 %" in French (a no-break space before the sign), "16%" in English. */
export function percent(basisPoints: number, lang: 'fr' | 'en'): string {
  const value = (basisPoints / 100).toLocaleString(lang === 'fr' ? 'fr-FR' : 'en-GB');
  return lang === 'fr' ? `${value}\u00a0%` : `${value}%`;
}
