// A list of balance transactions (the balance page's, a payout's): type, source (linked when it is a page of the
// back-office), amount (signed) with its EUR value, status and when it is available.
import { createColumnHelper } from '@tanstack/react-table';
import type { TFunction } from 'i18next';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { BalanceTransaction } from '../../money-types.js';
import { DataTable, NUMERIC } from '../../components/DataTable.js';
import { DateTime } from '../../components/DateTime.js';
import { Money } from '../../components/Money.js';
import { StatusBadge } from '../../components/StatusBadge.js';

export function transactionTypeLabel(t: TFunction, type: string): string {
  return t(`balance.types.${type}` as 'balance.types.payment', { defaultValue: type });
}

const PAGES: Record<string, string> = { payment: '/payments/', payout: '/payouts/', dispute: '/disputes/' };

/**
 * A source with a page by its kind ("Payment", linking to it), its id under it; any other by its id alone. An id is
 * whole and copyable, never broken mid-word.
 */
function SourceLink({ source }: { source: BalanceTransaction['source'] }) {
  const { t } = useTranslation();
  const base = PAGES[source.type];
  const id = <code className="id" title={source.id}>{source.id}</code>;
  if (!base) return id;
  return <><Link to={base + source.id}>{transactionTypeLabel(t, source.type)}</Link><span className="secondary">{id}</span></>;
}

export function TransactionsTable({ caption, data }: { caption: string; data: BalanceTransaction[] }) {
  const { t } = useTranslation();
  const column = createColumnHelper<BalanceTransaction>();
  const columns = [
    column.accessor('createdAt', { header: t('balance.created'), cell: (c) => <DateTime value={c.getValue()} /> }),
    column.accessor('type', { header: t('balance.type'), cell: (c) => transactionTypeLabel(t, c.getValue()) }),
    column.accessor('source', { header: t('balance.source'), cell: (c) => <SourceLink source={c.getValue()} /> }),
    column.accessor('amount', { header: t('balance.amount'), meta: NUMERIC, cell: (c) => <Money amount={c.getValue()} currency={c.row.original.currency} eurCents={c.row.original.amountEur} /> }),
    column.accessor('status', { header: t('balance.status'), cell: (c) => <StatusBadge status={c.getValue()} /> }),
    column.accessor('availableOn', { header: t('balance.availableOn'), cell: (c) => <DateTime value={c.getValue()} /> }),
  ];
  return <DataTable caption={caption} columns={columns} data={data} rowKey={(tx) => tx.id} empty={t('balance.noTransaction')} />;
}
