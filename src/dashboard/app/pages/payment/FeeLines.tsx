// A payment's fees as Motu bills them (the `settlement` block of its events): each line, the total and what is left.
import { useTranslation } from 'react-i18next';
import type { Settlement } from '../../types.js';
import { Money } from '../../components/Money.js';

export function FeeLines({ settlement }: { settlement: Settlement }) {
  const { t } = useTranslation();
  const currency = settlement.currency;
  return (
    <div className="table-wrap" role="region" aria-label={t('payment.fees')} tabIndex={0}>
      <table>
        <caption>{t('payment.feesCaption')}</caption>
        <thead>
          <tr><th scope="col">{t('payment.feeLine')}</th><th scope="col" className="numeric">{t('payment.amount')}</th></tr>
        </thead>
        <tbody>
          {settlement.detailedFees.map((line, index) => (
            <tr key={`${line.id}-${index}`}>
              <td>{line.label}</td>
              <td className="numeric"><Money amount={line.totalAmount} currency={currency} eurCents={line.totalAmountEur} /></td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr><th scope="row">{t('payment.feesTotal')}</th><td className="numeric"><Money amount={settlement.mobupayCommission} currency={currency} /></td></tr>
          <tr><th scope="row">{t('payment.net')}</th><td className="numeric"><Money amount={settlement.netAmount} currency={currency} /></td></tr>
        </tfoot>
      </table>
    </div>
  );
}
