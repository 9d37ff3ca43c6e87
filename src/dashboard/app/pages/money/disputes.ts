import type { TFunction } from 'i18next';

export function disputeReasonLabel(t: TFunction, reason: string): string {
  return t(`disputes.reasons.${reason}` as 'disputes.reasons.general', { defaultValue: reason });
}
