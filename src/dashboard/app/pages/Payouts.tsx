// Payouts: the list (newest first, each linking to its page), a manual payout of the available balance (all of it or
// an amount, to the currency's default account or a chosen one) behind its confirmation, and the bank accounts
// (add with an IBAN, make one the default of its currency, delete). When payouts run by themselves is in Settings.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../api.js';
import type { Balance, BankAccount, Payout } from '../money-types.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { DataTable, NUMERIC } from '../components/DataTable.js';
import { DateTime } from '../components/DateTime.js';
import { SelectField, TextField } from '../components/Form.js';
import { Money } from '../components/Money.js';
import { MoneyField, useMoneyInput } from '../components/MoneyField.js';
import { formatAmount } from '../format.js';
import { useLang } from '../i18n.js';
import { Page, Section } from '../components/Page.js';
import { Pager, useCursor } from '../components/Pager.js';
import { QueryView } from '../components/QueryView.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { useToast } from '../components/Toasts.js';
import { useMayChange } from './money/permissions.js';
import { CsvButton } from './money/CsvButton.js';
import { LiveEmpty } from './go-live/LiveEmpty.js';

const CURRENCIES = ['EUR', 'XPF'] as const;

export function PayoutsPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const toast = useToast();
  const cursor = useCursor();
  const mayPayOut = useMayChange('money-out');
  const payouts = useQuery({
    queryKey: ['payouts', cursor.startingAfter],
    queryFn: () => api.get<ApiPage<Payout>>('/api/v1/payouts', { limit: 20, startingAfter: cursor.startingAfter }),
    placeholderData: (previous) => previous,
  });
  const accounts = useQuery({ queryKey: ['bank-accounts'], queryFn: () => api.get<ApiPage<BankAccount>>('/api/v1/bank-accounts', { limit: 100 }) });
  const balance = useQuery({ queryKey: ['balance'], queryFn: () => api.get<Balance>('/api/v1/balance') });
  const [creating, setCreating] = useState(false);
  const lang = useLang();
  const [form, setForm] = useState({ currency: 'EUR', bankAccountId: '', description: '' });
  const available = balance.data?.available.find((b) => b.currency === form.currency)?.amount ?? 0;
  const amount = useMoneyInput(form.currency, available > 0 ? { max: available } : {});
  const money = (minor: number) => formatAmount(minor, form.currency, lang);
  const accountsOf = (currency: string) => (accounts.data?.data ?? []).filter((a) => a.currency === currency);

  const openCreate = () => {
    setForm({ currency: 'EUR', bankAccountId: '', description: '' });
    amount.reset();
    setCreating(true);
  };
  const create = async () => {
    const minor = amount.amount();
    const payout = await api.post<Payout>('/api/v1/payouts', {
      currency: form.currency,
      ...(minor === null ? {} : { amount: minor }),
      ...(form.bankAccountId ? { bankAccountId: form.bankAccountId } : {}),
      ...(form.description.trim() ? { description: form.description.trim() } : {}),
    });
    cursor.reset();
    await Promise.all(['payouts', 'balance', 'balance-transactions', 'home'].map((key) => queryClient.invalidateQueries({ queryKey: [key] })));
    toast(t('payouts.createdToast', { id: payout.id }));
  };

  const column = createColumnHelper<Payout>();
  const columns = [
    column.accessor('createdAt', { header: t('payouts.created'), cell: (c) => <Link to={`/payouts/${c.row.original.id}`}><DateTime value={c.getValue()} /></Link> }),
    column.accessor('amount', { header: t('payouts.amount'), meta: NUMERIC, cell: (c) => <Money amount={c.getValue()} currency={c.row.original.currency} /> }),
    column.accessor('status', { header: t('payouts.status'), cell: (c) => <StatusBadge status={c.getValue()} /> }),
    column.accessor('automatic', { header: t('payouts.kind'), cell: (c) => (c.getValue() ? t('payouts.automatic') : t('payouts.manual')) }),
    column.accessor('arrivalDate', { header: t('payouts.arrival'), cell: (c) => <DateTime value={c.getValue()} /> }),
    column.accessor('description', { header: t('payouts.description'), cell: (c) => c.getValue() ?? '—' }),
  ];

  return (
    <Page title={t('payouts.title')} actions={<>{mayPayOut && <button type="button" className="button primary" onClick={openCreate}>{t('payouts.new')}</button>}<CsvButton path="/api/v1/payouts" filename="payouts.csv" /></>}>
      <p className="notice">{t('payouts.scheduleNote')} <Link to="/settings/payouts">{t('payouts.scheduleLink')}</Link></p>
      <QueryView query={payouts}>
        {(page) => (
          <>
            <DataTable caption={t('payouts.caption')} columns={columns} data={page.data} rowKey={(p) => p.id} empty={<LiveEmpty title={t('liveEmpty.payouts')} testText={t('payouts.empty')} />} />
            <Pager cursor={cursor} hasMore={page.hasMore} lastId={page.data[page.data.length - 1]?.id} />
          </>
        )}
      </QueryView>
      <BankAccounts />

      <ConfirmDialog currency={form.currency} open={creating} title={t('payouts.newTitle')} confirmLabel={t('payouts.confirmCreate')} onConfirm={create} onClose={() => setCreating(false)}>
        <SelectField label={t('payouts.currency')} value={form.currency} onChange={(e) => setForm({ ...form, currency: e.target.value, bankAccountId: '' })}>
          {CURRENCIES.map((c) => <option key={c} value={c}>{c}</option>)}
        </SelectField>
        <p>{t('payouts.availableNow')} <Money amount={available} currency={form.currency} /></p>
        <MoneyField
          label={t('payouts.amountField')} {...amount}
          describe={(minor) => (minor === null
            ? t('payouts.payoutAll', { amount: money(available) })
            : t('payouts.payoutPreview', { amount: money(minor), left: money(available - minor) }))}
        />
        <SelectField label={t('payouts.bankAccount')} value={form.bankAccountId} onChange={(e) => setForm({ ...form, bankAccountId: e.target.value })}>
          <option value="">{t('payouts.defaultAccount')}</option>
          {accountsOf(form.currency).map((a) => <option key={a.id} value={a.id}>{`${a.holderName} · ${a.country} •••• ${a.last4}`}</option>)}
        </SelectField>
        <TextField label={t('payouts.descriptionField')} maxLength={200} value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} />
      </ConfirmDialog>
    </Page>
  );
}

type AccountAction = { kind: 'add' } | { kind: 'default' | 'delete'; account: BankAccount } | null;

function BankAccounts() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const toast = useToast();
  const accounts = useQuery({ queryKey: ['bank-accounts'], queryFn: () => api.get<ApiPage<BankAccount>>('/api/v1/bank-accounts', { limit: 100 }) });
  const mayChange = useMayChange('money-out');
  const [action, setAction] = useState<AccountAction>(null);
  const [form, setForm] = useState({ iban: '', holderName: '', currency: 'EUR', bic: '' });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['bank-accounts'] });

  const add = async () => {
    await api.post<BankAccount>('/api/v1/bank-accounts', {
      iban: form.iban.trim(), holderName: form.holderName.trim(), currency: form.currency, ...(form.bic.trim() ? { bic: form.bic.trim() } : {}),
    });
    await refresh();
    toast(t('bankAccounts.added'));
  };
  const makeDefault = async (account: BankAccount) => {
    await api.patch<BankAccount>(`/api/v1/bank-accounts/${account.id}`, { default: true });
    await refresh();
    toast(t('bankAccounts.madeDefault'));
  };
  const remove = async (account: BankAccount) => {
    await api.del(`/api/v1/bank-accounts/${account.id}`);
    await refresh();
    toast(t('bankAccounts.deleted'));
  };

  const column = createColumnHelper<BankAccount>();
  const columns = [
    column.accessor('holderName', { header: t('bankAccounts.holder') }),
    column.accessor((a) => `${a.country} •••• ${a.last4}`, { id: 'iban', header: t('bankAccounts.iban') }),
    column.accessor('currency', { header: t('bankAccounts.currency') }),
    column.accessor('default', { header: t('bankAccounts.default'), cell: (c) => (c.getValue() ? t('bankAccounts.isDefault') : '—') }),
    column.accessor('status', { header: t('bankAccounts.status'), cell: (c) => <StatusBadge status={c.getValue()} /> }),
    ...(!mayChange ? [] : [column.display({
      id: 'actions', header: t('common.actions'),
      cell: (c) => {
        const account = c.row.original;
        const name = `${account.country} •••• ${account.last4}`;
        return (
          <div className="row-actions">
            {!account.default && (
              <button type="button" className="button secondary small" aria-label={t('bankAccounts.makeDefaultOf', { name })} onClick={() => setAction({ kind: 'default', account })}>
                {t('bankAccounts.makeDefault')}
              </button>
            )}
            <button type="button" className="button secondary small" aria-label={t('bankAccounts.deleteOf', { name })} onClick={() => setAction({ kind: 'delete', account })}>
              {t('common.delete')}
            </button>
          </div>
        );
      },
    })]),
  ];
  const target = action && action.kind !== 'add' ? action.account : null;

  return (
    <Section
      title={t('bankAccounts.title')}
      actions={mayChange && <button type="button" className="button secondary" onClick={() => { setForm({ iban: '', holderName: '', currency: 'EUR', bic: '' }); setAction({ kind: 'add' }); }}>{t('bankAccounts.add')}</button>}
    >
      <QueryView query={accounts}>
        {(page) => <DataTable caption={t('bankAccounts.caption')} columns={columns} data={page.data} rowKey={(a) => a.id} empty={t('bankAccounts.empty')} />}
      </QueryView>
      <ConfirmDialog open={action?.kind === 'add'} title={t('bankAccounts.addTitle')} confirmLabel={t('bankAccounts.addConfirm')} onConfirm={add} onClose={() => setAction(null)}>
        <TextField label={t('bankAccounts.iban')} required autoComplete="off" spellCheck={false} value={form.iban} onChange={(e) => setForm({ ...form, iban: e.target.value })} hint={t('bankAccounts.ibanHint')} />
        <TextField label={t('bankAccounts.holder')} required maxLength={140} value={form.holderName} onChange={(e) => setForm({ ...form, holderName: e.target.value })} />
        <SelectField label={t('bankAccounts.currency')} value={form.currency} onChange={(e) => setForm({ ...form, currency: e.target.value })}>
          {CURRENCIES.map((c) => <option key={c} value={c}>{c}</option>)}
        </SelectField>
        <TextField label={t('bankAccounts.bic')} maxLength={11} value={form.bic} onChange={(e) => setForm({ ...form, bic: e.target.value })} hint={t('bankAccounts.bicHint')} />
      </ConfirmDialog>
      <ConfirmDialog open={action?.kind === 'default'} title={t('bankAccounts.defaultTitle')} confirmLabel={t('bankAccounts.makeDefault')} onConfirm={() => makeDefault(target!)} onClose={() => setAction(null)}>
        {target && <p>{t('bankAccounts.defaultText', { name: `${target.holderName} · ${target.country} •••• ${target.last4}`, currency: target.currency })}</p>}
      </ConfirmDialog>
      <ConfirmDialog open={action?.kind === 'delete'} title={t('bankAccounts.deleteTitle')} confirmLabel={t('common.delete')} danger onConfirm={() => remove(target!)} onClose={() => setAction(null)}>
        {target && <p>{t('bankAccounts.deleteText', { name: `${target.holderName} · ${target.country} •••• ${target.last4}` })}</p>}
      </ConfirmDialog>
    </Section>
  );
}
