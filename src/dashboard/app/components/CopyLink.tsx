// A link made to be sent to someone (an onboarding session, an agency invitation): what it is, the address as
// selectable text, and a Copy button.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

export function CopyLink({ label, note, url }: { label: string; note?: string; url: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard?.writeText(url).catch(() => undefined);
    setCopied(true);
  };
  return (
    <div className="notice" role="region" aria-label={label}>
      {note && <p>{note}</p>}
      <p><strong>{label}</strong></p>
      <div className="secret-box">
        <code className="link-url">{url}</code>
        <button type="button" className="button secondary small" onClick={copy}>{copied ? t('common.copied') : t('common.copy')}</button>
      </div>
    </div>
  );
}
