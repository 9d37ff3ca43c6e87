// Customers: newest first, found by email or external id (the API's own filters, kept in the address), each linking to
// its page; a new customer (name, email, phone, external id) for those whose role may change customers.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../api.js';
import type { Customer } from '../money-types.js';
import { DataTable } from '../components/DataTable.js';
import { DateTime } from '../components/DateTime.js';
import { Filters } from '../components/Filters.js';
import { TextField } from '../components/Form.js';
import { Page } from '../components/Page.js';
import { Pager, useCursor } from '../components/Pager.js';
import { QueryView } from '../components/QueryView.js';
import { CustomerDialog } from './money/CustomerDialog.js';
import { useToast } from '../components/Toasts.js';
import { usePermissions } from '../permissions.js';
import { LiveEmpty } from './go-live/LiveEmpty.js';

/** The "New customer" button and its dialog: the fields filled in, then the customer's page. */
function NewCustomer() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const create = async (fields: Record<string, string>) => {
    const created = await api.post<Customer>('/api/v1/customers', Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== '')));
    await queryClient.invalidateQueries({ queryKey: ['customers'] });
    toast(t('customers.createdToast', { name: created.name || created.email || created.id }));
    setOpen(false);
    navigate(`/customers/${created.id}`);
  };
  return (
    <>
      <button type="button" className="button primary" onClick={() => setOpen(true)}>{t('customers.create')}</button>
      <CustomerDialog open={open} title={t('customers.createTitle')} confirmLabel={t('customers.create')} onSubmit={create} onClose={() => setOpen(false)} />
    </>
  );
}

export function CustomersPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const applied = { email: params.get('email') ?? '', externalId: params.get('externalId') ?? '' };
  const [draft, setDraft] = useState(applied);
  const cursor = useCursor();
  const mayCreate = usePermissions().can('POST', '/api/v1/customers');
  const customers = useQuery({
    queryKey: ['customers', applied, cursor.startingAfter],
    queryFn: () => api.get<ApiPage<Customer>>('/api/v1/customers', { ...applied, limit: 20, startingAfter: cursor.startingAfter }),
    placeholderData: (previous) => previous,
  });
  const apply = (values: typeof applied) => {
    const next = new URLSearchParams();
    if (values.email.trim()) next.set('email', values.email.trim());
    if (values.externalId.trim()) next.set('externalId', values.externalId.trim());
    cursor.reset();
    setParams(next);
  };
  const column = createColumnHelper<Customer>();
  const columns = [
    column.accessor((c) => c.name || c.email || c.id, {
      id: 'name', header: t('customers.name'),
      cell: (c) => <Link to={`/customers/${c.row.original.id}`}>{c.getValue()}</Link>,
    }),
    column.accessor('email', { header: t('customers.email'), cell: (c) => c.getValue() ?? '—' }),
    column.accessor('externalId', { header: t('customers.externalId'), cell: (c) => c.getValue() ?? '—' }),
    column.accessor('createdAt', { header: t('customers.created'), cell: (c) => <DateTime value={c.getValue()} /> }),
  ];
  return (
    <Page title={t('customers.title')} actions={mayCreate && <NewCustomer />}>
      <Filters label={t('customers.filters')} onApply={() => apply(draft)} onReset={() => { const empty = { email: '', externalId: '' }; setDraft(empty); apply(empty); }}>
        <TextField label={t('customers.email')} type="email" value={draft.email} onChange={(e) => setDraft({ ...draft, email: e.target.value })} />
        <TextField label={t('customers.externalId')} value={draft.externalId} onChange={(e) => setDraft({ ...draft, externalId: e.target.value })} />
      </Filters>
      <QueryView query={customers}>
        {(page) => (
          <>
            <DataTable caption={t('customers.caption')} columns={columns} data={page.data} rowKey={(c) => c.id} empty={Object.values(applied).some(Boolean) ? t('customers.empty') : <LiveEmpty title={t('liveEmpty.customers')} testText={t('customers.empty')} />} />
            <Pager cursor={cursor} hasMore={page.hasMore} lastId={page.data[page.data.length - 1]?.id} />
          </>
        )}
      </QueryView>
    </Page>
  );
}
