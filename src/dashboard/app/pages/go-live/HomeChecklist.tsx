// The home page's Go live checklist, one line per item, shown to owners and admins until every item is done.
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Section } from '../../components/Page.js';
import { GoLiveChecklist, GoLiveProgress } from './GoLiveChecklist.js';
import { useGoLive } from './useGoLive.js';

export function HomeChecklist() {
  const { t } = useTranslation();
  const { query } = useGoLive();
  if (!query.data || query.data.ready) return null;
  return (
    <Section title={t('goLive.homeTitle')} actions={<Link to="/go-live">{t('goLive.homeMore')}</Link>}>
      <GoLiveProgress data={query.data} />
      <GoLiveChecklist data={query.data} compact />
    </Section>
  );
}
