// A failure as the team reads it: the API's refusal written from its code and details in their language
// (errors.ts), announced at once (role=alert). `currency` is the page's, for amounts the answer does not name.
import { useTranslation } from 'react-i18next';
import { useErrorText } from '../errors.js';

export function ErrorMessage({ error, currency }: { error: unknown; currency?: string }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  if (!error) return null;
  return (
    <div className="error-message" role="alert">
      <p><strong>{t('common.error')}</strong> {errorText(error, currency)}</p>
    </div>
  );
}
