// Customers: newest first, found by email or external id (the API's own filters, kept in the address), each linking to
// its page.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link, useSearchParams } from 'react-router';
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

export function CustomersPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const applied = { email: params.get('email') ?? '', externalId: params.get('externalId') ?? '' };
  const [draft, setDraft] = useState(applied);
  const cursor = useCursor();
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
    <Page title={t('customers.title')}>
      <Filters label={t('customers.filters')} onApply={() => apply(draft)} onReset={() => { const empty = { email: '', externalId: '' }; setDraft(empty); apply(empty); }}>
        <TextField label={t('customers.email')} type="email" value={draft.email} onChange={(e) => setDraft({ ...draft, email: e.target.value })} />
        <TextField label={t('customers.externalId')} value={draft.externalId} onChange={(e) => setDraft({ ...draft, externalId: e.target.value })} />
      </Filters>
      <QueryView query={customers}>
        {(page) => (
          <>
            <DataTable caption={t('customers.caption')} columns={columns} data={page.data} rowKey={(c) => c.id} empty={t('customers.empty')} />
            <Pager cursor={cursor} hasMore={page.hasMore} lastId={page.data[page.data.length - 1]?.id} />
          </>
        )}
      </QueryView>
    </Page>
  );
}
