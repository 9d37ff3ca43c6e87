// A new draft invoice: the customer, the currency, lines (description, quantity, unit price before tax in the
// currency's units, tax rate in percent), days until due and a memo. The draft is created as it is, then finalized from its page.
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api } from '../api.js';
import type { Invoice } from '../money-types.js';
import { ErrorMessage } from '../components/ErrorMessage.js';
import { SelectField, TextField } from '../components/Form.js';
import { Money } from '../components/Money.js';
import { amountOf, MoneyField, useAmountReader } from '../components/MoneyField.js';
import { Page, Section } from '../components/Page.js';
import { CustomerSelect } from './money/CustomerSelect.js';
import { InvoicingNotice } from './go-live/InvoicingNotice.js';

interface LineDraft { key: number; description: string; quantity: string; unitPrice: string; taxRate: string }

let nextKey = 1;
const emptyLine = (): LineDraft => ({ key: nextKey++, description: '', quantity: '1', unitPrice: '', taxRate: '0' });

/** "16" or "16,5" percent → basis points (1600, 1650). */
function basisPoints(percent: string): number {
  return Math.round(Number(percent.replace(',', '.') || '0') * 100);
}

export function InvoiceNewPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const [customerId, setCustomerId] = useState(params.get('customerId') ?? '');
  const [currency, setCurrency] = useState('XPF');
  const [lines, setLines] = useState<LineDraft[]>(() => [emptyLine()]);
  const [daysUntilDue, setDaysUntilDue] = useState('30');
  const [memo, setMemo] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const readAmount = useAmountReader();
  const setLine = (key: number, patch: Partial<LineDraft>) => setLines(lines.map((l) => (l.key === key ? { ...l, ...patch } : l)));
  const unitPrice = (line: LineDraft) => readAmount(line.unitPrice, currency, { min: 0 });
  const priced = (line: LineDraft) => {
    const state = unitPrice(line);
    return state.kind === 'amount' ? state.amount : 0;
  };
  const subtotal = lines.reduce((sum, l) => sum + (Number.isSafeInteger(Number(l.quantity)) ? Number(l.quantity) : 0) * priced(l), 0);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const priced = lines.map((l) => ({ ...l, minor: amountOf(unitPrice(l), true, t('money.required'))! }));
      const invoice = await api.post<Invoice>('/api/v1/billing/invoices', {
        customerId, currency,
        lines: priced.map((l) => ({ description: l.description.trim(), quantity: Number(l.quantity), unitPrice: l.minor, taxRate: basisPoints(l.taxRate) })),
        ...(daysUntilDue.trim() ? { daysUntilDue: Number(daysUntilDue) } : {}),
        ...(memo.trim() ? { memo: memo.trim() } : {}),
      });
      await queryClient.invalidateQueries({ queryKey: ['invoices'] });
      navigate(`/invoices/${invoice.id}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Page title={t('invoices.newTitle')}>
      <InvoicingNotice />
      <p><Link to="/invoices">{t('invoices.backToList')}</Link></p>
      <form onSubmit={submit}>
        <Section title={t('invoices.customerAndTerms')}>
          <div className="grid-form">
            <CustomerSelect label={t('invoices.customer')} placeholder={t('invoices.chooseCustomer')} value={customerId} onChange={setCustomerId} />
            <SelectField label={t('invoices.currency')} value={currency} onChange={(e) => setCurrency(e.target.value)}>
              <option value="XPF">XPF</option>
              <option value="EUR">EUR</option>
            </SelectField>
            <TextField label={t('invoices.daysUntilDue')} type="number" min={0} max={365} inputMode="numeric" value={daysUntilDue} onChange={(e) => setDaysUntilDue(e.target.value)} />
          </div>
        </Section>
        <Section title={t('invoices.lines')} actions={<button type="button" className="button secondary" onClick={() => setLines([...lines, emptyLine()])}>{t('invoices.addLine')}</button>}>
          <ol className="invoice-lines">
            {lines.map((line, index) => (
              <li key={line.key}>
                <fieldset className="invoice-line">
                  <legend>{t('invoices.lineN', { n: index + 1 })}</legend>
                  <TextField label={t('invoices.description')} required maxLength={500} className="line-description" value={line.description} onChange={(e) => setLine(line.key, { description: e.target.value })} />
                  <TextField label={t('invoices.quantity')} required type="number" min={1} step={1} inputMode="numeric" value={line.quantity} onChange={(e) => setLine(line.key, { quantity: e.target.value })} />
                  <MoneyField label={t('invoices.unitPrice')} required min={0} currency={currency} value={line.unitPrice} onChange={(text) => setLine(line.key, { unitPrice: text })} />
                  <TextField label={t('invoices.taxRate')} type="number" min={0} max={100} step={0.01} inputMode="decimal" value={line.taxRate} onChange={(e) => setLine(line.key, { taxRate: e.target.value })} />
                  {lines.length > 1 && (
                    <button type="button" className="button secondary small" onClick={() => setLines(lines.filter((l) => l.key !== line.key))}>
                      {t('invoices.removeLine', { n: index + 1 })}
                    </button>
                  )}
                </fieldset>
              </li>
            ))}
          </ol>
          <p>{t('invoices.subtotalPreview')} <Money amount={subtotal} currency={currency} /></p>
        </Section>
        <Section title={t('invoices.memo')}>
          <div className="field">
            <label htmlFor="invoice-memo">{t('invoices.memo')}</label>
            <textarea id="invoice-memo" rows={3} maxLength={2000} value={memo} onChange={(e) => setMemo(e.target.value)} />
          </div>
        </Section>
        <ErrorMessage error={error} />
        <button type="submit" className="button primary" disabled={busy}>{t('invoices.createDraft')}</button>
      </form>
    </Page>
  );
}
