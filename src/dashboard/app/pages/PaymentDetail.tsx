// One payment: its amounts (original and EUR), its facts, its fee lines, and its timeline (authorization attempts
// with refusal codes and 3-D Secure, refunds, disputes, what the team did, and every event with its delivery attempts
// and a Resend button). Capture, Cancel payment and Refund each ask for confirmation first.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api } from '../api.js';
import type { Payment, Timeline } from '../types.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { DateTime } from '../components/DateTime.js';
import { TextField } from '../components/Form.js';
import { Money } from '../components/Money.js';
import { MoneyField, useMoneyInput } from '../components/MoneyField.js';
import { formatAmount } from '../format.js';
import { useLang } from '../i18n.js';
import { catalog } from '../../../i18n/index.js';
import { Page, Section } from '../components/Page.js';
import { QueryView } from '../components/QueryView.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { useToast } from '../components/Toasts.js';
import { FeeLines } from './payment/FeeLines.js';
import { PaymentTimeline } from './payment/PaymentTimeline.js';
import { usePermissions } from '../permissions.js';
import { CustomerName } from './money/CustomerName.js';
import { Distribution } from './payment/Distribution.js';
import { actingFor, useActingChoice } from '../acting.js';
import { useMe } from '../session.js';

type Action = 'capture' | 'cancel' | 'refund' | null;

export function PaymentDetailPage() {
  const { id = '' } = useParams();
  useActingChoice();
  // Acting for a client, the payment is read from the merchant API (the timeline route is the agency's own).
  const acting = actingFor(useMe()) !== null;
  const timeline = useQuery({
    queryKey: ['payment-timeline', id, acting],
    queryFn: async () => (acting
      ? { payment: await api.get<Payment>(`/api/v1/payments/${encodeURIComponent(id)}`), attempts: [], refunds: [], disputes: [], events: [], audit: [], acting: true }
      : api.get<Timeline>(`/dashboard/api/payments/${encodeURIComponent(id)}/timeline`)),
  });
  return (
    <QueryView query={timeline}>
      {(found) => <PaymentView timeline={found} />}
    </QueryView>
  );
}

function PaymentView({ timeline }: { timeline: Timeline & { acting?: boolean } }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const toast = useToast();
  const payment = timeline.payment;
  const [action, setAction] = useState<Action>(null);
  const lang = useLang();
  const [reason, setReason] = useState('');
  const refundable = payment.capturedAmount - payment.refundedAmount - payment.disputedAmount;
  const captureAmount = useMoneyInput(payment.currency, { max: payment.authorizedAmount });
  const refundAmount = useMoneyInput(payment.currency, { max: refundable });
  const money = (amount: number) => formatAmount(amount, payment.currency, lang);
  const { can } = usePermissions();
  const canCapture = payment.status === 'transit' && can('POST', '/api/v1/payments/:id/capture');
  const canCancel = (payment.status === 'pending' || payment.status === 'transit') && can('POST', '/api/v1/payments/:id/cancel');
  const canRefund = (payment.status === 'captured' || payment.status === 'partially_refunded') && refundable > 0 && can('POST', '/api/v1/payments/:id/refund');

  const open = (next: Action) => {
    captureAmount.reset();
    refundAmount.reset();
    setReason('');
    setAction(next);
  };
  const done = async (message: string) => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: ['payment-timeline', payment.id] }),
      queryClient.invalidateQueries({ queryKey: ['payments'] }),
    ]);
    toast(message);
  };
  /** The typed amount as the API takes it; nothing when empty (all of it). Throws for a refused amount. */
  const amountOrNothing = (input: typeof captureAmount) => {
    const amount = input.amount();
    return amount === null ? {} : { amount };
  };
  const run: Record<Exclude<Action, null>, () => Promise<void>> = {
    capture: async () => {
      await api.post<Payment>(`/api/v1/payments/${payment.id}/capture`, amountOrNothing(captureAmount));
      await done(t('payment.captured'));
    },
    cancel: async () => {
      await api.post<Payment>(`/api/v1/payments/${payment.id}/cancel`, {});
      await done(t('payment.cancelled'));
    },
    refund: async () => {
      await api.post(`/api/v1/payments/${payment.id}/refund`, { ...amountOrNothing(refundAmount), ...(reason.trim() ? { reason: reason.trim() } : {}) });
      await done(t('payment.refunded'));
    },
  };

  const distribution = payment.platformDistribution;
  const title = t('payment.title', { reference: payment.orderReference ?? payment.reference });
  return (
    <Page
      title={title}
      actions={
        <>
          {canCapture && <button type="button" className="button primary" onClick={() => open('capture')}>{t('payment.capture')}</button>}
          {canCancel && <button type="button" className="button secondary" onClick={() => open('cancel')}>{t('payment.cancel')}</button>}
          {canRefund && <button type="button" className="button secondary" onClick={() => open('refund')}>{t('payment.refund')}</button>}
        </>
      }
    >
      <p><Link to="/payments">{t('payment.backToList')}</Link></p>
      <Section title={t('payment.summary')}>
        <p className="amount-hero"><Money amount={payment.amount} currency={payment.currency} eurCents={payment.amountCents} /></p>
        <p><StatusBadge status={payment.status} /></p>
        <dl className="facts">
          <dt>{t('payment.id')}</dt><dd><code>{payment.id}</code></dd>
          <dt>{t('payment.reference')}</dt><dd><code>{payment.reference}</code></dd>
          <dt>{t('payment.orderReference')}</dt><dd>{payment.orderReference ?? '—'}</dd>
          <dt>{t('payment.customer')}</dt><dd>{payment.customerId ? <CustomerName id={payment.customerId} /> : payment.email ?? '—'}</dd>
          <dt>{t('payment.card')}</dt><dd>{payment.cardLast4 ? `${payment.cardBrand ?? ''} •••• ${payment.cardLast4}` : '—'}</dd>
          <dt>{t('payment.store')}</dt><dd>{payment.store?.name ?? '—'}</dd>
          <dt>{t('payment.captureMode')}</dt><dd>{t(`payment.captureModes.${payment.captureMode}` as 'payment.captureModes.AUTO', { defaultValue: payment.captureMode })}</dd>
          <dt>{t('payment.created')}</dt><dd><DateTime value={payment.createdAt} /></dd>
          <dt>{t('payment.authorizedAt')}</dt><dd><DateTime value={payment.authorizedAt} /></dd>
          <dt>{t('payment.capturedAt')}</dt><dd><DateTime value={payment.capturedAt} /></dd>
          <dt>{t('payment.settledAt')}</dt><dd><DateTime value={payment.settledAt} /></dd>
          <dt>{t('payment.capturedAmount')}</dt><dd><Money amount={payment.capturedAmount} currency={payment.currency} /></dd>
          <dt>{t('payment.refundedAmount')}</dt><dd><Money amount={payment.refundedAmount} currency={payment.currency} /></dd>
          {payment.disputedAmount > 0 && <><dt>{t('payment.disputedAmount')}</dt><dd><Money amount={payment.disputedAmount} currency={payment.currency} /></dd></>}
          {payment.refusalCode && <><dt>{t('payment.refusal')}</dt><dd><code>{payment.refusalCode}</code> {catalog[lang].checkout.refusals[payment.refusalCode] ?? catalog[lang].checkout.refusalDefault}</dd></>}
        </dl>
      </Section>
      {payment.settlement && (
        <Section title={t('payment.fees')}>
          <FeeLines settlement={payment.settlement} refunds={timeline.refunds} />
        </Section>
      )}
      {distribution && distribution.length > 0 && <Distribution entries={distribution} />}
      <Section title={t('payment.timeline')}>
        {timeline.acting ? <p className="muted">{t('acting.timelineHidden')}</p> : <PaymentTimeline timeline={timeline} />}
      </Section>

      <ConfirmDialog currency={payment.currency}
        open={action === 'capture'} title={t('payment.captureTitle')} confirmLabel={t('payment.capture')}
        onConfirm={run.capture} onClose={() => setAction(null)}
      >
        <p>{t('payment.captureText')} <Money amount={payment.authorizedAmount} currency={payment.currency} /></p>
        <MoneyField
          label={t('payment.captureAmount')} {...captureAmount}
          describe={(amount) => (amount === null ? t('payment.captureAll', { amount: money(payment.authorizedAmount) }) : t('payment.capturePreview', { amount: money(amount) }))}
        />
      </ConfirmDialog>
      <ConfirmDialog currency={payment.currency}
        open={action === 'cancel'} title={t('payment.cancelTitle')} confirmLabel={t('payment.cancel')} danger
        onConfirm={run.cancel} onClose={() => setAction(null)}
      >
        <p>{t('payment.cancelText')}</p>
      </ConfirmDialog>
      <ConfirmDialog currency={payment.currency}
        open={action === 'refund'} title={t('payment.refundTitle')} confirmLabel={t('payment.refund')} danger
        onConfirm={run.refund} onClose={() => setAction(null)}
      >
        <p>{t('payment.refundText')} <Money amount={refundable} currency={payment.currency} /></p>
        <MoneyField
          label={t('payment.refundAmount')} {...refundAmount}
          describe={(amount) => (amount === null
            ? t('payment.refundAll', { amount: money(refundable) })
            : t('payment.refundPreview', { amount: money(amount), left: money(refundable - amount) }))}
        />
        <TextField label={t('payment.refundReason')} maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
      </ConfirmDialog>
    </Page>
  );
}
