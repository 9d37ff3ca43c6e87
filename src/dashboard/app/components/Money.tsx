// An amount in its original currency, and its value in EUR beside an XPF amount.
import { eurBeside, formatAmount } from '../format.js';
import { useLang } from '../i18n.js';

export function Money({ amount, currency, eurCents }: { amount: number; currency: string; eurCents?: number }) {
  const lang = useLang();
  const eur = currency === 'EUR' ? null : eurCents ?? eurBeside(amount, currency);
  return (
    <span className="money">
      {formatAmount(amount, currency, lang)}
      {eur !== null && <span className="money-eur"> ({formatAmount(eur, 'EUR', lang)})</span>}
    </span>
  );
}
