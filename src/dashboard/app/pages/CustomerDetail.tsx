// One customer: its facts (changed in a dialog by the roles that may), its saved cards (active and removed), and its
// subscriptions, invoices and payments (the lists' own customerId filters), each row linking to its page.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../api.js';
import type { Customer, Invoice, PaymentMethod, Subscription } from '../money-types.js';
import type { Payment } from '../types.js';
import { DataTable, NUMERIC } from '../components/DataTable.js';
import { DateTime } from '../components/DateTime.js';
import { Money } from '../components/Money.js';
import { Page, Section } from '../components/Page.js';
import { QueryView } from '../components/QueryView.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { invoiceStatusLabel } from '../labels.js';
import { intervalText } from './money/intervals.js';
import { useMayChange } from './money/permissions.js';
import { CustomerDialog, type CustomerFields } from './money/CustomerDialog.js';
import { useToast } from '../components/Toasts.js';
import { usePermissions } from '../permissions.js';

/** "Edit" and its dialog: only what changed is sent (PATCH), an emptied field as null. */
function EditCustomer({ customer }: { customer: Customer }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const save = async (fields: Record<keyof CustomerFields, string>) => {
    const changed = Object.fromEntries(Object.entries(fields)
      .filter(([name, value]) => value !== (customer[name as keyof CustomerFields] ?? ''))
      .map(([name, value]) => [name, value === '' ? null : value]));
    if (Object.keys(changed).length > 0) {
      const updated = await api.patch<Customer>(`/api/v1/customers/${encodeURIComponent(customer.id)}`, changed);
      queryClient.setQueryData(['customer', customer.id], updated);
      await queryClient.invalidateQueries({ queryKey: ['customers'] });
      toast(t('customers.updatedToast'));
    }
    setOpen(false);
  };
  return (
    <>
      <button type="button" className="button secondary" onClick={() => setOpen(true)}>{t('customers.edit')}</button>
      <CustomerDialog open={open} title={t('customers.editTitle')} confirmLabel={t('customers.save')} initial={customer} onSubmit={save} onClose={() => setOpen(false)} />
    </>
  );
}

export function CustomerDetailPage() {
  const { id = '' } = useParams();
  const customer = useQuery({ queryKey: ['customer', id], queryFn: () => api.get<Customer>(`/api/v1/customers/${encodeURIComponent(id)}`) });
  return <QueryView query={customer}>{(found) => <CustomerView customer={found} />}</QueryView>;
}

function CustomerView({ customer }: { customer: Customer }) {
  const { t } = useTranslation();
  const id = encodeURIComponent(customer.id);
  const mayInvoice = useMayChange('billing');
  const permissions = usePermissions();
  const mayEdit = permissions.can('PATCH', '/api/v1/customers/:id');
  const maySubscribe = permissions.can('POST', '/api/v1/subscriptions');
  const cards = useQuery({ queryKey: ['customer-cards', customer.id], queryFn: () => api.get<ApiPage<PaymentMethod>>(`/api/v1/customers/${id}/payment-methods`, { status: 'all', limit: 100 }) });
  const subscriptions = useQuery({ queryKey: ['subscriptions', { customerId: customer.id }], queryFn: () => api.get<ApiPage<Subscription>>('/api/v1/subscriptions', { customerId: customer.id, limit: 20 }) });
  const invoices = useQuery({ queryKey: ['invoices', { customerId: customer.id }], queryFn: () => api.get<ApiPage<Invoice>>('/api/v1/billing/invoices', { customerId: customer.id, limit: 20 }) });
  const payments = useQuery({ queryKey: ['payments', { customerId: customer.id }], queryFn: () => api.get<ApiPage<Payment>>('/api/v1/payments', { customerId: customer.id, limit: 20 }) });

  const card = createColumnHelper<PaymentMethod>();
  const cardColumns = [
    card.accessor('last4', { header: t('customers.card'), cell: (c) => `${c.row.original.brand} •••• ${c.getValue()}` }),
    card.accessor((m) => `${String(m.expMonth).padStart(2, '0')}/${m.expYear}`, { id: 'expiry', header: t('customers.expiry') }),
    card.accessor('status', { header: t('customers.status'), cell: (c) => <StatusBadge status={c.getValue()} /> }),
    card.accessor('createdAt', { header: t('customers.saved'), cell: (c) => <DateTime value={c.getValue()} /> }),
  ];
  const sub = createColumnHelper<Subscription>();
  const subColumns = [
    sub.accessor('id', { header: t('subscriptions.subscription'), cell: (c) => <Link to={`/subscriptions/${c.getValue()}`}>{c.row.original.description || c.getValue()}</Link> }),
    sub.accessor('status', { header: t('subscriptions.status'), cell: (c) => <StatusBadge status={c.getValue()} /> }),
    sub.accessor('amount', { header: t('subscriptions.amount'), meta: NUMERIC, cell: (c) => <><Money amount={c.getValue()} currency={c.row.original.currency} /> {intervalText(t, c.row.original)}</> }),
    sub.accessor('nextDueDate', { header: t('subscriptions.nextDueDate'), cell: (c) => <DateTime value={c.getValue()} style="date" /> }),
  ];
  const inv = createColumnHelper<Invoice>();
  const invColumns = [
    inv.accessor((i) => i.number ?? t('invoices.draftNumber'), { id: 'number', header: t('invoices.number'), cell: (c) => <Link to={`/invoices/${c.row.original.id}`}>{c.getValue()}</Link> }),
    inv.accessor('status', { header: t('invoices.status'), cell: (c) => <StatusBadge status={c.getValue()} label={invoiceStatusLabel(t, c.getValue())} /> }),
    inv.accessor('total', { header: t('invoices.total'), meta: NUMERIC, cell: (c) => <Money amount={c.getValue()} currency={c.row.original.currency} /> }),
    inv.accessor('amountRemaining', { header: t('invoices.remaining'), meta: NUMERIC, cell: (c) => <Money amount={c.getValue()} currency={c.row.original.currency} /> }),
  ];
  const pay = createColumnHelper<Payment>();
  const payColumns = [
    pay.accessor('createdAt', { header: t('payments.created'), cell: (c) => <DateTime value={c.getValue()} /> }),
    pay.accessor((p) => p.orderReference ?? p.reference, { id: 'reference', header: t('payments.reference'), cell: (c) => <Link to={`/payments/${c.row.original.id}`}>{c.getValue()}</Link> }),
    pay.accessor('status', { header: t('payments.status'), cell: (c) => <StatusBadge status={c.getValue()} /> }),
    pay.accessor('amount', { header: t('payments.amount'), meta: NUMERIC, cell: (c) => <Money amount={c.getValue()} currency={c.row.original.currency} eurCents={c.row.original.amountCents} /> }),
  ];

  return (
    <Page title={customer.name || customer.email || customer.id}>
      <p><Link to="/customers">{t('customers.backToList')}</Link></p>
      <Section title={t('customers.summary')} actions={mayEdit && <EditCustomer customer={customer} />}>
        <dl className="facts">
          <dt>{t('customers.id')}</dt><dd><code>{customer.id}</code></dd>
          <dt>{t('customers.name')}</dt><dd>{customer.name ?? '—'}</dd>
          <dt>{t('customers.email')}</dt><dd>{customer.email ?? '—'}</dd>
          <dt>{t('customers.phone')}</dt><dd>{customer.phone ?? '—'}</dd>
          <dt>{t('customers.externalId')}</dt><dd>{customer.externalId ?? '—'}</dd>
          <dt>{t('customers.created')}</dt><dd><DateTime value={customer.createdAt} /></dd>
        </dl>
      </Section>
      <Section title={t('customers.cards')}>
        <QueryView query={cards}>{(page) => <DataTable caption={t('customers.cardsCaption')} columns={cardColumns} data={page.data} rowKey={(m) => m.id} empty={t('customers.noCard')} />}</QueryView>
      </Section>
      <Section title={t('nav.subscriptions')} actions={<>
        {maySubscribe && <Link to={`/subscriptions/new?customerId=${id}`}>{t('subscriptions.create')}</Link>}
        <Link to={`/subscriptions?customerId=${id}`}>{t('customers.seeAll')}</Link>
      </>}>
        <QueryView query={subscriptions}>{(page) => <DataTable caption={t('customers.subscriptionsCaption')} columns={subColumns} data={page.data} rowKey={(s) => s.id} empty={t('subscriptions.empty')} />}</QueryView>
      </Section>
      <Section title={t('nav.invoices')} actions={mayInvoice && <Link to={`/invoices/new?customerId=${id}`}>{t('invoices.create')}</Link>}>
        <QueryView query={invoices}>{(page) => <DataTable caption={t('customers.invoicesCaption')} columns={invColumns} data={page.data} rowKey={(i) => i.id} empty={t('invoices.empty')} />}</QueryView>
      </Section>
      <Section title={t('nav.payments')}>
        <QueryView query={payments}>{(page) => <DataTable caption={t('customers.paymentsCaption')} columns={payColumns} data={page.data} rowKey={(p) => p.id} empty={t('customers.noPayment')} />}</QueryView>
      </Section>
    </Page>
  );
}
