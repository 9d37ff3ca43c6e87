import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Page } from '../components/Page.js';

export function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <Page title={t('notFound.title')}>
      <p>{t('notFound.text')}</p>
      <p><Link to="/payments">{t('notFound.back')}</Link></p>
    </Page>
  );
}
