// The component's own words, French (default) and English.
import { sdkText } from '../../i18n/sdk.js';
import { pageLang, type Lang } from '../../shared/lang.js';
import { formatAmount as formatShared, isCurrency } from '../../shared/money.js';

export type { Lang };

export const TEXT = sdkText;

export const langOf = pageLang;

export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, k: string) => values[k] ?? '');
}

/** An amount as the hosted pages, mails, PDFs and back-office write it (src/shared/money.ts): "2 500 XPF", "€25.00". */
export function formatAmount(amount: number, currency: string, lang: Lang): string {
  if (isCurrency(currency) && Number.isSafeInteger(amount)) return formatShared(amount, currency, lang);
  return `${amount} ${currency}`;
}
