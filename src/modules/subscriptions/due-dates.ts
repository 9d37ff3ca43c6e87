// A subscription's due dates: the start date, then every `intervalCount` × `interval`. Months (and years) keep the
// anchor day, clamped to the month's end: Jan 31 → Feb 28 → Mar 31 (each date computed from the anchor, never from
// the previous clamped date, so the 31st comes back). Days and weeks are exact multiples of 24 hours.
import type { Interval } from './subscriptions.table.js';

/** The `n`th due date (0: the start date). */
export function dueDate(start: Date, interval: Interval, intervalCount: number, n: number): Date {
  const step = n * intervalCount;
  if (interval === 'day' || interval === 'week') return new Date(start.getTime() + step * (interval === 'day' ? 1 : 7) * 86_400_000);
  const months = interval === 'month' ? step : step * 12;
  const year = start.getUTCFullYear() + Math.floor((start.getUTCMonth() + months) / 12);
  const month = (start.getUTCMonth() + months) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(start.getUTCDate(), lastDay), start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds(), start.getUTCMilliseconds()));
}
