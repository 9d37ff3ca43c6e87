// A failure as the team reads it: the API's refusal written from its code and details in their language
// (errors.ts), announced at once (role=alert), with a link to the page that lifts it when there is one. `currency`
// is the page's, for amounts the answer does not name.
import type { ParseKeys } from 'i18next';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api.js';
import { useErrorText } from '../errors.js';

/** Refusals that something elsewhere in the back-office lifts: the page where it is done. */
const WHERE_TO_ACT: Record<string, { to: string; label: ParseKeys }> = {
  INVOICING_NOT_ACTIVATED: { to: '/settings', label: 'invoicingNotice.act' },
};

export function ErrorMessage({ error, currency }: { error: unknown; currency?: string }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  if (!error) return null;
  const act = error instanceof ApiError ? WHERE_TO_ACT[error.code] : undefined;
  return (
    <div className="error-message" role="alert">
      <p><strong>{t('common.error')}</strong> {errorText(error, currency)}{act && <> <Link to={act.to}>{t(act.label)}</Link></>}</p>
    </div>
  );
}
