// An event's deliveries (one per target: an endpoint or the payment's notificationUrl), each with its attempts, and
// the Resend button that delivers the event again to all its targets.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../api.js';
import type { Delivery } from '../types.js';
import { DateTime } from './DateTime.js';
import { useErrorText } from '../errors.js';
import { StatusBadge } from './StatusBadge.js';
import { useToast } from './Toasts.js';
import { usePermissions } from '../permissions.js';

export function Deliveries({ deliveries }: { deliveries: Delivery[] }) {
  const { t } = useTranslation();
  if (deliveries.length === 0) return <p className="muted">{t('events.noDelivery')}</p>;
  return (
    <ul className="deliveries">
      {deliveries.map((delivery) => (
        <li key={delivery.id}>
          <StatusBadge status={delivery.status} /> <code>{delivery.target.url}</code>
          <ul>
            {delivery.attempts.map((attempt) => (
              <li key={attempt.attempt}>
                {t('events.attempt', { n: attempt.attempt })} · <DateTime value={attempt.at} /> ·{' '}
                {attempt.statusCode !== null ? `HTTP ${attempt.statusCode}` : attempt.error ?? t('events.noAnswer')} · {attempt.latencyMs} ms
              </li>
            ))}
            {delivery.nextAttemptAt && <li>{t('events.nextAttempt')} <DateTime value={delivery.nextAttemptAt} /></li>}
          </ul>
        </li>
      ))}
    </ul>
  );
}

/** POST /api/v1/events/{id}/resend, then `onSent` (the caller reloads what shows the deliveries). */
export function ResendButton({ eventId, describedBy, onSent }: { eventId: string; describedBy?: string; onSent: () => void }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const { can } = usePermissions();
  const resend = async () => {
    setBusy(true);
    try {
      await api.post(`/api/v1/events/${encodeURIComponent(eventId)}/resend`, {});
      toast(t('events.resent'));
      onSent();
    } catch (error) {
      toast(errorText(error));
    } finally {
      setBusy(false);
    }
  };
  if (!can('POST', '/api/v1/events/:id/resend')) return null;
  return <button type="button" className="button secondary small" aria-describedby={describedBy} disabled={busy} onClick={resend}>{t('events.resend')}</button>;
}
