// When automatic payouts run (GET/PATCH /api/v1/payout-schedule): daily, weekly on a day, monthly on a date, or
// manual (never), and how many days funds stay available first.
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api } from '../../api.js';
import type { PayoutSchedule } from '../../types.js';
import { ErrorMessage } from '../../components/ErrorMessage.js';
import { SelectField, TextField } from '../../components/Form.js';
import { Section } from '../../components/Page.js';
import { QueryView } from '../../components/QueryView.js';
import { useToast } from '../../components/Toasts.js';
import { usePermissions } from '../../permissions.js';

const KEY = ['payout-schedule'];
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const satisfies ReadonlyArray<PayoutSchedule['weeklyAnchor']>;
const INTERVALS = ['daily', 'weekly', 'monthly', 'manual'] as const;

export function PayoutSchedulePart() {
  const schedule = useQuery({ queryKey: KEY, queryFn: () => api.get<PayoutSchedule>('/api/v1/payout-schedule') });
  return <QueryView query={schedule}>{(found) => <ScheduleForm schedule={found} />}</QueryView>;
}

function ScheduleForm({ schedule }: { schedule: PayoutSchedule }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [interval, setInterval] = useState(schedule.interval);
  const [weeklyAnchor, setWeeklyAnchor] = useState(schedule.weeklyAnchor);
  const [monthlyAnchor, setMonthlyAnchor] = useState(String(schedule.monthlyAnchor));
  const [delayDays, setDelayDays] = useState(String(schedule.delayDays));
  const [error, setError] = useState<unknown>(null);
  const mayChange = usePermissions().can('PATCH', '/api/v1/payout-schedule');
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const patch = {
        interval,
        ...(interval === 'weekly' ? { weeklyAnchor } : {}),
        ...(interval === 'monthly' ? { monthlyAnchor: Number(monthlyAnchor) } : {}),
        ...(interval !== 'manual' ? { delayDays: Number(delayDays) } : {}),
      };
      queryClient.setQueryData(KEY, await api.patch<PayoutSchedule>('/api/v1/payout-schedule', patch));
      toast(t('common.saved'));
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Section title={t('settings.payoutSchedule')}>
      <form className="stack" onSubmit={save}><fieldset className="bare stack" disabled={!mayChange}>
        <SelectField label={t('payoutSchedule.interval')} value={interval} onChange={(e) => setInterval(e.target.value as PayoutSchedule['interval'])}>
          {INTERVALS.map((i) => <option key={i} value={i}>{t(`payoutSchedule.intervals.${i}`)}</option>)}
        </SelectField>
        {interval === 'weekly' && (
          <SelectField label={t('payoutSchedule.weeklyAnchor')} value={weeklyAnchor} onChange={(e) => setWeeklyAnchor(e.target.value as PayoutSchedule['weeklyAnchor'])}>
            {WEEKDAYS.map((d) => <option key={d} value={d}>{t(`payoutSchedule.weekdays.${d}`)}</option>)}
          </SelectField>
        )}
        {interval === 'monthly' && (
          <TextField label={t('payoutSchedule.monthlyAnchor')} hint={t('payoutSchedule.monthlyHint')} type="number" min={1} max={31} value={monthlyAnchor} onChange={(e) => setMonthlyAnchor(e.target.value)} />
        )}
        {interval !== 'manual' && (
          <TextField label={t('payoutSchedule.delayDays')} hint={t('payoutSchedule.delayHint')} type="number" min={0} max={30} value={delayDays} onChange={(e) => setDelayDays(e.target.value)} />
        )}
        <p>{schedule.nextRunOn ? t('payoutSchedule.nextRun', { date: schedule.nextRunOn }) : t('payoutSchedule.noRun')}</p>
        <ErrorMessage error={error} />
        {mayChange && <div><button type="submit" className="button primary">{t('common.save')}</button></div>}
      </fieldset></form>
    </Section>
  );
}
