// A new subscription: the customer, one of its saved cards (or none yet: the subscription waits for one, and its page
// sends a card link), the amount in the currency's units, how often, the first due date and a description.
// Created as it is (POST /api/v1/subscriptions), then shown on its page.
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../api.js';
import type { PaymentMethod, Subscription } from '../money-types.js';
import { ErrorMessage } from '../components/ErrorMessage.js';
import { SelectField, TextField } from '../components/Form.js';
import { Money } from '../components/Money.js';
import { MoneyField, useMoneyInput } from '../components/MoneyField.js';
import { Page, Section } from '../components/Page.js';
import { intervalText } from './money/intervals.js';
import { CustomerSelect } from './money/CustomerSelect.js';

const INTERVALS = ['day', 'week', 'month', 'year'] as const;

export function SubscriptionNewPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const [customerId, setCustomerId] = useState(params.get('customerId') ?? '');
  const cards = useQuery({
    queryKey: ['customer-cards', customerId, 'active'],
    queryFn: () => api.get<ApiPage<PaymentMethod>>(`/api/v1/customers/${customerId}/payment-methods`, { limit: 100 }),
    enabled: customerId !== '',
  });
  const [paymentMethodId, setPaymentMethodId] = useState('');
  const [currency, setCurrency] = useState('XPF');
  const amount = useMoneyInput(currency);
  const [interval, setInterval] = useState<(typeof INTERVALS)[number]>('month');
  const [intervalCount, setIntervalCount] = useState('1');
  const [startDate, setStartDate] = useState('');
  const [description, setDescription] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const active = (cards.data?.data ?? []).filter((c) => c.status === 'active');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api.post<Subscription>('/api/v1/subscriptions', {
        customerId, amount: amount.amount({ required: true }), currency, interval, intervalCount: Number(intervalCount),
        ...(paymentMethodId ? { paymentMethodId } : {}),
        // A day picked in the form: the start of that day where the user is (the API takes an instant).
        ...(startDate ? { startDate: new Date(`${startDate}T00:00:00`).toISOString() } : {}),
        ...(description.trim() ? { description: description.trim() } : {}),
      });
      await queryClient.invalidateQueries({ queryKey: ['subscriptions'] });
      navigate(`/subscriptions/${created.id}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Page title={t('subscriptions.newTitle')}>
      <p><Link to="/subscriptions">{t('subscriptions.backToList')}</Link></p>
      <form onSubmit={submit}>
        <Section title={t('subscriptions.customerAndCard')}>
          <div className="grid-form">
            <CustomerSelect label={t('subscriptions.customer')} placeholder={t('subscriptions.chooseCustomer')} value={customerId}
              onChange={(id) => { setCustomerId(id); setPaymentMethodId(''); }} />
            <SelectField label={t('subscriptions.card')} value={paymentMethodId} onChange={(e) => setPaymentMethodId(e.target.value)} disabled={!customerId}
              hint={t('subscriptions.cardHint')}>
              <option value="">{t('subscriptions.noCardYet')}</option>
              {active.map((c) => <option key={c.id} value={c.id}>{`${c.brand} •••• ${c.last4} (${String(c.expMonth).padStart(2, '0')}/${c.expYear})`}</option>)}
            </SelectField>
          </div>
        </Section>
        <Section title={t('subscriptions.terms')}>
          <div className="grid-form">
            <MoneyField
              label={t('subscriptions.amount')} required {...amount}
              describe={(minor) => minor !== null && Number(intervalCount) >= 1 && (
                <span className="subscription-preview"><Money amount={minor} currency={currency} /> {intervalText(t, { interval, intervalCount: Number(intervalCount) })}</span>
              )}
            />
            <SelectField label={t('subscriptions.currency')} value={currency} onChange={(e) => setCurrency(e.target.value)}>
              <option value="XPF">XPF</option>
              <option value="EUR">EUR</option>
            </SelectField>
            <SelectField label={t('subscriptions.interval')} value={interval} onChange={(e) => setInterval(e.target.value as (typeof INTERVALS)[number])}>
              {INTERVALS.map((i) => <option key={i} value={i}>{t(`subscriptions.intervals.${i}`)}</option>)}
            </SelectField>
            <TextField label={t('subscriptions.intervalCount')} required type="number" min={1} max={365} step={1} inputMode="numeric" value={intervalCount} onChange={(e) => setIntervalCount(e.target.value)} />
            <TextField label={t('subscriptions.startDate')} type="date" value={startDate} onChange={(e) => setStartDate(e.target.value)} hint={t('subscriptions.startDateHint')} />
          </div>
        </Section>
        <Section title={t('subscriptions.description')}>
          <TextField label={t('subscriptions.description')} maxLength={500} value={description} onChange={(e) => setDescription(e.target.value)} />
        </Section>
        <ErrorMessage error={error} />
        <button type="submit" className="button primary" disabled={busy}>{t('subscriptions.create')}</button>
      </form>
    </Page>
  );
}
