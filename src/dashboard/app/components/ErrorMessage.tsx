// A failure as the server explained it (`message` of its `{code, message}`), announced at once (role=alert).
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api.js';

export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.body.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function ErrorMessage({ error }: { error: unknown }) {
  const { t } = useTranslation();
  if (!error) return null;
  const fields = error instanceof ApiError && error.body.fields && !Array.isArray(error.body.fields) ? Object.entries(error.body.fields) : [];
  return (
    <div className="error-message" role="alert">
      <p><strong>{t('common.error')}</strong> {errorText(error)}</p>
      {fields.length > 0 && <ul>{fields.map(([field, message]) => <li key={field}><code>{field}</code>: {message}</li>)}</ul>}
    </div>
  );
}
