// One subscription: amount and period, next due date, the due dates opened with their attempts (refusal codes) and
// invoices; Cancel (now, or at the end of the period) and Retry of a past-due one, each behind its confirmation; and
// a card link for the customer to save a card that charges this subscription (its address shown to copy).
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../api.js';
import type { CardLink, Customer, DueDate, PaymentMethod, Subscription } from '../money-types.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { DataTable } from '../components/DataTable.js';
import { DateTime } from '../components/DateTime.js';
import { CheckboxField } from '../components/Form.js';
import { Money } from '../components/Money.js';
import { Page, Section } from '../components/Page.js';
import { QueryView } from '../components/QueryView.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { useToast } from '../components/Toasts.js';
import { intervalText } from './money/intervals.js';
import { useMayChange } from './money/permissions.js';
import { ObjectName } from '../components/ObjectName.js';

type Action = 'cancel' | 'retry' | 'card-link' | null;

export function SubscriptionDetailPage() {
  const { id = '' } = useParams();
  const subscription = useQuery({ queryKey: ['subscription', id], queryFn: () => api.get<Subscription>(`/api/v1/subscriptions/${encodeURIComponent(id)}`) });
  return <QueryView query={subscription}>{(found) => <SubscriptionView subscription={found} />}</QueryView>;
}

function SubscriptionView({ subscription }: { subscription: Subscription }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const toast = useToast();
  const dueDates = useQuery({
    queryKey: ['subscription-due-dates', subscription.id],
    queryFn: () => api.get<ApiPage<DueDate>>(`/api/v1/subscriptions/${subscription.id}/due-dates`, { limit: 50 }),
  });
  const customer = useQuery({ queryKey: ['customer', subscription.customerId], queryFn: () => api.get<Customer>(`/api/v1/customers/${subscription.customerId}`) });
  const card = useQuery({
    queryKey: ['payment-method', subscription.paymentMethodId],
    queryFn: () => api.get<PaymentMethod>(`/api/v1/payment-methods/${subscription.paymentMethodId}`),
    enabled: Boolean(subscription.paymentMethodId),
  });
  const [action, setAction] = useState<Action>(null);
  const [atPeriodEnd, setAtPeriodEnd] = useState(false);
  const [sendEmail, setSendEmail] = useState(false);
  const [link, setLink] = useState<CardLink | null>(null);
  const [copied, setCopied] = useState(false);
  const mayChange = useMayChange('billing');
  const live = mayChange && subscription.status === 'active' || subscription.status === 'past_due' || subscription.status === 'waiting_mandate';
  const cancellable = live && !subscription.cancelAt;

  const done = async (next: Subscription, message: string) => {
    queryClient.setQueryData(['subscription', subscription.id], next);
    await Promise.all(['subscriptions', 'subscription-due-dates'].map((key) => queryClient.invalidateQueries({ queryKey: [key] })));
    toast(message);
  };
  const cancel = async () => {
    const next = await api.post<Subscription>(`/api/v1/subscriptions/${subscription.id}/cancel`, atPeriodEnd ? { atPeriodEnd: true } : {});
    await done(next, atPeriodEnd ? t('subscriptions.cancelScheduled') : t('subscriptions.cancelled'));
  };
  const retry = async () => {
    await done(await api.post<Subscription>(`/api/v1/subscriptions/${subscription.id}/retry`, {}), t('subscriptions.retried'));
  };
  const createLink = async () => {
    const created = await api.post<CardLink>(`/api/v1/customers/${subscription.customerId}/card-links`, { subscriptionId: subscription.id, sendEmail });
    setLink(created);
    setCopied(false);
    toast(cardLinkOutcome(created.emailStatus));
  };
  /** What creating the link did about mail: mailed to the customer, or the link to share (cardLinkNotMailed). */
  const cardLinkOutcome = (status: string) => {
    const email = customer.data?.email ?? '';
    if (status === 'queued' || status === 'sent') return t('subscriptions.cardLinkMailed', { email });
    if (status === 'not_sent' || status === 'failed') return t('subscriptions.cardLinkNotMailed');
    return t('subscriptions.cardLinkCreated');
  };
  const copy = async () => {
    if (!link) return;
    await navigator.clipboard?.writeText(link.url).catch(() => undefined);
    setCopied(true);
  };

  const column = createColumnHelper<DueDate>();
  const columns = [
    column.accessor('dueDate', { header: t('subscriptions.dueDate'), cell: (c) => <DateTime value={c.getValue()} /> }),
    column.accessor('status', { header: t('subscriptions.status'), cell: (c) => <StatusBadge status={c.getValue()} /> }),
    column.accessor('attempts', {
      header: t('subscriptions.attempts'),
      cell: (c) => (c.getValue().length === 0 ? '—' : (
        <ul className="plain-list">
          {c.getValue().map((a) => (
            <li key={a.paymentId + a.at}>
              <DateTime value={a.at} /> · <StatusBadge status={a.outcome} /> · <ObjectName id={a.paymentId} />
              {a.refusalCode && <> · {t('timeline.refusalCode')} <code>{a.refusalCode}</code></>}
            </li>
          ))}
        </ul>
      )),
    }),
    column.accessor('nextAttemptAt', { header: t('subscriptions.nextAttempt'), cell: (c) => <DateTime value={c.getValue()} /> }),
    column.accessor('invoiceId', { header: t('subscriptions.invoice'), cell: (c) => (c.getValue() ? <ObjectName id={c.getValue()!} /> : '—') }),
  ];

  return (
    <Page
      title={t('subscriptions.detailTitle', { name: subscription.description || subscription.id })}
      actions={
        <>
          {subscription.status === 'past_due' && <button type="button" className="button primary" onClick={() => setAction('retry')}>{t('subscriptions.retry')}</button>}
          {live && <button type="button" className="button secondary" onClick={() => { setSendEmail(false); setAction('card-link'); }}>{t('subscriptions.sendCardLink')}</button>}
          {cancellable && <button type="button" className="button secondary" onClick={() => { setAtPeriodEnd(false); setAction('cancel'); }}>{t('subscriptions.cancel')}</button>}
        </>
      }
    >
      <p><Link to="/subscriptions">{t('subscriptions.backToList')}</Link></p>
      {link && (
        <div className="notice" role="region" aria-label={t('subscriptions.cardLinkUrl')}>
          <p className="send-outcome">{cardLinkOutcome(link.emailStatus)}</p>
          <p><strong>{t('subscriptions.cardLinkUrl')}</strong> {t('subscriptions.cardLinkNote')} <DateTime value={link.expiresAt} /></p>
          <div className="secret-box">
            <code className="card-link-url">{link.url}</code>
            <button type="button" className="button secondary small" onClick={copy}>{copied ? t('subscriptions.copied') : t('common.copy')}</button>
          </div>
        </div>
      )}
      <Section title={t('subscriptions.summary')}>
        <p className="amount-hero"><Money amount={subscription.amount} currency={subscription.currency} /></p>
        <p className="subscription-period">{intervalText(t, subscription)}</p>
        <p><StatusBadge status={subscription.status} /></p>
        <dl className="facts">
          <dt>{t('subscriptions.id')}</dt><dd><code>{subscription.id}</code></dd>
          <dt>{t('subscriptions.customer')}</dt>
          <dd><Link to={`/customers/${subscription.customerId}`}>{customer.data?.name || customer.data?.email || subscription.customerId}</Link></dd>
          <dt>{t('subscriptions.card')}</dt><dd>
            {!subscription.paymentMethodId ? t('subscriptions.noCard')
              : card.data ? `${card.data.brand} •••• ${card.data.last4} (${String(card.data.expMonth).padStart(2, '0')}/${card.data.expYear})`
              : <code>{subscription.paymentMethodId}</code>}
          </dd>
          <dt>{t('subscriptions.startDate')}</dt><dd><DateTime value={subscription.startDate} /></dd>
          <dt>{t('subscriptions.nextDueDate')}</dt><dd><DateTime value={subscription.nextDueDate} /></dd>
          <dt>{t('subscriptions.dueDatesOpened')}</dt><dd>{subscription.endAfter ? `${subscription.dueDatesOpened} / ${subscription.endAfter}` : subscription.dueDatesOpened}</dd>
          {subscription.cancelAt && <><dt>{t('subscriptions.cancelAt')}</dt><dd><DateTime value={subscription.cancelAt} /></dd></>}
          {subscription.cancelledAt && <><dt>{t('subscriptions.cancelledAt')}</dt><dd><DateTime value={subscription.cancelledAt} /></dd></>}
          <dt>{t('subscriptions.created')}</dt><dd><DateTime value={subscription.createdAt} /></dd>
        </dl>
      </Section>
      <Section title={t('subscriptions.dueDates')}>
        <QueryView query={dueDates}>
          {(page) => <DataTable caption={t('subscriptions.dueDatesCaption')} columns={columns} data={page.data} rowKey={(d) => d.dueDate} empty={t('subscriptions.noDueDate')} />}
        </QueryView>
      </Section>

      <ConfirmDialog open={action === 'cancel'} title={t('subscriptions.cancelTitle')} confirmLabel={t('subscriptions.cancel')} danger onConfirm={cancel} onClose={() => setAction(null)}>
        <fieldset className="choice">
          <legend>{t('subscriptions.cancelWhen')}</legend>
          <label><input type="radio" name="cancel-when" checked={!atPeriodEnd} onChange={() => setAtPeriodEnd(false)} /> {t('subscriptions.cancelNow')}</label>
          <label><input type="radio" name="cancel-when" checked={atPeriodEnd} onChange={() => setAtPeriodEnd(true)} /> {t('subscriptions.cancelAtPeriodEnd')}</label>
        </fieldset>
      </ConfirmDialog>
      <ConfirmDialog open={action === 'retry'} title={t('subscriptions.retryTitle')} confirmLabel={t('subscriptions.retry')} onConfirm={retry} onClose={() => setAction(null)}>
        <p>{t('subscriptions.retryText')} <Money amount={subscription.amount} currency={subscription.currency} /></p>
      </ConfirmDialog>
      <ConfirmDialog open={action === 'card-link'} title={t('subscriptions.cardLinkTitle')} confirmLabel={t('subscriptions.createCardLink')} onConfirm={createLink} onClose={() => setAction(null)}>
        <p>{t('subscriptions.cardLinkText')}</p>
        <CheckboxField label={t('subscriptions.sendEmail')} checked={sendEmail} onChange={(e) => setSendEmail(e.target.checked)} />
      </ConfirmDialog>
    </Page>
  );
}
