// A platform's sellers: each by name, its state (onboarding, open, unlinked), its pending and available balances, and
// when it was linked; each links to its page.
import { useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../../api.js';
import type { Seller } from '../../platform-types.js';
import { DataTable, NUMERIC } from '../../components/DataTable.js';
import { DateTime } from '../../components/DateTime.js';
import { Page } from '../../components/Page.js';
import { Pager, useCursor } from '../../components/Pager.js';
import { QueryView } from '../../components/QueryView.js';
import { Amounts, SellerState } from './SellerParts.js';

export function SellersPage() {
  const { t } = useTranslation();
  const cursor = useCursor();
  const sellers = useQuery({
    queryKey: ['platform-sellers', cursor.startingAfter],
    queryFn: () => api.get<ApiPage<Seller>>('/api/v1/platform/merchants', { limit: 20, startingAfter: cursor.startingAfter }),
    placeholderData: (previous) => previous,
  });
  const column = createColumnHelper<Seller>();
  const columns = [
    column.accessor('name', { id: 'reference', header: t('platform.sellers.name'), cell: (c) => <Link to={`/platform/sellers/${c.row.original.id}`}>{c.getValue()}</Link> }),
    column.display({ id: 'status', header: t('platform.sellers.state'), cell: (c) => <SellerState seller={c.row.original} /> }),
    column.accessor((s) => s.balance?.pending, { id: 'pending', header: t('platform.sellers.pending'), meta: NUMERIC, cell: (c) => <Amounts amounts={c.getValue()} /> }),
    column.accessor((s) => s.balance?.available, { id: 'available', header: t('platform.sellers.available'), meta: NUMERIC, cell: (c) => <Amounts amounts={c.getValue()} /> }),
    column.accessor('linkedAt', { id: 'createdAt', header: t('platform.sellers.linkedAt'), cell: (c) => <DateTime value={c.getValue()} /> }),
  ];
  return (
    <Page title={t('platform.sellers.title')}>
      <p>{t('platform.sellers.intro')}</p>
      <QueryView query={sellers}>
        {(page) => (
          <>
            <DataTable caption={t('platform.sellers.caption')} columns={columns} data={page.data} rowKey={(s) => s.id} empty={t('platform.sellers.empty')} />
            <Pager cursor={cursor} hasMore={page.hasMore} lastId={page.data[page.data.length - 1]?.id} />
          </>
        )}
      </QueryView>
    </Page>
  );
}
