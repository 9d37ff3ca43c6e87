// The event log: every event of the mode, newest first (filter by type), each with its body and its deliveries on
// demand, and Resend where the event has a delivery to make again.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../../api.js';
import type { Delivery, MotuEvent } from '../../types.js';
import { DataTable } from '../../components/DataTable.js';
import { DateTime } from '../../components/DateTime.js';
import { Deliveries, ResendButton } from '../../components/Deliveries.js';
import { Filters } from '../../components/Filters.js';
import { TextField } from '../../components/Form.js';
import { Pager, useCursor } from '../../components/Pager.js';
import { QueryView } from '../../components/QueryView.js';

export function EventsPart() {
  const { t } = useTranslation();
  const cursor = useCursor();
  const [type, setType] = useState('');
  const [applied, setApplied] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const events = useQuery({
    queryKey: ['events', applied, cursor.startingAfter],
    queryFn: () => api.get<ApiPage<MotuEvent>>('/api/v1/events', { type: applied, limit: 20, startingAfter: cursor.startingAfter }),
    placeholderData: (previous) => previous,
  });

  const column = createColumnHelper<MotuEvent>();
  const columns = [
    column.accessor('type', { header: t('events.type'), cell: (c) => <code id={`event-${c.row.original.id}`}>{c.getValue()}</code> }),
    column.accessor('createdAt', { header: t('events.created'), cell: (c) => <DateTime value={c.getValue()} /> }),
    column.accessor('paymentId', { header: t('events.payment'), cell: (c) => (c.getValue() ? <Link to={`/payments/${c.getValue()}`}>{c.getValue()}</Link> : '—') }),
    column.display({
      id: 'deliveries', header: t('events.deliveries'),
      cell: (c) => {
        const id = c.row.original.id;
        return (
          <div>
            <div className="row-actions">
              <button type="button" className="button secondary small" aria-expanded={open === id} aria-describedby={`event-${id}`} onClick={() => setOpen(open === id ? null : id)}>
                {open === id ? t('events.hide') : t('events.show')}
              </button>
            </div>
            {open === id && <EventDetails event={c.row.original} />}
          </div>
        );
      },
    }),
  ];

  return (
    <>
      <Filters label={t('events.filterType')} onApply={() => { cursor.reset(); setApplied(type.trim()); }} onReset={() => { setType(''); cursor.reset(); setApplied(''); }}>
        <TextField label={t('events.filterType')} placeholder="payment.captured" value={type} onChange={(e) => setType(e.target.value)} />
      </Filters>
      <QueryView query={events}>
        {(page) => (
          <>
            <DataTable caption={t('events.caption')} columns={columns} data={page.data} rowKey={(e) => e.id} empty={t('events.empty')} />
            <Pager cursor={cursor} hasMore={page.hasMore} lastId={page.data[page.data.length - 1]?.id} />
          </>
        )}
      </QueryView>
    </>
  );
}

/** The body as the endpoints receive it, then the deliveries; Resend only when there is a delivery to make again. */
function EventDetails({ event }: { event: MotuEvent }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const id = event.id;
  const deliveries = useQuery({ queryKey: ['event-deliveries', id], queryFn: () => api.get<ApiPage<Delivery>>(`/api/v1/events/${encodeURIComponent(id)}/deliveries`) });
  const body = { id, type: event.type, createdAt: event.createdAt, data: event.data };
  return (
    <div className="event-details">
      <pre className="event-body" tabIndex={0} aria-label={t('events.body')}><code>{JSON.stringify(body, null, 2)}</code></pre>
      <QueryView query={deliveries}>
        {(page) => (
          <>
            <Deliveries deliveries={page.data} />
            {page.data.length > 0 && <ResendButton eventId={id} describedBy={`event-${id}`} onSent={() => void queryClient.invalidateQueries({ queryKey: ['event-deliveries', id] })} />}
          </>
        )}
      </QueryView>
    </div>
  );
}
