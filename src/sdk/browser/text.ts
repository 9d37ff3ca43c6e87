// The component's own words, French (default) and English.
import { sdkText } from '../../i18n/sdk.js';
import { pageLang, type Lang } from '../../shared/lang.js';

export type { Lang };

export const TEXT = sdkText;

export const langOf = pageLang;

export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, k: string) => values[k] ?? '');
}

export function formatAmount(amount: number, currency: string, lang: Lang): string {
  const digits = currency === 'XPF' ? 0 : 2;
  try {
    return new Intl.NumberFormat(lang === 'en' ? 'en-GB' : 'fr-FR', { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits })
      .format(amount / 10 ** digits);
  } catch {
    return `${(amount / 10 ** digits).toFixed(digits)} ${currency}`;
  }
}
