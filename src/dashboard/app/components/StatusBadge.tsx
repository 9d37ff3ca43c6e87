import { useTranslation } from 'react-i18next';
import { statusLabel } from '../labels.js';

const TONES: Record<string, string> = {
  captured: 'good', succeeded: 'good', paid: 'good', active: 'good', delivered: 'good', ready: 'good',
  transit: 'info', pending: 'info', in_transit: 'info', partially_refunded: 'info', advancing: 'info', invited: 'info',
  failed: 'bad', expired: 'neutral', cancelled: 'neutral', refunded: 'neutral', disabled: 'bad', revoked: 'neutral',
};

/** A status as a word, never colour alone. */
export function StatusBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  return <span className={`badge ${TONES[status] ?? 'neutral'}`}>{statusLabel(t, status)}</span>;
}
