// Everything that happened to a payment, oldest first, from the timeline route: authorization attempts, refunds,
// disputes, the team's actions (audit log) and events with their deliveries.
import type { ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { Timeline } from '../../types.js';
import { DateTime } from '../../components/DateTime.js';
import { Deliveries, ResendButton } from '../../components/Deliveries.js';
import { Money } from '../../components/Money.js';
import { StatusBadge } from '../../components/StatusBadge.js';
import { ActivitySentence } from '../../components/ActivitySentence.js';

interface Entry { at: string; key: string; body: ReactNode }

export function PaymentTimeline({ timeline }: { timeline: Timeline }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const reload = () => void queryClient.invalidateQueries({ queryKey: ['payment-timeline', timeline.payment.id] });
  const entries: Entry[] = [
    ...timeline.attempts.map((a, i) => ({
      at: a.at, key: `attempt-${i}`,
      body: (
        <>
          <strong>{t('timeline.attempt')}</strong> <StatusBadge status={a.status ?? a.outcome ?? ''} />
          {a.refusalCode && <> · {t('timeline.refusalCode')} <code>{a.refusalCode}</code></>}
          {typeof a.threeDSecure === 'string' && <> · {t('timeline.threeDSecure')} {t(`timeline.threeDS.${a.threeDSecure}` as 'timeline.threeDS.frictionless', { defaultValue: a.threeDSecure })}</>}
          {a.card && <> · {a.card.brand} •••• {a.card.last4}</>}
        </>
      ),
    })),
    ...timeline.refunds.map((r) => ({
      at: r.createdAt, key: r.id,
      body: <><strong>{t('timeline.refund')}</strong> <Money amount={r.amount} currency={r.currency} /> <StatusBadge status={r.status} />{r.reason && <> · {r.reason}</>}</>,
    })),
    ...timeline.disputes.map((d) => ({
      at: d.createdAt, key: d.id,
      body: <><strong>{t('timeline.dispute')}</strong> <Money amount={d.amount} currency={d.currency} /> <StatusBadge status={d.status} />{d.reason && <> · {t(`disputes.reasons.${d.reason}` as 'disputes.reasons.general', { defaultValue: d.reason })}</>}</>,
    })),
    ...timeline.audit.map((entry) => ({
      at: entry.createdAt, key: entry.id,
      body: <><strong>{t('timeline.teamAction')}</strong> <ActivitySentence entry={entry} /> · <StatusBadge status={entry.outcome} /></>,
    })),
    ...timeline.events.map((event) => ({
      at: event.createdAt, key: event.id,
      body: (
        <>
          <strong>{t('timeline.event')}</strong> <code id={`event-${event.id}`}>{event.type}</code>{' '}
          {(event.deliveries ?? []).length > 0 && <ResendButton eventId={event.id} describedBy={`event-${event.id}`} onSent={reload} />}
          <Deliveries deliveries={event.deliveries ?? []} />
        </>
      ),
    })),
  ].sort((a, b) => a.at.localeCompare(b.at));
  return (
    <ol className="timeline">
      {entries.map((entry) => (
        <li key={entry.key}>
          <div className="when"><DateTime value={entry.at} /></div>
          <div>{entry.body}</div>
        </li>
      ))}
    </ol>
  );
}
