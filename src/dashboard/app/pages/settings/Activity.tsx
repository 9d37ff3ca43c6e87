// The team's activity: every change made from the back-office, who made it and how it ended (the audit log).
import { useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../../api.js';
import type { AuditEntry } from '../../types.js';
import { DataTable } from '../../components/DataTable.js';
import { DateTime } from '../../components/DateTime.js';
import { Pager, useCursor } from '../../components/Pager.js';
import { QueryView } from '../../components/QueryView.js';
import { StatusBadge } from '../../components/StatusBadge.js';

export function ActivityPart() {
  const { t } = useTranslation();
  const cursor = useCursor();
  const audit = useQuery({
    queryKey: ['audit', cursor.startingAfter],
    queryFn: () => api.get<ApiPage<AuditEntry>>('/dashboard/api/audit', { limit: 50, startingAfter: cursor.startingAfter }),
    placeholderData: (previous) => previous,
  });
  const column = createColumnHelper<AuditEntry>();
  const columns = [
    column.accessor('createdAt', { header: t('activity.when'), cell: (c) => <DateTime value={c.getValue()} /> }),
    column.accessor((e) => e.user?.email ?? '—', {
      id: 'user', header: t('activity.who'),
      cell: (c) => (c.row.original.actedBy?.keyId ? <>{c.getValue()} <span className="hint">{t('activity.withKey', { keyId: c.row.original.actedBy.keyId })}</span></> : c.getValue()),
    }),
    column.accessor('action', { header: t('activity.action'), cell: (c) => <code>{c.getValue()}</code> }),
    column.accessor('objectId', {
      header: t('activity.object'),
      cell: (c) => {
        const id = c.getValue();
        if (!id) return '—';
        return id.startsWith('pay_') ? <Link to={`/payments/${id}`}>{id}</Link> : <code>{id}</code>;
      },
    }),
    column.accessor('outcome', { header: t('activity.outcome'), cell: (c) => <><StatusBadge status={c.getValue()} />{c.row.original.statusCode ? ` ${c.row.original.statusCode}` : ''}</> }),
  ];
  return (
    <QueryView query={audit}>
      {(page) => (
        <>
          <DataTable caption={t('activity.caption')} columns={columns} data={page.data} rowKey={(e) => e.id} empty={t('activity.empty')} />
          <Pager cursor={cursor} hasMore={page.hasMore} lastId={page.data[page.data.length - 1]?.id} />
        </>
      )}
    </QueryView>
  );
}
