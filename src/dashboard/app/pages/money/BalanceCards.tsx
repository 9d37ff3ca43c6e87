// The balance as the team reads it: per currency, what is available (can be paid out) and what is pending.
import { useTranslation } from 'react-i18next';
import type { Balance } from '../../money-types.js';
import { Money } from '../../components/Money.js';

export function BalanceCards({ balance }: { balance: Balance }) {
  const { t } = useTranslation();
  const currencies = [...new Set([...balance.available, ...balance.pending].map((b) => b.currency))].sort();
  if (currencies.length === 0) return <p className="muted">{t('balance.nothing')}</p>;
  const of = (list: Balance['available'], currency: string) => list.find((b) => b.currency === currency)?.amount ?? 0;
  return (
    <ul className="balance-cards">
      {currencies.map((currency) => (
        <li key={currency} className="balance-card">
          <h3>{currency}</h3>
          <dl className="facts">
            <dt>{t('balance.available')}</dt><dd className="balance-available"><Money amount={of(balance.available, currency)} currency={currency} /></dd>
            <dt>{t('balance.pending')}</dt><dd><Money amount={of(balance.pending, currency)} currency={currency} /></dd>
          </dl>
        </li>
      ))}
    </ul>
  );
}
