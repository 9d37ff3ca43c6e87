// A split payment's distribution (a platform's payment shared between its sellers): each seller by name (linking to
// its page) with its amount, the discount the platform funds, its commission and the commission's lines, and its net;
// then the platform's own line (commissions, discounts, financing, payment fees, net); then what refunds took from
// each seller and the commission given back.
import { useTranslation } from 'react-i18next';
import type { CommissionLine, DistributionEntry, PlatformShare, SellerShare } from '../../platform-types.js';
import { Money } from '../../components/Money.js';
import { Section } from '../../components/Page.js';
import { locale } from '../../format.js';
import { useLang } from '../../i18n.js';
import { SellerName } from '../platform/SellerParts.js';

function isPlatform(entry: DistributionEntry): entry is PlatformShare {
  return 'role' in entry && entry.role === 'platform';
}

function useLineLabel() {
  const { t } = useTranslation();
  const lang = useLang();
  return (line: CommissionLine) => {
    if (line.id === 'platform_commission') {
      const rate = line.rate === undefined ? '' : new Intl.NumberFormat(locale(lang), { style: 'percent', maximumFractionDigits: 2 }).format(line.rate / 10_000);
      return t('distribution.lines.platform_commission', { rate });
    }
    if (line.id === 'platform_fixed_fee') return t('distribution.lines.platform_fixed_fee');
    return line.label;
  };
}

export function Distribution({ entries }: { entries: DistributionEntry[] }) {
  const { t } = useTranslation();
  const lineLabel = useLineLabel();
  const sellers = entries.filter((e): e is SellerShare => !isPlatform(e));
  const platform = entries.find(isPlatform);
  const refunded = sellers.filter((s) => s.refundedAmount > 0);
  return (
    <Section title={t('distribution.title')}>
      <div className="table-wrap distribution" role="region" aria-label={t('distribution.caption')} tabIndex={0}>
        <table>
          <caption>{t('distribution.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('distribution.seller')}</th>
              <th scope="col" className="numeric">{t('distribution.amount')}</th>
              <th scope="col" className="numeric">{t('distribution.discount')}</th>
              <th scope="col" className="numeric">{t('distribution.commission')}</th>
              <th scope="col" className="numeric">{t('distribution.net')}</th>
            </tr>
          </thead>
          <tbody>
            {sellers.map((share) => (
              <tr key={share.merchantId}>
                <th scope="row"><SellerName id={share.merchantId} /></th>
                <td className="numeric"><Money amount={share.amount} currency={share.currency} /></td>
                <td className="numeric"><Money amount={share.discount} currency={share.currency} /></td>
                <td className="numeric">
                  <Money amount={share.commission} currency={share.currency} />
                  {share.detailedCommission.length > 0 && (
                    <ul className="distribution-lines" aria-label={t('distribution.commissionLines')}>
                      {share.detailedCommission.map((line, index) => (
                        <li key={`${line.id}-${index}`}>{lineLabel(line)} · <Money amount={line.totalAmount} currency={share.currency} /></li>
                      ))}
                    </ul>
                  )}
                </td>
                <td className="numeric"><Money amount={share.netAmount} currency={share.currency} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {platform && (
        <>
          <h3>{t('distribution.platform')}</h3>
          <dl className="facts distribution-platform">
            <dt>{t('distribution.commissions')}</dt><dd><Money amount={platform.commission} currency={platform.currency} /></dd>
            <dt>{t('distribution.discounts')}</dt><dd><Money amount={-platform.discounts} currency={platform.currency} /></dd>
            <dt>{t('distribution.financing')}</dt><dd><Money amount={-platform.financing} currency={platform.currency} /></dd>
            <dt>{t('distribution.fees')}</dt><dd><Money amount={-platform.fees} currency={platform.currency} /></dd>
            <dt>{t('distribution.platformNet')}</dt><dd><strong><Money amount={platform.netAmount} currency={platform.currency} /></strong></dd>
          </dl>
        </>
      )}
      {refunded.length > 0 && (
        <>
          <h3>{t('distribution.refunds')}</h3>
          <div className="table-wrap distribution" role="region" aria-label={t('distribution.refundsCaption')} tabIndex={0}>
            <table>
              <caption>{t('distribution.refundsCaption')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('distribution.seller')}</th>
                  <th scope="col" className="numeric">{t('distribution.share')}</th>
                  <th scope="col" className="numeric">{t('distribution.commissionBack')}</th>
                </tr>
              </thead>
              <tbody>
                {refunded.map((share) => (
                  <tr key={share.merchantId}>
                    <th scope="row"><SellerName id={share.merchantId} /></th>
                    <td className="numeric"><Money amount={share.refundedAmount} currency={share.currency} /></td>
                    <td className="numeric"><Money amount={share.refundedCommission} currency={share.currency} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Section>
  );
}
