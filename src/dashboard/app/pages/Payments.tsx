// Payments: every matching payment, newest first, filtered through the API's own query parameters (kept in the
// address, so a filtered list can be bookmarked and shared), one page of 20 at a time, and the CSV of all of them.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, saveBlob, type Page as ApiPage } from '../api.js';
import { startOfDay } from '../format.js';
import { useLang } from '../i18n.js';
import { isCurrency } from '../../../shared/money.js';
import { amountToInput } from '../../../shared/money-input.js';
import type { Payment, Store } from '../types.js';
import { DataTable, NUMERIC } from '../components/DataTable.js';
import { DateTime, useTimeZone } from '../components/DateTime.js';
import { ErrorMessage } from '../components/ErrorMessage.js';
import { Filters } from '../components/Filters.js';
import { SelectField, TextField } from '../components/Form.js';
import { Money } from '../components/Money.js';
import { MoneyField, useAmountReader } from '../components/MoneyField.js';
import { Page } from '../components/Page.js';
import { Pager, useCursor } from '../components/Pager.js';
import { QueryView } from '../components/QueryView.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { statusLabel } from '../labels.js';
import { LiveEmpty } from './go-live/LiveEmpty.js';
import { actingFor } from '../acting.js';
import { useMe } from '../session.js';

const STATUSES = ['pending', 'transit', 'captured', 'failed', 'cancelled', 'expired', 'partially_refunded', 'refunded'];
const FILTERS = ['status', 'from', 'to', 'currency', 'amountMin', 'amountMax', 'storeId', 'reference', 'customerEmail', 'cardLast4', 'q'] as const;
type FilterName = (typeof FILTERS)[number];
type FilterValues = Record<FilterName, string>;

function readFilters(params: URLSearchParams): FilterValues {
  return Object.fromEntries(FILTERS.map((name) => [name, params.get(name) ?? ''])) as FilterValues;
}

const AMOUNTS = ['amountMin', 'amountMax'] as const;

/**
 * The filters as the form shows them: the address keeps the amounts as the API takes them (minor units of the chosen
 * currency), the form in the currency's units as they are typed ("25,50").
 */
function draftOf(applied: FilterValues, lang: string): FilterValues {
  const draft = { ...applied };
  for (const name of AMOUNTS) {
    const minor = Number(applied[name]);
    if (applied[name] && isCurrency(applied.currency) && Number.isSafeInteger(minor) && minor >= 0) draft[name] = amountToInput(minor, applied.currency, lang);
  }
  return draft;
}

/** The filters as GET /api/v1/payments takes them: the dates are whole days of the merchant's time zone. */
function apiQuery(filters: FilterValues, timeZone: string) {
  const { from, to, ...rest } = filters;
  return { ...rest, createdFrom: from ? startOfDay(from, timeZone) : undefined, createdTo: to ? startOfDay(to, timeZone, 1) : undefined };
}

export function PaymentsPage() {
  const { t } = useTranslation();
  const timeZone = useTimeZone();
  const [params, setParams] = useSearchParams();
  const lang = useLang();
  const readAmount = useAmountReader();
  const applied = readFilters(params);
  const [draft, setDraft] = useState<FilterValues>(() => draftOf(applied, lang));
  const cursor = useCursor();
  const query = apiQuery(applied, timeZone);
  const payments = useQuery({
    queryKey: ['payments', query, cursor.startingAfter],
    queryFn: () => api.get<ApiPage<Payment>>('/api/v1/payments', { ...query, limit: 20, startingAfter: cursor.startingAfter }),
    placeholderData: (previous) => previous,
  });
  // The stores are the signed-in merchant's: acting for a client, none is offered.
  const acting = actingFor(useMe()) !== null;
  const stores = useQuery({ queryKey: ['stores'], queryFn: () => api.get<ApiPage<Store>>('/dashboard/api/stores'), enabled: !acting });
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<unknown>(null);

  const apply = (values: FilterValues) => {
    const next = new URLSearchParams();
    const minor = { ...values };
    // An amount is in the chosen currency's units; a refused one is said under its field and nothing is applied.
    for (const name of AMOUNTS) {
      const state = values.currency ? readAmount(values[name], values.currency, { min: 0 }) : { kind: 'empty' as const };
      if (state.kind === 'error') return;
      minor[name] = state.kind === 'amount' ? String(state.amount) : '';
    }
    for (const name of FILTERS) if (minor[name].trim()) next.set(name, minor[name].trim());
    cursor.reset();
    setParams(next);
  };
  const set = (name: FilterName) => (event: { target: { value: string } }) => setDraft({ ...draft, [name]: event.target.value });
  // Amounts mean nothing without their currency: choosing "All" empties them.
  const setCurrency = (event: { target: { value: string } }) => setDraft({ ...draft, currency: event.target.value, ...(event.target.value ? {} : { amountMin: '', amountMax: '' }) });
  const exportCsv = async () => {
    setExporting(true);
    setExportError(null);
    try {
      saveBlob(await api.blob('/api/v1/payments', query, 'text/csv'), 'payments.csv');
    } catch (error) {
      setExportError(error);
    } finally {
      setExporting(false);
    }
  };

  const column = createColumnHelper<Payment>();
  const columns = [
    column.accessor('createdAt', { header: t('payments.created'), cell: (c) => <DateTime value={c.getValue()} /> }),
    column.accessor((p) => p.orderReference ?? p.reference, {
      id: 'reference', header: t('payments.reference'),
      cell: (c) => <Link to={`/payments/${c.row.original.id}`}>{c.getValue()}</Link>,
    }),
    column.accessor('email', { header: t('payments.customer'), cell: (c) => c.getValue() ?? '—' }),
    column.accessor('cardLast4', { header: t('payments.card'), cell: (c) => (c.getValue() ? `${c.row.original.cardBrand ?? ''} •••• ${c.getValue()}` : '—') }),
    column.accessor((p) => p.store?.name ?? '—', { id: 'store', header: t('payments.store') }),
    column.accessor('status', { header: t('payments.status'), cell: (c) => <StatusBadge status={c.getValue()} /> }),
    column.accessor('amount', { header: t('payments.amount'), meta: NUMERIC, cell: (c) => <Money amount={c.getValue()} currency={c.row.original.currency} eurCents={c.row.original.amountCents} /> }),
  ];

  return (
    <Page
      title={t('payments.title')}
      actions={<button type="button" className="button secondary" onClick={exportCsv} disabled={exporting}>{t('payments.exportCsv')}</button>}
    >
      <ErrorMessage error={exportError} />
      <Filters label={t('payments.filters')} onApply={() => apply(draft)} onReset={() => { const empty = readFilters(new URLSearchParams()); setDraft(empty); apply(empty); }}>
        <TextField label={t('payments.search')} type="search" value={draft.q} onChange={set('q')} hint={t('payments.searchHint')} />
        <SelectField label={t('payments.status')} value={draft.status} onChange={set('status')}>
          <option value="">{t('common.all')}</option>
          {STATUSES.map((s) => <option key={s} value={s}>{statusLabel(t, s)}</option>)}
        </SelectField>
        <TextField label={t('payments.from')} type="date" value={draft.from} onChange={set('from')} />
        <TextField label={t('payments.to')} type="date" value={draft.to} onChange={set('to')} />
        <SelectField label={t('payments.currency')} value={draft.currency} onChange={setCurrency}>
          <option value="">{t('common.all')}</option>
          <option value="XPF">XPF</option>
          <option value="EUR">EUR</option>
        </SelectField>
        {AMOUNTS.map((name) => (
          <MoneyField
            key={name} label={t(`payments.${name}`)} currency={draft.currency} min={0} disabled={!draft.currency}
            value={draft[name]} onChange={(text) => setDraft({ ...draft, [name]: text })}
            {...(draft.currency ? {} : { hint: t('payments.amountHint') })}
          />
        ))}
        <SelectField label={t('payments.store')} value={draft.storeId} onChange={set('storeId')}>
          <option value="">{t('common.all')}</option>
          {(stores.data?.data ?? []).map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
        </SelectField>
        <TextField label={t('payments.reference')} value={draft.reference} onChange={set('reference')} />
        <TextField label={t('payments.customerEmail')} type="email" value={draft.customerEmail} onChange={set('customerEmail')} />
        <TextField label={t('payments.cardLast4')} inputMode="numeric" pattern="[0-9]{4}" maxLength={4} value={draft.cardLast4} onChange={set('cardLast4')} />
      </Filters>
      <QueryView query={payments}>
        {(page) => (
          <>
            <DataTable
              caption={t('payments.caption')} columns={columns} data={page.data} rowKey={(p) => p.id}
              empty={FILTERS.some((name) => applied[name]) ? t('payments.empty') : <LiveEmpty title={t('liveEmpty.payments')} testText={t('payments.empty')} />}
            />
            <Pager cursor={cursor} hasMore={page.hasMore} lastId={page.data[page.data.length - 1]?.id} />
          </>
        )}
      </QueryView>
    </Page>
  );
}
