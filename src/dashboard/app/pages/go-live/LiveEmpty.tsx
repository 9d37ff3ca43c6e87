// What an empty list says in live mode: nothing came yet, and what to do first (the Go live page for owners and
// admins, who may read it, until it is all done; the others are told whom to ask). In test mode, the list's own
// empty text.
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../components/EmptyState.js';
import { useMe } from '../../session.js';
import { useGoLive } from './useGoLive.js';

export function LiveEmpty({ title, testText }: { title: string; testText: string }) {
  const { t } = useTranslation();
  const me = useMe();
  const { allowed, query } = useGoLive();
  if (me.mode !== 'live') return <EmptyState title={testText} />;
  // Not yet known (or all done): only that nothing came yet.
  if (allowed && (!query.data || query.data.ready)) return <EmptyState title={title} />;
  return (
    <EmptyState title={title}>
      {allowed
        ? <p>{t('liveEmpty.firstGoLive')} <Link to="/go-live">{t('liveEmpty.goLiveLink')}</Link>.</p>
        : <p>{t('goLive.askOwner')}</p>}
    </EmptyState>
  );
}
