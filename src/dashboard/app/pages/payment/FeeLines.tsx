// A payment's fees as Motu bills them (the `settlement` block of its events): each line, the total and what is left.
import { useTranslation } from 'react-i18next';
import type { Refund, Settlement } from '../../types.js';
import { Money } from '../../components/Money.js';
import { formatAmount } from '../../format.js';
import { useLang } from '../../i18n.js';

/**
 * The server's label is English; the lines Motu bills are named in the user's language by their id. A refund's
 * line names its refund (`re_…` in the label), whose amount the page knows.
 */
function useFeeLabel(refunds: Refund[]) {
  const { t } = useTranslation();
  const lang = useLang();
  return (line: { id: string; label: string }) => {
    switch (line.id) {
      case 'spirit_commission': return t('payment.feeCommission');
      case 'spirit_fixed_fee': return t('payment.feeFixed');
      case 'authorization_result': return t('payment.feeAuthorization');
      case 'refund': {
        const refund = refunds.find((r) => line.label.includes(r.id));
        return refund ? t('payment.feeRefundOf', { amount: formatAmount(refund.amount, refund.currency, lang) }) : t('payment.feeRefund');
      }
      default: return line.label;
    }
  };
}

export function FeeLines({ settlement, refunds = [] }: { settlement: Settlement; refunds?: Refund[] }) {
  const { t } = useTranslation();
  const label = useFeeLabel(refunds);
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
              <td>{label(line)}</td>
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
