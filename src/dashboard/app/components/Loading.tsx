import { useTranslation } from 'react-i18next';

/** A wait the screen reader hears once (role=status). */
export function Loading({ label }: { label?: string }) {
  const { t } = useTranslation();
  return <p className="loading" role="status"><span className="spinner" aria-hidden="true" />{label ?? t('common.loading')}</p>;
}
