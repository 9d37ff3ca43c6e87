// A secret shown once (a new API key, the signing secret): selectable text and a copy button.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

export function SecretOnce({ label, value, note }: { label: string; value: string; note?: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard?.writeText(value).catch(() => undefined);
    setCopied(true);
  };
  return (
    <div className="notice">
      <p><strong>{label}</strong>{note && <> {note}</>}</p>
      <div className="secret-box">
        <code>{value}</code>
        <button type="button" className="button secondary small" onClick={copy}>{copied ? t('common.copied') : t('common.copy')}</button>
      </div>
    </div>
  );
}
