// A change made from the back-office as a sentence ("marie@shop.example finalized invoice F-2026-000001"), from the
// audit row's route and object: each route the back-office changes through has its sentence in the catalog
// (activity.sentences), the object named by ObjectName. A route without one says so with the route itself.
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { en } from '../../../i18n/en.js';
import type { AuditEntry } from '../types.js';
import { ObjectName } from './ObjectName.js';

type Sentence = keyof typeof en.dashboard.activity.sentences;

/** The audit's action ("METHOD route") → its sentence. */
const SENTENCES: Record<string, Sentence> = {
  'POST /api/v1/customers': 'customerCreate',
  'PATCH /api/v1/customers/:id': 'customerUpdate',
  'POST /api/v1/customers/:id/card-links': 'cardLinkCreate',
  'POST /api/v1/billing/invoices': 'invoiceCreate',
  'PATCH /api/v1/billing/invoices/:id': 'invoiceUpdate',
  'DELETE /api/v1/billing/invoices/:id': 'invoiceDelete',
  'POST /api/v1/billing/invoices/:id/finalize': 'invoiceFinalize',
  'POST /api/v1/billing/invoices/:id/send': 'invoiceSend',
  'POST /api/v1/billing/invoices/:id/payments': 'invoicePayment',
  'POST /api/v1/billing/invoices/:id/credit-notes': 'invoiceCredit',
  'POST /api/v1/billing/invoices/:id/mark-uncollectible': 'invoiceUncollectible',
  'POST /api/v1/payments/:id/capture': 'paymentCapture',
  'POST /api/v1/payments/:id/cancel': 'paymentCancel',
  'POST /api/v1/payments/:id/refund': 'paymentRefund',
  'POST /api/v1/payouts': 'payoutCreate',
  'POST /api/v1/payouts/:id/cancel': 'payoutCancel',
  'PATCH /api/v1/payout-schedule': 'payoutSchedule',
  'POST /api/v1/bank-accounts': 'bankAccountCreate',
  'PATCH /api/v1/bank-accounts/:id': 'bankAccountUpdate',
  'DELETE /api/v1/bank-accounts/:id': 'bankAccountDelete',
  'POST /api/v1/subscriptions': 'subscriptionCreate',
  'PATCH /api/v1/subscriptions/:id': 'subscriptionUpdate',
  'POST /api/v1/subscriptions/:id/cancel': 'subscriptionCancel',
  'POST /api/v1/subscriptions/:id/retry': 'subscriptionRetry',
  'POST /api/v1/disputes/:id/evidence': 'disputeEvidence',
  'POST /api/v1/disputes/:id/accept': 'disputeAccept',
  'POST /api/v1/events/:id/resend': 'eventResend',
  'POST /api/v1/webhook-endpoints': 'webhookCreate',
  'PATCH /api/v1/webhook-endpoints/:id': 'webhookUpdate',
  'DELETE /api/v1/webhook-endpoints/:id': 'webhookDelete',
  'POST /api/v1/webhooks/signing-secret/rotate': 'signingSecretRotate',
  'POST /api/v1/test-helpers/test-clocks': 'testClockCreate',
  'POST /api/v1/test-helpers/test-clocks/:id/advance': 'testClockAdvance',
  'PATCH /dashboard/api/settings': 'settingsUpdate',
  'POST /dashboard/api/keys': 'keyCreate',
  'DELETE /dashboard/api/keys/:id': 'keyRevoke',
  'POST /dashboard/api/users': 'userInvite',
  'PATCH /dashboard/api/users/:id': 'userUpdate',
  'DELETE /dashboard/api/users/:id': 'userRemove',
  'POST /dashboard/api/mode': 'modeSwitch',
  'POST /dashboard/api/two-factor/setup': 'twoFactorSetup',
  'POST /dashboard/api/two-factor/enable': 'twoFactorEnable',
  'POST /dashboard/api/two-factor/disable': 'twoFactorDisable',
  'POST /dashboard/api/two-factor/recovery-codes': 'twoFactorRecoveryCodes',
};

const MARK = '\u0000';

export function ActivitySentence({ entry }: { entry: Pick<AuditEntry, 'action' | 'objectId' | 'user'> }) {
  const { t } = useTranslation();
  const who = entry.user?.email ?? t('activity.someone');
  const sentence = SENTENCES[entry.action];
  if (!sentence) return <>{t('activity.other', { who })} <code>{entry.action}</code></>;
  // The object is a link, not text: the sentence is cut where the catalog puts it.
  const parts = t(`activity.sentences.${sentence}`, { who, object: MARK }).split(MARK);
  const object: ReactNode = entry.objectId ? <ObjectName id={entry.objectId} /> : t('activity.unknownObject');
  return <>{parts[0]}{parts.length > 1 && object}{parts.slice(1).join('')}</>;
}
