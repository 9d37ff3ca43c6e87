// Amounts as people read them on the hosted pages, the receipts and the mails: one formatting for all three.
import { formatAmount, isCurrency } from '../shared/money.js';

export function money(amount: number, currency: string, lang: string): string {
  return isCurrency(currency) ? formatAmount(amount, currency, lang) : `${amount} ${currency}`;
}
