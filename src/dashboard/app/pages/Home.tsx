// Home: the balance (available and pending, per currency), the EUR volume captured over the last 30 days as a bar
// chart (one bar a day in the merchant's time zone; an SVG drawn with attributes and classes, the CSP allowing no
// inline style, and the same figures as a table for whoever does not see the bars), and the latest payments.
import { useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api } from '../api.js';
import { formatAmount, locale } from '../format.js';
import { useLang } from '../i18n.js';
import type { Home, VolumeDay } from '../money-types.js';
import type { Payment } from '../types.js';
import { DataTable, NUMERIC } from '../components/DataTable.js';
import { DateTime } from '../components/DateTime.js';
import { Money } from '../components/Money.js';
import { Page, Section } from '../components/Page.js';
import { QueryView } from '../components/QueryView.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { BalanceCards } from './money/BalanceCards.js';
import { HomeChecklist } from './go-live/HomeChecklist.js';
import { LiveEmpty } from './go-live/LiveEmpty.js';

export function HomePage() {
  const { t } = useTranslation();
  const home = useQuery({ queryKey: ['home'], queryFn: () => api.get<Home>('/dashboard/api/home') });
  const column = createColumnHelper<Payment>();
  const columns = [
    column.accessor('createdAt', { header: t('payments.created'), cell: (c) => <DateTime value={c.getValue()} /> }),
    column.accessor((p) => p.orderReference ?? p.reference, {
      id: 'reference', header: t('payments.reference'),
      cell: (c) => <Link to={`/payments/${c.row.original.id}`}>{c.getValue()}</Link>,
    }),
    column.accessor('email', { header: t('payments.customer'), cell: (c) => c.getValue() ?? '—' }),
    column.accessor('status', { header: t('payments.status'), cell: (c) => <StatusBadge status={c.getValue()} /> }),
    column.accessor('amount', { header: t('payments.amount'), meta: NUMERIC, cell: (c) => <Money amount={c.getValue()} currency={c.row.original.currency} eurCents={c.row.original.amountCents} /> }),
  ];
  return (
    <Page title={t('home.title')}>
      <HomeChecklist />
      <QueryView query={home}>
        {(data) => (
          <>
            <Section title={t('home.balance')} actions={<Link to="/balance">{t('home.seeBalance')}</Link>}>
              <BalanceCards balance={data.balance} />
            </Section>
            <Section title={t('home.volume')}>
              <VolumeChart days={data.volume} />
            </Section>
            <Section title={t('home.recentPayments')} actions={<Link to="/payments">{t('home.allPayments')}</Link>}>
              <DataTable caption={t('home.recentCaption')} columns={columns} data={data.recentPayments} rowKey={(p) => p.id} empty={<LiveEmpty title={t('liveEmpty.payments')} testText={t('home.noPayment')} />} />
            </Section>
          </>
        )}
      </QueryView>
    </Page>
  );
}

const WIDTH = 600;
const HEIGHT = 160;

function VolumeChart({ days }: { days: VolumeDay[] }) {
  const { t } = useTranslation();
  const lang = useLang();
  const max = Math.max(1, ...days.map((d) => d.amountEur));
  const total = days.reduce((sum, d) => sum + d.amountEur, 0);
  const count = days.reduce((sum, d) => sum + d.count, 0);
  const slot = WIDTH / Math.max(1, days.length);
  const dayLabel = (day: string) => new Intl.DateTimeFormat(locale(lang), { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(`${day}T12:00:00Z`));
  const summary = t('home.volumeSummary', { total: formatAmount(total, 'EUR', lang), count });
  const column = createColumnHelper<VolumeDay>();
  const columns = [
    column.accessor('day', { header: t('home.day'), cell: (c) => dayLabel(c.getValue()) }),
    column.accessor('count', { header: t('home.count'), meta: NUMERIC }),
    column.accessor('amountEur', { header: t('home.amountEur'), meta: NUMERIC, cell: (c) => formatAmount(c.getValue(), 'EUR', lang) }),
  ];
  return (
    <figure className="chart">
      <svg className="bar-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary} preserveAspectRatio="none">
        <line className="chart-axis" x1={0} y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} />
        {days.map((d, i) => {
          const height = d.amountEur > 0 ? Math.max(2, Math.round((d.amountEur / max) * (HEIGHT - 10))) : 0;
          return (
            <rect key={d.day} className="chart-bar" x={i * slot + slot * 0.15} y={HEIGHT - height} width={slot * 0.7} height={height}>
              <title>{`${dayLabel(d.day)}: ${formatAmount(d.amountEur, 'EUR', lang)} (${d.count})`}</title>
            </rect>
          );
        })}
      </svg>
      {days.length > 0 && (
        <div className="chart-days" aria-hidden="true">
          <span>{dayLabel(days[0]!.day)}</span>
          <span>{dayLabel(days[days.length - 1]!.day)}</span>
        </div>
      )}
      <figcaption>{summary}</figcaption>
      <details className="chart-table">
        <summary>{t('home.showTable')}</summary>
        <DataTable caption={t('home.volumeCaption')} columns={columns} data={days} rowKey={(d) => d.day} empty={t('home.noPayment')} />
      </details>
    </figure>
  );
}
