// Test clocks (test mode): frozen times that subscriptions and other time-driven objects follow; created at a time,
// then advanced. Times are typed and shown in the merchant's time zone.
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../../api.js';
import { toZonedLocal, zonedToIso } from '../../format.js';
import type { TestClock } from '../../types.js';
import { DataTable } from '../../components/DataTable.js';
import { DateTime, useTimeZone } from '../../components/DateTime.js';
import { ErrorMessage } from '../../components/ErrorMessage.js';
import { useErrorText } from '../../errors.js';
import { TextField } from '../../components/Form.js';
import { Section } from '../../components/Page.js';
import { QueryView } from '../../components/QueryView.js';
import { StatusBadge } from '../../components/StatusBadge.js';
import { useToast } from '../../components/Toasts.js';
import { usePermissions } from '../../permissions.js';

const KEY = ['test-clocks'];

export function TestClocksPart() {
  const { t } = useTranslation();
  const timeZone = useTimeZone();
  const queryClient = useQueryClient();
  const clocks = useQuery({ queryKey: KEY, queryFn: () => api.get<ApiPage<TestClock>>('/api/v1/test-helpers/test-clocks', { limit: 100 }) });
  const [name, setName] = useState('');
  const [frozen, setFrozen] = useState(() => toZonedLocal(new Date().toISOString(), timeZone));
  const [error, setError] = useState<unknown>(null);
  const { can } = usePermissions();

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const frozenTime = zonedToIso(frozen, timeZone);
      if (!frozenTime) throw new Error(t('testClocks.badTime'));
      await api.post('/api/v1/test-helpers/test-clocks', { frozenTime, ...(name.trim() ? { name: name.trim() } : {}) });
      setName('');
      await queryClient.invalidateQueries({ queryKey: KEY });
    } catch (err) {
      setError(err);
    }
  };

  const column = createColumnHelper<TestClock>();
  const columns = [
    column.accessor('name', { header: t('testClocks.name'), cell: (c) => c.getValue() ?? <code>{c.row.original.id}</code> }),
    column.accessor('frozenTime', { header: t('testClocks.frozenTime'), cell: (c) => <DateTime value={c.getValue()} /> }),
    column.accessor('status', { header: t('testClocks.status'), cell: (c) => <StatusBadge status={c.getValue()} /> }),
    column.display({ id: 'advance', header: t('testClocks.advance'), cell: (c) => <AdvanceForm clock={c.row.original} /> }),
  ];

  return (
    <>
      {can('POST', '/api/v1/test-helpers/test-clocks') && (
        <Section title={t('testClocks.create')}>
          <p>{t('testClocks.intro')}</p>
          <form className="grid-form" onSubmit={create}>
            <TextField label={t('testClocks.name')} value={name} onChange={(e) => setName(e.target.value)} />
            <TextField label={t('testClocks.frozenTime')} type="datetime-local" required value={frozen} onChange={(e) => setFrozen(e.target.value)} hint={timeZone} />
            <div><button type="submit" className="button primary">{t('testClocks.createButton')}</button></div>
          </form>
          <ErrorMessage error={error} />
        </Section>
      )}
      <QueryView query={clocks}>
        {(page) => <DataTable caption={t('testClocks.caption')} columns={columns} data={page.data} rowKey={(c) => c.id} empty={t('testClocks.empty')} />}
      </QueryView>
    </>
  );
}

function AdvanceForm({ clock }: { clock: TestClock }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const timeZone = useTimeZone();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [to, setTo] = useState(() => toZonedLocal(clock.frozenTime, timeZone));
  const { can } = usePermissions();
  const advance = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const frozenTime = zonedToIso(to, timeZone);
      if (!frozenTime) throw new Error(t('testClocks.badTime'));
      await api.post(`/api/v1/test-helpers/test-clocks/${clock.id}/advance`, { frozenTime });
      await queryClient.invalidateQueries({ queryKey: KEY });
      toast(t('testClocks.advanced'));
    } catch (err) {
      toast(errorText(err));
    }
  };
  if (!can('POST', '/api/v1/test-helpers/test-clocks/:id/advance')) return null;
  return (
    <form className="row-actions" onSubmit={advance}>
      <TextField label={t('testClocks.advanceTo', { name: clock.name ?? clock.id })} type="datetime-local" required value={to} onChange={(e) => setTo(e.target.value)} />
      <button type="submit" className="button secondary small" disabled={clock.status === 'advancing'}>{t('testClocks.advance')}</button>
    </form>
  );
}
