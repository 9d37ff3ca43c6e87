// The team's activity: every change made from the back-office as a sentence (who did what to which object, named as
// people know it) and how it ended (the audit log).
import { useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../../api.js';
import type { AuditEntry } from '../../types.js';
import { DataTable } from '../../components/DataTable.js';
import { DateTime } from '../../components/DateTime.js';
import { Pager, useCursor } from '../../components/Pager.js';
import { QueryView } from '../../components/QueryView.js';
import { StatusBadge } from '../../components/StatusBadge.js';
import { ActivitySentence } from '../../components/ActivitySentence.js';

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
    column.accessor('action', { header: t('activity.action'), cell: (c) => {
      const keyId = c.row.original.actedBy?.keyId;
      return <><ActivitySentence entry={c.row.original} />{keyId ? <> <span className="hint">{t('activity.withKey', { keyId })}</span></> : null}</>;
    } }),
    column.accessor('outcome', { header: t('activity.outcome'), cell: (c) => <StatusBadge status={c.getValue()} /> }),
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
