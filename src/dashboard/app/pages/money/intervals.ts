// A subscription's period in words ("every month", "every 3 weeks").
import type { TFunction } from 'i18next';
import type { Subscription } from '../../money-types.js';

export function intervalText(t: TFunction, sub: Pick<Subscription, 'interval' | 'intervalCount'>): string {
  return t(`subscriptions.every.${sub.interval}`, { count: sub.intervalCount });
}
