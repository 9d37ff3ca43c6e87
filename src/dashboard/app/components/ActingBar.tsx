// Acting for a client: the client's name in the header on every page ("Acting for Client SARL"), what its mandate
// allows, and the way back to the agency's own account; and, in place of a page the mandate does not open, why.
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { setActing, type Acting } from '../acting.js';
import { useScopeText } from '../i18n.js';
import { navEntryOf } from '../nav.js';
import { forgetMerchantData } from '../session.js';
import { useToast } from './Toasts.js';

/** Ends acting: the agency's own account again, its portfolio shown. */
export function useStopActing(): () => void {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const toast = useToast();
  return () => {
    setActing(null);
    forgetMerchantData(queryClient);
    navigate('/agency/portfolio');
    toast(t('acting.ended'));
  };
}

export function ActingBar({ acting }: { acting: Acting }) {
  const { t } = useTranslation();
  const stop = useStopActing();
  const scopeText = useScopeText();
  return (
    <div className="acting-bar" role="region" aria-label={t('acting.banner', { name: acting.name })}>
      <p className="acting-name"><strong>{t('acting.banner', { name: acting.name })}</strong></p>
      <details className="acting-scopes">
        <summary>{t('acting.scopes')}</summary>
        <ul>{acting.scopes.map((scope) => <li key={scope}>{scopeText(scope)}</li>)}</ul>
      </details>
      <button type="button" className="button secondary small" onClick={stop}>{t('acting.back', { name: acting.agencyName })}</button>
    </div>
  );
}

/** What the mandate opens at `pathname`: the page itself (null), or the sentence that says why not. */
export function useActingRefusal(acting: Acting | null, pathname: string): string | null {
  const { t } = useTranslation();
  const scopeText = useScopeText();
  if (!acting) return null;
  const entry = navEntryOf(pathname);
  if (!entry?.scope) return t('acting.notHere');
  if (!acting.scopes.includes(entry.scope)) return t('acting.notInScope', { name: acting.name, scope: scopeText(entry.scope) });
  return null;
}
