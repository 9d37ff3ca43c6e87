// Subscriptions: newest first, filtered by status (and by customer, found by name, email or external id, or given by a customer's page), each linking to its page.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../api.js';
import { SUBSCRIPTION_STATUSES, type Subscription } from '../money-types.js';
import { DataTable, NUMERIC } from '../components/DataTable.js';
import { DateTime } from '../components/DateTime.js';
import { Filters } from '../components/Filters.js';
import { SelectField } from '../components/Form.js';
import { Money } from '../components/Money.js';
import { Page } from '../components/Page.js';
import { Pager, useCursor } from '../components/Pager.js';
import { QueryView } from '../components/QueryView.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { statusLabel } from '../labels.js';
import { intervalText } from './money/intervals.js';
import { CustomerName } from './money/CustomerName.js';
import { CustomerSelect } from './money/CustomerSelect.js';
import { usePermissions } from '../permissions.js';
import { LiveEmpty } from './go-live/LiveEmpty.js';

export function SubscriptionsPage() {
  const { t } = useTranslation();
  const mayCreate = usePermissions().can('POST', '/api/v1/subscriptions');
  const [params, setParams] = useSearchParams();
  const applied = { status: params.get('status') ?? '', customerId: params.get('customerId') ?? '' };
  const [draft, setDraft] = useState(applied);
  const cursor = useCursor();
  const subscriptions = useQuery({
    queryKey: ['subscriptions', applied, cursor.startingAfter],
    queryFn: () => api.get<ApiPage<Subscription>>('/api/v1/subscriptions', { ...applied, limit: 20, startingAfter: cursor.startingAfter }),
    placeholderData: (previous) => previous,
  });
  const apply = (values: typeof applied) => {
    const next = new URLSearchParams();
    if (values.status) next.set('status', values.status);
    if (values.customerId.trim()) next.set('customerId', values.customerId.trim());
    cursor.reset();
    setParams(next);
  };
  const column = createColumnHelper<Subscription>();
  const columns = [
    column.accessor('id', { header: t('subscriptions.subscription'), cell: (c) => <Link to={`/subscriptions/${c.getValue()}`}>{c.row.original.description || c.getValue()}</Link> }),
    column.accessor('customerId', { header: t('subscriptions.customer'), cell: (c) => <CustomerName id={c.getValue()} /> }),
    column.accessor('status', { header: t('subscriptions.status'), cell: (c) => <StatusBadge status={c.getValue()} /> }),
    column.accessor('amount', { header: t('subscriptions.amount'), meta: NUMERIC, cell: (c) => <><Money amount={c.getValue()} currency={c.row.original.currency} /> {intervalText(t, c.row.original)}</> }),
    column.accessor('nextDueDate', { header: t('subscriptions.nextDueDate'), cell: (c) => <DateTime value={c.getValue()} style="date" /> }),
    column.accessor('createdAt', { header: t('subscriptions.created'), cell: (c) => <DateTime value={c.getValue()} /> }),
  ];
  return (
    <Page title={t('subscriptions.title')} actions={mayCreate && <Link className="button primary" to="/subscriptions/new">{t('subscriptions.create')}</Link>}>
      <Filters label={t('subscriptions.filters')} onApply={() => apply(draft)} onReset={() => { const empty = { status: '', customerId: '' }; setDraft(empty); apply(empty); }}>
        <SelectField label={t('subscriptions.status')} value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.target.value })}>
          <option value="">{t('common.all')}</option>
          {SUBSCRIPTION_STATUSES.map((s) => <option key={s} value={s}>{statusLabel(t, s)}</option>)}
        </SelectField>
        <CustomerSelect label={t('subscriptions.customer')} placeholder={t('common.all')} required={false} value={draft.customerId} onChange={(customerId) => setDraft({ ...draft, customerId })} />
      </Filters>
      <QueryView query={subscriptions}>
        {(page) => (
          <>
            <DataTable caption={t('subscriptions.caption')} columns={columns} data={page.data} rowKey={(s) => s.id} empty={Object.values(applied).some(Boolean) ? t('subscriptions.empty') : <LiveEmpty title={t('liveEmpty.subscriptions')} testText={t('subscriptions.empty')} />} />
            <Pager cursor={cursor} hasMore={page.hasMore} lastId={page.data[page.data.length - 1]?.id} />
          </>
        )}
      </QueryView>
    </Page>
  );
}
