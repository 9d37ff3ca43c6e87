// What sending an invoice did, said plainly: mailed to whom (the mail outbox's row for it), or why no mail left (no
// mail server set up, no email address, test mode), and in every case the hosted page's address with a Copy button,
// for the team to share it themselves.
import { useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { api } from '../../api.js';
import type { Customer } from '../../money-types.js';

interface Mails {
  mailer: boolean;
  data: Array<{ recipient: string; status: 'pending' | 'sending' | 'sent' | 'failed' | 'skipped' }>;
}

/** The sentence for what the send did, from the invoice's mail (read after the send) and the customer. */
export async function sendOutcome(t: TFunction, invoiceId: string, customer: Customer | undefined, mode: string): Promise<string> {
  const mails = await api.get<Mails>('/dashboard/api/mails', { kind: 'invoice', subjectId: invoiceId }).catch(() => null);
  const mail = mails?.data[0];
  if (mail) {
    const email = mail.recipient;
    return mail.status === 'sent' ? t('invoices.mailed', { email }) : mail.status === 'failed' ? t('invoices.mailFailed', { email }) : t('invoices.mailQueued', { email });
  }
  if (mails && !mails.mailer) return t('invoices.noMailer');
  if (!customer?.email) return t('invoices.noEmail');
  if (mode === 'test') return t('invoices.testNotMailed', { email: customer.email });
  return t('invoices.notMailed');
}

export function SentInvoice({ url, outcome }: { url: string; outcome: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard?.writeText(url).catch(() => undefined);
    setCopied(true);
  };
  return (
    <div className="notice" role="region" aria-label={t('invoices.hostedPage')}>
      <p className="send-outcome">{outcome}</p>
      <p><strong>{t('invoices.hostedPage')}</strong></p>
      <div className="secret-box">
        <code className="invoice-url">{url}</code>
        <button type="button" className="button secondary small" onClick={copy}>{copied ? t('common.copied') : t('common.copy')}</button>
      </div>
    </div>
  );
}
