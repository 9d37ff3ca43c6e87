// The Go live checklist: each thing live mode needs, its state, what is missing and where to act. `compact` (the
// home page) gives one line per item and a link to the Go live page; the page itself shows everything, the
// operator's command for the contract included.
import { useState } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { catalog } from '../../../../i18n/index.js';
import { useLang } from '../../i18n.js';
import { useMe } from '../../session.js';
import { GO_LIVE_ITEMS, type GoLive, type GoLiveItem } from './useGoLive.js';

type State = GoLive['items'][GoLiveItem]['state'];
const BADGE: Record<State, string> = { done: 'good', partial: 'info', missing: 'bad' };

function useFieldNames(): (fields: string[]) => string {
  const lang = useLang();
  const names = catalog[lang].dashboard.errors.fields as Record<string, string>;
  return (fields) => fields.map((f) => names[f] ?? f).join(', ');
}

export function StateBadge({ state }: { state: State }) {
  const { t } = useTranslation();
  return <span className={`badge ${BADGE[state]}`}>{t(`goLive.states.${state}`)}</span>;
}

export function GoLiveProgress({ data }: { data: GoLive }) {
  const { t } = useTranslation();
  const done = GO_LIVE_ITEMS.filter((item) => data.items[item].state === 'done').length;
  return <p className="go-live-progress">{data.ready ? t('goLive.ready') : t('goLive.progress', { done, total: GO_LIVE_ITEMS.length })}</p>;
}

export function GoLiveChecklist({ data, compact = false }: { data: GoLive; compact?: boolean }) {
  const { t } = useTranslation();
  return (
    <ol className={compact ? 'go-live-list compact' : 'go-live-list'} aria-label={t('goLive.checklist')}>
      {GO_LIVE_ITEMS.map((item) => (
        <li key={item} className={`go-live-item ${data.items[item].state}`}>
          <div className="go-live-item-head">
            {compact ? <span className="go-live-item-title">{t(`goLive.items.${item}`)}</span> : <h2>{t(`goLive.items.${item}`)}</h2>}
            <StateBadge state={data.items[item].state} />
          </div>
          {!compact && <ItemDetail data={data} item={item} />}
        </li>
      ))}
    </ol>
  );
}

function ItemDetail({ data, item }: { data: GoLive; item: GoLiveItem }) {
  const { t } = useTranslation();
  const fieldNames = useFieldNames();
  const live = useMe().mode === 'live';
  const { items } = data;
  switch (item) {
    case 'legalIdentity': {
      const it = items.legalIdentity;
      return (
        <div className="go-live-detail">
          <p>{it.state === 'done' ? t('goLive.legalIdentity.done') : t('goLive.legalIdentity.missing', { missing: fieldNames(it.missing) })}</p>
          {it.state !== 'done' && <p><Link to="/settings">{t('goLive.legalIdentity.act')}</Link></p>}
        </div>
      );
    }
    case 'bankAccount': {
      const it = items.bankAccount;
      return (
        <div className="go-live-detail">
          <p>{t('goLive.bankAccount.text')}</p>
          <ul>
            {it.currencies.map((c) => (
              <li key={c.currency}>
                {t('goLive.bankAccount.currency', { currency: c.currency })}
                {c.defaultAccount ? t('goLive.bankAccount.account', { last4: c.defaultAccount.last4, holder: c.defaultAccount.holderName }) : t('goLive.bankAccount.none')}
              </li>
            ))}
          </ul>
          <p>{live ? <Link to="/payouts">{t('goLive.bankAccount.act')}</Link> : t('goLive.bankAccount.liveOnly')}</p>
        </div>
      );
    }
    case 'liveContract':
      return <ContractDetail data={data} />;
    case 'liveKey': {
      const it = items.liveKey;
      return (
        <div className="go-live-detail">
          <p>{it.state === 'done' ? t('goLive.liveKey.done', { count: it.count }) : t('goLive.liveKey.missing')}</p>
          {it.state !== 'done' && it.operatorKeys > 0 && <p>{t('goLive.liveKey.operatorKeys', { count: it.operatorKeys })}</p>}
          {it.state !== 'done' && <p>{live ? <Link to="/developers">{t('goLive.liveKey.act')}</Link> : t('goLive.liveSwitch')}</p>}
        </div>
      );
    }
    case 'webhookEndpoint': {
      const it = items.webhookEndpoint;
      return (
        <div className="go-live-detail">
          <p>{it.state === 'done' ? t('goLive.webhookEndpoint.done', { count: it.count }) : t('goLive.webhookEndpoint.missing')}</p>
          {it.disabled > 0 && <p>{t('goLive.webhookEndpoint.disabled', { count: it.disabled })}</p>}
          {it.state !== 'done' && <p>{live ? <Link to="/developers/webhooks">{t('goLive.webhookEndpoint.act')}</Link> : t('goLive.liveSwitch')}</p>}
        </div>
      );
    }
  }
}

function ContractDetail({ data }: { data: GoLive }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const it = data.items.liveContract;
  const copy = async (text: string) => {
    await navigator.clipboard?.writeText(text).catch(() => undefined);
    setCopied(true);
  };
  const acquirer = !it.contract ? t('goLive.liveContract.none')
    : it.contract.environment === 'production' ? t('goLive.liveContract.production')
      : it.contract.environment === 'homologation' ? t('goLive.liveContract.homologation') : t('goLive.liveContract.simulator');
  return (
    <div className="go-live-detail">
      <p>{t('goLive.liveContract.byOperator')}</p>
      {it.contract && (
        <p>{t('goLive.liveContract.contract', { id: it.contract.id, label: it.contract.statementLabel || '—', merchantId: it.contract.merchantId })}</p>
      )}
      <p>{acquirer}</p>
      {it.operator && (
        <>
          <p>{t('goLive.liveContract.askOperator')}</p>
          <pre className="command"><code>{it.operator.command}</code></pre>
          <p>
            <button type="button" className="button secondary small" onClick={() => copy(it.operator!.command)}>{t('goLive.liveContract.copy')}</button>
            {copied && <span role="status"> {t('goLive.liveContract.copied')}</span>}
          </p>
          <p>{t('goLive.liveContract.orRoute')}</p>
          <pre className="command"><code>{`${it.operator.route}\n${JSON.stringify(it.operator.body, null, 2)}`}</code></pre>
        </>
      )}
    </div>
  );
}
