// Invoices: newest first, filtered by status (and by customer, found by name, email or external id, or given by a customer's page), each linking to its page;
// "New invoice" opens the draft form.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../api.js';
import { INVOICE_STATUSES, type Invoice } from '../money-types.js';
import { DataTable, NUMERIC } from '../components/DataTable.js';
import { DateTime } from '../components/DateTime.js';
import { Filters } from '../components/Filters.js';
import { SelectField } from '../components/Form.js';
import { Money } from '../components/Money.js';
import { Page } from '../components/Page.js';
import { Pager, useCursor } from '../components/Pager.js';
import { QueryView } from '../components/QueryView.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { invoiceStatusLabel } from '../labels.js';
import { useMayChange } from './money/permissions.js';
import { CustomerName } from './money/CustomerName.js';
import { CustomerSelect } from './money/CustomerSelect.js';
import { InvoicingNotice } from './go-live/InvoicingNotice.js';
import { LiveEmpty } from './go-live/LiveEmpty.js';

export function InvoicesPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const applied = { status: params.get('status') ?? '', customerId: params.get('customerId') ?? '' };
  const [draft, setDraft] = useState(applied);
  const cursor = useCursor();
  const mayCreate = useMayChange('billing');
  const invoices = useQuery({
    queryKey: ['invoices', applied, cursor.startingAfter],
    queryFn: () => api.get<ApiPage<Invoice>>('/api/v1/billing/invoices', { ...applied, limit: 20, startingAfter: cursor.startingAfter }),
    placeholderData: (previous) => previous,
  });
  const apply = (values: typeof applied) => {
    const next = new URLSearchParams();
    if (values.status) next.set('status', values.status);
    if (values.customerId.trim()) next.set('customerId', values.customerId.trim());
    cursor.reset();
    setParams(next);
  };
  const column = createColumnHelper<Invoice>();
  const columns = [
    column.accessor((i) => i.number ?? t('invoices.draftNumber'), { id: 'number', header: t('invoices.number'), cell: (c) => <Link to={`/invoices/${c.row.original.id}`}>{c.getValue()}</Link> }),
    column.accessor('customerId', { header: t('invoices.customer'), cell: (c) => <CustomerName id={c.getValue()} /> }),
    column.accessor('status', { header: t('invoices.status'), cell: (c) => <>{<StatusBadge status={c.getValue()} label={invoiceStatusLabel(t, c.getValue())} />}{c.row.original.overdue && <> <span className="badge bad">{t('invoices.overdue')}</span></>}</> }),
    column.accessor('total', { header: t('invoices.total'), meta: NUMERIC, cell: (c) => <Money amount={c.getValue()} currency={c.row.original.currency} /> }),
    column.accessor('amountRemaining', { header: t('invoices.remaining'), meta: NUMERIC, cell: (c) => <Money amount={c.getValue()} currency={c.row.original.currency} /> }),
    column.accessor('dueDate', { header: t('invoices.dueDate'), cell: (c) => <DateTime value={c.getValue()} style="date" /> }),
    column.accessor('createdAt', { header: t('invoices.created'), cell: (c) => <DateTime value={c.getValue()} /> }),
  ];
  return (
    <Page title={t('invoices.title')} actions={mayCreate && <Link className="button primary" to="/invoices/new">{t('invoices.create')}</Link>}>
      <InvoicingNotice />
      <Filters label={t('invoices.filters')} onApply={() => apply(draft)} onReset={() => { const empty = { status: '', customerId: '' }; setDraft(empty); apply(empty); }}>
        <SelectField label={t('invoices.status')} value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.target.value })}>
          <option value="">{t('common.all')}</option>
          {INVOICE_STATUSES.map((s) => <option key={s} value={s}>{invoiceStatusLabel(t, s)}</option>)}
        </SelectField>
        <CustomerSelect label={t('invoices.customer')} placeholder={t('common.all')} required={false} value={draft.customerId} onChange={(customerId) => setDraft({ ...draft, customerId })} />
      </Filters>
      <QueryView query={invoices}>
        {(page) => (
          <>
            <DataTable caption={t('invoices.caption')} columns={columns} data={page.data} rowKey={(i) => i.id} empty={Object.values(applied).some(Boolean) ? t('invoices.empty') : <LiveEmpty title={t('liveEmpty.invoices')} testText={t('invoices.empty')} />} />
            <Pager cursor={cursor} hasMore={page.hasMore} lastId={page.data[page.data.length - 1]?.id} />
          </>
        )}
      </QueryView>
    </Page>
  );
}
