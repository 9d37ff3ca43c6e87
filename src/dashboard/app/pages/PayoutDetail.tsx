// One payout: its amount, status, account and dates, Cancel while it is pending (behind its confirmation: the amount
// goes back to the available balance), and the balance transactions it carries, with their CSV.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, saveBlob, type Page as ApiPage } from '../api.js';
import type { BalanceTransaction, BankAccount, Payout } from '../money-types.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { DateTime } from '../components/DateTime.js';
import { ErrorMessage } from '../components/ErrorMessage.js';
import { Money } from '../components/Money.js';
import { Page, Section } from '../components/Page.js';
import { Pager, useCursor } from '../components/Pager.js';
import { QueryView } from '../components/QueryView.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { useToast } from '../components/Toasts.js';
import { TransactionsTable } from './money/Transactions.js';
import { useMayChange } from './money/permissions.js';

export function PayoutDetailPage() {
  const { id = '' } = useParams();
  const payout = useQuery({ queryKey: ['payout', id], queryFn: () => api.get<Payout>(`/api/v1/payouts/${encodeURIComponent(id)}`) });
  return <QueryView query={payout}>{(found) => <PayoutView payout={found} />}</QueryView>;
}

function PayoutView({ payout }: { payout: Payout }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const toast = useToast();
  const cursor = useCursor();
  const mayCancel = useMayChange('money-out');
  const transactions = useQuery({
    queryKey: ['payout-transactions', payout.id, cursor.startingAfter],
    queryFn: () => api.get<ApiPage<BalanceTransaction>>(`/api/v1/payouts/${payout.id}/transactions`, { limit: 20, startingAfter: cursor.startingAfter }),
    placeholderData: (previous) => previous,
  });
  const account = useQuery({ queryKey: ['bank-account', payout.bankAccountId], queryFn: () => api.get<BankAccount>(`/api/v1/bank-accounts/${payout.bankAccountId}`), retry: false });
  const [cancelling, setCancelling] = useState(false);
  const [exportError, setExportError] = useState<unknown>(null);
  const cancel = async () => {
    await api.post<Payout>(`/api/v1/payouts/${payout.id}/cancel`, {});
    await Promise.all(['payout', 'payouts', 'balance', 'payout-transactions'].map((key) => queryClient.invalidateQueries({ queryKey: [key] })));
    toast(t('payouts.cancelled'));
  };
  const exportCsv = async () => {
    setExportError(null);
    try {
      saveBlob(await api.blob(`/api/v1/payouts/${payout.id}/transactions`, {}, 'text/csv'), `${payout.id}-transactions.csv`);
    } catch (error) {
      setExportError(error);
    }
  };
  return (
    <Page
      title={t('payouts.detailTitle', { id: payout.id })}
      actions={mayCancel && payout.status === 'pending' && <button type="button" className="button secondary" onClick={() => setCancelling(true)}>{t('payouts.cancel')}</button>}
    >
      <p><Link to="/payouts">{t('payouts.backToList')}</Link></p>
      <Section title={t('payouts.summary')}>
        <p className="amount-hero"><Money amount={payout.amount} currency={payout.currency} /></p>
        <p><StatusBadge status={payout.status} /></p>
        <dl className="facts">
          <dt>{t('payouts.id')}</dt><dd><code>{payout.id}</code></dd>
          <dt>{t('payouts.kind')}</dt><dd>{payout.automatic ? t('payouts.automatic') : t('payouts.manual')}</dd>
          <dt>{t('payouts.bankAccount')}</dt><dd>{account.data ? `${account.data.holderName} · ${account.data.country} •••• ${account.data.last4}` : <code>{payout.bankAccountId}</code>}</dd>
          <dt>{t('payouts.created')}</dt><dd><DateTime value={payout.createdAt} /></dd>
          <dt>{t('payouts.arrival')}</dt><dd><DateTime value={payout.arrivalDate} /></dd>
          <dt>{t('payouts.description')}</dt><dd>{payout.description ?? '—'}</dd>
          {payout.failureReason && <><dt>{t('payouts.failure')}</dt><dd>{t(`payouts.failures.${payout.failureReason}` as 'payouts.failures.declined', { defaultValue: payout.failureMessage ?? payout.failureReason })}</dd></>}
        </dl>
      </Section>
      <Section title={t('payouts.transactions')} actions={<button type="button" className="button secondary" onClick={exportCsv}>{t('balance.exportCsv')}</button>}>
        <ErrorMessage error={exportError} />
        <QueryView query={transactions}>
          {(page) => (
            <>
              <TransactionsTable caption={t('payouts.transactionsCaption')} data={page.data} />
              <Pager cursor={cursor} hasMore={page.hasMore} lastId={page.data[page.data.length - 1]?.id} />
            </>
          )}
        </QueryView>
      </Section>
      <ConfirmDialog open={cancelling} title={t('payouts.cancelTitle')} confirmLabel={t('payouts.cancel')} danger onConfirm={cancel} onClose={() => setCancelling(false)}>
        <p>{t('payouts.cancelText')} <Money amount={payout.amount} currency={payout.currency} /></p>
      </ConfirmDialog>
    </Page>
  );
}
