// Disputes: newest first, filtered by status, each linking to its page, with the deadline to answer.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../api.js';
import { DISPUTE_STATUSES, disputeOpen, type Dispute } from '../money-types.js';
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
import { disputeReasonLabel } from './money/disputes.js';
import { CsvButton } from './money/CsvButton.js';
import { ObjectName } from '../components/ObjectName.js';
import { LiveEmpty } from './go-live/LiveEmpty.js';

export function DisputesPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const [draft, setDraft] = useState(status);
  const cursor = useCursor();
  const disputes = useQuery({
    queryKey: ['disputes', status, cursor.startingAfter],
    queryFn: () => api.get<ApiPage<Dispute>>('/api/v1/disputes', { status, limit: 20, startingAfter: cursor.startingAfter }),
    placeholderData: (previous) => previous,
  });
  const apply = (value: string) => {
    cursor.reset();
    setParams(value ? new URLSearchParams({ status: value }) : new URLSearchParams());
  };
  const column = createColumnHelper<Dispute>();
  const columns = [
    column.accessor('createdAt', { header: t('disputes.opened'), cell: (c) => <Link to={`/disputes/${c.row.original.id}`}><DateTime value={c.getValue()} /></Link> }),
    column.accessor('reason', { header: t('disputes.reason'), cell: (c) => disputeReasonLabel(t, c.getValue()) }),
    column.accessor('amount', { header: t('disputes.amount'), meta: NUMERIC, cell: (c) => <Money amount={c.getValue()} currency={c.row.original.currency} eurCents={c.row.original.amountEur} /> }),
    column.accessor('status', { header: t('disputes.status'), cell: (c) => <StatusBadge status={c.getValue()} /> }),
    column.accessor('evidenceDueBy', { header: t('disputes.dueBy'), cell: (c) => (disputeOpen(c.row.original) ? <DateTime value={c.getValue()} /> : '—') }),
    column.accessor('paymentId', { header: t('disputes.payment'), cell: (c) => <ObjectName id={c.getValue()} /> }),
  ];
  return (
    <Page title={t('disputes.title')} actions={<CsvButton path="/api/v1/disputes" query={{ status }} filename="disputes.csv" />}>
      <Filters label={t('disputes.filters')} onApply={() => apply(draft)} onReset={() => { setDraft(''); apply(''); }}>
        <SelectField label={t('disputes.status')} value={draft} onChange={(e) => setDraft(e.target.value)}>
          <option value="">{t('common.all')}</option>
          {DISPUTE_STATUSES.map((s) => <option key={s} value={s}>{statusLabel(t, s)}</option>)}
        </SelectField>
      </Filters>
      <QueryView query={disputes}>
        {(page) => (
          <>
            <DataTable caption={t('disputes.caption')} columns={columns} data={page.data} rowKey={(d) => d.id} empty={status ? t('disputes.empty') : <LiveEmpty title={t('liveEmpty.disputes')} testText={t('disputes.empty')} />} />
            <Pager cursor={cursor} hasMore={page.hasMore} lastId={page.data[page.data.length - 1]?.id} />
          </>
        )}
      </QueryView>
    </Page>
  );
}
