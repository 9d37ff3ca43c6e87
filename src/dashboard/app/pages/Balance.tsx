// Balance: what is available and pending per currency, and the balance transactions (newest first, filtered by type
// and dates in the merchant's time zone) with the CSV of every matching one.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, saveBlob, type Page as ApiPage } from '../api.js';
import { startOfDay } from '../format.js';
import { TRANSACTION_TYPES, type Balance, type BalanceTransaction } from '../money-types.js';
import { useTimeZone } from '../components/DateTime.js';
import { ErrorMessage } from '../components/ErrorMessage.js';
import { Filters } from '../components/Filters.js';
import { SelectField, TextField } from '../components/Form.js';
import { Page, Section } from '../components/Page.js';
import { Pager, useCursor } from '../components/Pager.js';
import { QueryView } from '../components/QueryView.js';
import { BalanceCards } from './money/BalanceCards.js';
import { TransactionsTable, transactionTypeLabel } from './money/Transactions.js';

const FILTERS = ['type', 'from', 'to'] as const;
type FilterValues = Record<(typeof FILTERS)[number], string>;

export function BalancePage() {
  const { t } = useTranslation();
  const timeZone = useTimeZone();
  const [params, setParams] = useSearchParams();
  const applied: FilterValues = { type: params.get('type') ?? '', from: params.get('from') ?? '', to: params.get('to') ?? '' };
  const [draft, setDraft] = useState(applied);
  const cursor = useCursor();
  const query = {
    type: applied.type,
    createdAfter: applied.from ? startOfDay(applied.from, timeZone) : undefined,
    createdBefore: applied.to ? startOfDay(applied.to, timeZone, 1) : undefined,
  };
  const balance = useQuery({ queryKey: ['balance'], queryFn: () => api.get<Balance>('/api/v1/balance') });
  const transactions = useQuery({
    queryKey: ['balance-transactions', query, cursor.startingAfter],
    queryFn: () => api.get<ApiPage<BalanceTransaction>>('/api/v1/balance-transactions', { ...query, limit: 20, startingAfter: cursor.startingAfter }),
    placeholderData: (previous) => previous,
  });
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<unknown>(null);
  const apply = (values: FilterValues) => {
    const next = new URLSearchParams();
    for (const name of FILTERS) if (values[name].trim()) next.set(name, values[name].trim());
    cursor.reset();
    setParams(next);
  };
  const exportCsv = async () => {
    setExporting(true);
    setExportError(null);
    try {
      saveBlob(await api.blob('/api/v1/balance-transactions', query, 'text/csv'), 'balance-transactions.csv');
    } catch (error) {
      setExportError(error);
    } finally {
      setExporting(false);
    }
  };
  return (
    <Page title={t('balance.title')} actions={<Link className="button secondary" to="/payouts">{t('nav.payouts')}</Link>}>
      <Section title={t('balance.title')}>
        <QueryView query={balance}>{(data) => <BalanceCards balance={data} />}</QueryView>
      </Section>
      <Section title={t('balance.transactions')} actions={<button type="button" className="button secondary" onClick={exportCsv} disabled={exporting}>{t('balance.exportCsv')}</button>}>
        <ErrorMessage error={exportError} />
        <Filters label={t('balance.filters')} onApply={() => apply(draft)} onReset={() => { const empty = { type: '', from: '', to: '' }; setDraft(empty); apply(empty); }}>
          <SelectField label={t('balance.type')} value={draft.type} onChange={(e) => setDraft({ ...draft, type: e.target.value })}>
            <option value="">{t('common.all')}</option>
            {TRANSACTION_TYPES.map((type) => <option key={type} value={type}>{transactionTypeLabel(t, type)}</option>)}
          </SelectField>
          <TextField label={t('payments.from')} type="date" value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
          <TextField label={t('payments.to')} type="date" value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} />
        </Filters>
        <QueryView query={transactions}>
          {(page) => (
            <>
              <TransactionsTable caption={t('balance.transactionsCaption')} data={page.data} />
              <Pager cursor={cursor} hasMore={page.hasMore} lastId={page.data[page.data.length - 1]?.id} />
            </>
          )}
        </QueryView>
      </Section>
    </Page>
  );
}
