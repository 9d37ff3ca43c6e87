// Go live (owners and admins): what the live environment still needs (the legal identity, a bank account, the
// contract's acquirer, a live key, a webhook endpoint), each with its state and where to act; the contract is the
// operator's, so the page gives the operator's command with this merchant's contract filled in.
import { useTranslation } from 'react-i18next';
import { Page } from '../components/Page.js';
import { QueryView } from '../components/QueryView.js';
import { GoLiveChecklist, GoLiveProgress } from './go-live/GoLiveChecklist.js';
import { useGoLive } from './go-live/useGoLive.js';
import { SwitchToLive } from './go-live/SwitchToLive.js';

export function GoLivePage() {
  const { t } = useTranslation();
  const { allowed, query } = useGoLive();
  return (
    <Page title={t('goLive.title')}>
      <p>{t('goLive.intro')}</p>
      {!allowed ? <p className="notice">{t('goLive.askOwner')}</p> : (
        <QueryView query={query}>
          {(data) => (
            <>
              <GoLiveProgress data={data} />
              {!data.ready && <SwitchToLive />}
              <GoLiveChecklist data={data} />
            </>
          )}
        </QueryView>
      )}
    </Page>
  );
}
