// One invoice: its lines, totals per tax rate, paid, credited and due; the PDF; and what its status allows, each behind
// a confirmation: Finalize or Delete a draft; Send (what it did: mailed to whom or why not, and its hosted page's
// address with a Copy button), Record a payment, Credit note
// (with or without refund of its card payments) and Mark uncollectible once finalized; its credit notes, with their PDFs.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link, useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, type Page as ApiPage } from '../api.js';
import { formatAmount, locale } from '../format.js';
import { useLang } from '../i18n.js';
import type { CreditNote, Customer, Invoice, InvoiceLine } from '../money-types.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { DataTable, NUMERIC } from '../components/DataTable.js';
import { DateTime } from '../components/DateTime.js';
import { CheckboxField, SelectField, TextField } from '../components/Form.js';
import { Money } from '../components/Money.js';
import { MoneyField, useMoneyInput } from '../components/MoneyField.js';
import { Page, Section } from '../components/Page.js';
import { QueryView } from '../components/QueryView.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { invoiceStatusLabel } from '../labels.js';
import { useToast } from '../components/Toasts.js';
import { useMayChange } from './money/permissions.js';
import { SentInvoice, sendOutcome } from './money/SentInvoice.js';
import { useMe } from '../session.js';
import { ObjectName } from '../components/ObjectName.js';

type Action = 'finalize' | 'delete' | 'send' | 'payment' | 'credit' | 'uncollectible' | null;
const PAYABLE = ['open', 'partially_paid', 'uncollectible', 'disputed'];
const METHODS = ['bank_transfer', 'cash', 'other'] as const;
const REASONS = ['duplicate', 'order_change', 'product_unsatisfactory', 'fraudulent', 'other'] as const;

export function InvoiceDetailPage() {
  const { id = '' } = useParams();
  const invoice = useQuery({ queryKey: ['invoice', id], queryFn: () => api.get<Invoice>(`/api/v1/billing/invoices/${encodeURIComponent(id)}`) });
  return <QueryView query={invoice}>{(found) => <InvoiceView invoice={found} />}</QueryView>;
}


function InvoiceView({ invoice }: { invoice: Invoice }) {
  const { t } = useTranslation();
  const lang = useLang();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const toast = useToast();
  const customer = useQuery({ queryKey: ['customer', invoice.customerId], queryFn: () => api.get<Customer>(`/api/v1/customers/${invoice.customerId}`) });
  const [action, setAction] = useState<Action>(null);
  const paymentAmount = useMoneyInput(invoice.currency, { max: invoice.amountRemaining });
  const creditAmount = useMoneyInput(invoice.currency);
  const money = (amount: number) => formatAmount(amount, invoice.currency, lang);
  const [method, setMethod] = useState<string>('bank_transfer');
  const [note, setNote] = useState('');
  const [reason, setReason] = useState<string>('order_change');
  const [refund, setRefund] = useState(false);
  const [sent, setSent] = useState<{ url: string; outcome: string } | null>(null);
  const { mode } = useMe();
  const creditNotes = useQuery({
    queryKey: ['credit-notes', invoice.id],
    queryFn: () => api.get<ApiPage<CreditNote>>('/api/v1/billing/credit-notes', { invoiceId: invoice.id, limit: 100 }),
  }).data?.data ?? [];
  const mayChange = useMayChange('billing');
  const draft = mayChange && invoice.status === 'draft';
  const payable = mayChange && PAYABLE.includes(invoice.status);
  const creditable = mayChange && invoice.status !== 'draft' && invoice.total - invoice.amountCredited > 0 && invoice.status !== 'credited';
  const base = `/api/v1/billing/invoices/${invoice.id}`;
  const percent = (basisPoints: number) => new Intl.NumberFormat(locale(lang), { style: 'percent', maximumFractionDigits: 2 }).format(basisPoints / 10_000);

  const open = (next: Action) => {
    paymentAmount.reset();
    creditAmount.reset();
    setNote('');
    setRefund(false);
    setAction(next);
  };
  const done = async (next: Invoice | null, message: string) => {
    if (next) queryClient.setQueryData(['invoice', invoice.id], next);
    await Promise.all(['invoices', 'invoice'].map((key) => queryClient.invalidateQueries({ queryKey: [key] })));
    toast(message);
  };
  const run: Record<Exclude<Action, null>, () => Promise<void>> = {
    finalize: async () => done(await api.post<Invoice>(`${base}/finalize`, {}), t('invoices.finalized')),
    delete: async () => {
      await api.del(base);
      await queryClient.invalidateQueries({ queryKey: ['invoices'] });
      toast(t('invoices.deleted'));
      navigate('/invoices');
    },
    send: async () => {
      const result = await api.post<Invoice>(`${base}/send`, {});
      const outcome = await sendOutcome(t, invoice.id, customer.data, mode);
      setSent(result.url ? { url: result.url, outcome } : null);
      await done(result, outcome);
    },
    payment: async () => done(
      await api.post<Invoice>(`${base}/payments`, { amount: paymentAmount.amount({ required: true }), method, ...(note.trim() ? { note: note.trim() } : {}) }),
      t('invoices.paymentRecorded'),
    ),
    credit: async () => {
      const amount = creditAmount.amount();
      const created = await api.post<CreditNote>(`${base}/credit-notes`, { reason, refund, ...(amount === null ? {} : { amount }) });
      await queryClient.invalidateQueries({ queryKey: ['credit-notes', invoice.id] });
      await done(null, t('invoices.credited', { number: created.number }));
    },
    uncollectible: async () => done(await api.post<Invoice>(`${base}/mark-uncollectible`, {}), t('invoices.markedUncollectible')),
  };

  const column = createColumnHelper<InvoiceLine>();
  const columns = [
    column.accessor('description', { header: t('invoices.description') }),
    column.accessor('quantity', { header: t('invoices.quantity'), meta: NUMERIC }),
    column.accessor('unitPrice', { header: t('invoices.unitPrice'), meta: NUMERIC, cell: (c) => <Money amount={c.getValue()} currency={invoice.currency} /> }),
    column.accessor('taxRate', { header: t('invoices.taxRate'), meta: NUMERIC, cell: (c) => percent(c.getValue()) }),
    column.accessor('amount', { header: t('invoices.lineAmount'), meta: NUMERIC, cell: (c) => <Money amount={c.getValue()} currency={invoice.currency} /> }),
  ];

  const title = invoice.number ? t('invoices.detailTitle', { number: invoice.number }) : t('invoices.draftTitle');
  return (
    <Page
      title={title}
      actions={
        <>
          {draft && <button type="button" className="button primary" onClick={() => open('finalize')}>{t('invoices.finalize')}</button>}
          {draft && <button type="button" className="button secondary" onClick={() => open('delete')}>{t('invoices.delete')}</button>}
          {payable && invoice.amountRemaining > 0 && <button type="button" className="button primary" onClick={() => open('send')}>{t('invoices.send')}</button>}
          {payable && invoice.amountRemaining > 0 && <button type="button" className="button secondary" onClick={() => open('payment')}>{t('invoices.recordPayment')}</button>}
          {creditable && <button type="button" className="button secondary" onClick={() => open('credit')}>{t('invoices.creditNote')}</button>}
          {mayChange && (invoice.status === 'open' || invoice.status === 'partially_paid') && (
            <button type="button" className="button secondary" onClick={() => open('uncollectible')}>{t('invoices.markUncollectible')}</button>
          )}
          <a className="button secondary" href={`${base}/pdf?lang=${lang}`} target="_blank" rel="noopener">{t('invoices.pdf')}</a>
        </>
      }
    >
      <p><Link to="/invoices">{t('invoices.backToList')}</Link></p>
      {sent && <SentInvoice url={sent.url} outcome={sent.outcome} />}
      <Section title={t('invoices.summary')}>
        <p className="amount-hero"><Money amount={invoice.total} currency={invoice.currency} /></p>
        <p><StatusBadge status={invoice.status} label={invoiceStatusLabel(t, invoice.status)} />{invoice.overdue && <> <span className="badge bad">{t('invoices.overdue')}</span></>}</p>
        <dl className="facts">
          <dt>{t('invoices.number')}</dt><dd>{invoice.number ?? t('invoices.draftNumber')}</dd>
          <dt>{t('invoices.customer')}</dt>
          <dd><Link to={`/customers/${invoice.customerId}`}>{customer.data?.name || customer.data?.email || invoice.customerId}</Link></dd>
          {invoice.subscriptionId && <><dt>{t('invoices.subscription')}</dt><dd><ObjectName id={invoice.subscriptionId} /></dd></>}
          <dt>{t('invoices.subtotal')}</dt><dd><Money amount={invoice.subtotal} currency={invoice.currency} /></dd>
          {invoice.taxes.map((tax) => (
            <div key={tax.rate} className="facts-row">
              <dt>{t('invoices.taxLine', { rate: percent(tax.rate) })}</dt><dd><Money amount={tax.amount} currency={invoice.currency} /></dd>
            </div>
          ))}
          <dt>{t('invoices.total')}</dt><dd><Money amount={invoice.total} currency={invoice.currency} /></dd>
          <dt>{t('invoices.paid')}</dt><dd className="invoice-paid"><Money amount={invoice.amountPaid} currency={invoice.currency} /></dd>
          <dt>{t('invoices.creditedAmount')}</dt><dd><Money amount={invoice.amountCredited} currency={invoice.currency} /></dd>
          <dt>{t('invoices.remaining')}</dt><dd className="invoice-remaining"><Money amount={invoice.amountRemaining} currency={invoice.currency} /></dd>
          <dt>{t('invoices.dueDate')}</dt><dd><DateTime value={invoice.dueDate} style="date" /></dd>
          <dt>{t('invoices.created')}</dt><dd><DateTime value={invoice.createdAt} /></dd>
          <dt>{t('invoices.finalizedAt')}</dt><dd><DateTime value={invoice.finalizedAt} /></dd>
          <dt>{t('invoices.sentAt')}</dt><dd><DateTime value={invoice.sentAt} /></dd>
          <dt>{t('invoices.paidAt')}</dt><dd><DateTime value={invoice.paidAt} /></dd>
        </dl>
        {invoice.memo && <p className="pre-wrap">{invoice.memo}</p>}
      </Section>
      <Section title={t('invoices.lines')}>
        <DataTable caption={t('invoices.linesCaption')} columns={columns} data={invoice.lines} rowKey={(l) => `${invoice.lines.indexOf(l)}`} empty={t('invoices.noLine')} />
      </Section>
      {creditNotes.length > 0 && (
        <Section title={t('invoices.creditNotes')}>
          <ul>
            {creditNotes.map((cn) => (
              <li key={cn.id}>
                {cn.number} · <Money amount={cn.amount} currency={invoice.currency} /> · {t(`invoices.reasons.${cn.reason}` as 'invoices.reasons.other', { defaultValue: cn.reason })}
                {cn.refund && <> · {t('invoices.withRefund')}</>} · <a href={`/api/v1/billing/credit-notes/${cn.id}/pdf?lang=${lang}`} target="_blank" rel="noopener">{t('invoices.pdfOf', { number: cn.number })}</a>
              </li>
            ))}
          </ul>
        </Section>
      )}

      <ConfirmDialog currency={invoice.currency} open={action === 'finalize'} title={t('invoices.finalizeTitle')} confirmLabel={t('invoices.finalize')} onConfirm={run.finalize} onClose={() => setAction(null)}>
        <p>{t('invoices.finalizeText')} <Money amount={invoice.total} currency={invoice.currency} /></p>
      </ConfirmDialog>
      <ConfirmDialog currency={invoice.currency} open={action === 'delete'} title={t('invoices.deleteTitle')} confirmLabel={t('invoices.delete')} danger onConfirm={run.delete} onClose={() => setAction(null)}>
        <p>{t('invoices.deleteText')}</p>
      </ConfirmDialog>
      <ConfirmDialog currency={invoice.currency} open={action === 'send'} title={t('invoices.sendTitle')} confirmLabel={t('invoices.send')} onConfirm={run.send} onClose={() => setAction(null)}>
        <p>{t('invoices.sendText')} <Money amount={invoice.amountRemaining} currency={invoice.currency} /></p>
      </ConfirmDialog>
      <ConfirmDialog currency={invoice.currency} open={action === 'payment'} title={t('invoices.paymentTitle')} confirmLabel={t('invoices.recordPayment')} onConfirm={run.payment} onClose={() => setAction(null)}>
        <p>{t('invoices.remaining')}: <Money amount={invoice.amountRemaining} currency={invoice.currency} /></p>
        <MoneyField
          label={t('invoices.paymentAmount')} required {...paymentAmount}
          describe={(amount) => amount !== null && t('invoices.paymentPreview', { amount: money(amount), left: money(invoice.amountRemaining - amount) })}
        />
        <SelectField label={t('invoices.method')} value={method} onChange={(e) => setMethod(e.target.value)}>
          {METHODS.map((m) => <option key={m} value={m}>{t(`invoices.methods.${m}`)}</option>)}
        </SelectField>
        <TextField label={t('invoices.note')} maxLength={500} value={note} onChange={(e) => setNote(e.target.value)} />
      </ConfirmDialog>
      <ConfirmDialog currency={invoice.currency} open={action === 'credit'} title={t('invoices.creditTitle')} confirmLabel={t('invoices.creditNote')} danger={refund} onConfirm={run.credit} onClose={() => setAction(null)}>
        <p>{t('invoices.creditText')}</p>
        <MoneyField
          label={t('invoices.creditAmount')} {...creditAmount}
          describe={(amount) => (amount === null ? t('invoices.creditAll') : t('invoices.creditPreview', { amount: money(amount) }))}
        />
        <SelectField label={t('invoices.reason')} value={reason} onChange={(e) => setReason(e.target.value)}>
          {REASONS.map((r) => <option key={r} value={r}>{t(`invoices.reasons.${r}`)}</option>)}
        </SelectField>
        <CheckboxField label={t('invoices.refundCard')} checked={refund} onChange={(e) => setRefund(e.target.checked)} />
      </ConfirmDialog>
      <ConfirmDialog currency={invoice.currency} open={action === 'uncollectible'} title={t('invoices.uncollectibleTitle')} confirmLabel={t('invoices.markUncollectible')} danger onConfirm={run.uncollectible} onClose={() => setAction(null)}>
        <p>{t('invoices.uncollectibleText')}</p>
      </ConfirmDialog>
    </Page>
  );
}
