// What the merchant's invoices and credit notes print besides its legal identity: its footer, its late-payment
// penalties and its early-payment discount. Empty means "not set": the documents print the default wording.
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { INVOICE_TEXT_BOUNDS } from '../../../../modules/merchants/invoice-terms.js';
import type { MerchantSettings } from '../../types.js';
import { ErrorMessage } from '../../components/ErrorMessage.js';
import { Section } from '../../components/Page.js';
import { usePermissions } from '../../permissions.js';
import { useSave } from './Business.js';

function TextArea({ label, hint, maxLength, value, onChange }: { label: string; hint: string; maxLength: number; value: string; onChange: (value: string) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} rows={3} maxLength={maxLength} aria-describedby={`${id}-hint`} value={value} onChange={(e) => onChange(e.target.value)} />
      <p className="hint" id={`${id}-hint`}>{hint}</p>
    </div>
  );
}

export function InvoiceTermsForm({ settings }: { settings: MerchantSettings }) {
  const { t } = useTranslation();
  const terms = useSave();
  const [footer, setFooter] = useState(settings.invoiceFooter ?? '');
  const [latePayment, setLatePayment] = useState(settings.latePaymentTerms ?? '');
  const [earlyPayment, setEarlyPayment] = useState(settings.earlyPaymentDiscount ?? '');
  const mayChange = usePermissions().can('PATCH', '/dashboard/api/settings');
  const orNull = (value: string) => (value.trim() === '' ? null : value.trim());
  const save = (event: FormEvent) => {
    event.preventDefault();
    void terms.save({ invoiceFooter: orNull(footer), latePaymentTerms: orNull(latePayment), earlyPaymentDiscount: orNull(earlyPayment) });
  };
  return (
    <Section title={t('invoiceTerms.title')}>
      <form className="stack" onSubmit={save}><fieldset className="bare stack" disabled={!mayChange}>
        <p className="muted">{t('invoiceTerms.hint')}</p>
        <TextArea label={t('invoiceTerms.footer')} hint={t('invoiceTerms.footerHint', { max: INVOICE_TEXT_BOUNDS.invoiceFooter })}
          maxLength={INVOICE_TEXT_BOUNDS.invoiceFooter} value={footer} onChange={setFooter} />
        <TextArea label={t('invoiceTerms.latePayment')} hint={t('invoiceTerms.latePaymentHint', { max: INVOICE_TEXT_BOUNDS.latePaymentTerms })}
          maxLength={INVOICE_TEXT_BOUNDS.latePaymentTerms} value={latePayment} onChange={setLatePayment} />
        <TextArea label={t('invoiceTerms.earlyPayment')} hint={t('invoiceTerms.earlyPaymentHint', { max: INVOICE_TEXT_BOUNDS.earlyPaymentDiscount })}
          maxLength={INVOICE_TEXT_BOUNDS.earlyPaymentDiscount} value={earlyPayment} onChange={setEarlyPayment} />
        <p className="muted">{t('invoiceTerms.indemnity')}</p>
        <ErrorMessage error={terms.error} />
        {mayChange && <div><button type="submit" className="button primary">{t('invoiceTerms.save')}</button></div>}
      </fieldset></form>
    </Section>
  );
}
