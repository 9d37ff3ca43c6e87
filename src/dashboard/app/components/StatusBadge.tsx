import { useTranslation } from 'react-i18next';
import { statusLabel } from '../labels.js';

const TONES: Record<string, string> = {
  captured: 'good', succeeded: 'good', paid: 'good', active: 'good', delivered: 'good', ready: 'good',
  transit: 'info', pending: 'info', in_transit: 'info', partially_refunded: 'info', advancing: 'info', invited: 'info',
  failed: 'bad', expired: 'neutral', cancelled: 'neutral', refunded: 'neutral', disabled: 'bad', revoked: 'neutral',
  available: 'good', won: 'good', credited: 'neutral', ended: 'neutral', skipped: 'neutral', draft: 'neutral', removed: 'neutral',
  open: 'info', partially_paid: 'info', under_review: 'info', warning_under_review: 'info', scheduled: 'info', retrying: 'info',
  waiting_mandate: 'info', new: 'info', warning_closed: 'neutral',
  lost: 'bad', needs_response: 'bad', warning_needs_response: 'bad', past_due: 'bad', unpaid: 'bad', errored: 'bad', uncollectible: 'bad',
  disputed: 'bad',
};

/** A status as a word, never colour alone (`label`: the word when the object's own differs, an invoice's). */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  const { t } = useTranslation();
  return <span className={`badge ${TONES[status] ?? 'neutral'}`}>{label ?? statusLabel(t, status)}</span>;
}
