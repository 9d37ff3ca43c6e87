// The frame of every signed-in page: skip link, header (merchant, TEST/LIVE badge and switch, language, sign-out),
// the navigation and the page in <main>. Below 800 px the header is one row: a menu button (a disclosure) opens the
// navigation and the header's tools together.
import { Suspense, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api } from './api.js';
import { changeLang, useLang } from './i18n.js';
import { NAV } from './nav.js';
import { acceptMe, forgetMerchantData, useMe } from './session.js';
import type { Me, Mode } from './types.js';
import type { Role } from '../../modules/users/users.table.js';
import { useToast } from './components/Toasts.js';
import { useErrorText } from './errors.js';
import { Loading } from './components/Loading.js';
import { LANGS, type Lang } from '../../i18n/index.js';
import { actingFor, setActing, useActingChoice } from './acting.js';
import { ActingBar, useActingRefusal } from './components/ActingBar.js';

export function Shell() {
  const { t } = useTranslation();
  const me = useMe();
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  const [lastPath, setLastPath] = useState(location.pathname);
  useActingChoice();
  const acting = actingFor(me);
  const refusal = useActingRefusal(acting, location.pathname);
  if (lastPath !== location.pathname) {
    setLastPath(location.pathname);
    setMenuOpen(false);
  }
  return (
    <div className={`app mode-${me.mode}`}>
      <a className="skip-link" href="#main">{t('shell.skip')}</a>
      <header className={menuOpen ? 'topbar open' : 'topbar'}>
        <div className="brand">
          <button type="button" className="menu-button button secondary small" aria-expanded={menuOpen} aria-controls="main-nav topbar-tools" onClick={() => setMenuOpen(!menuOpen)}>
            {t('shell.menu')}
          </button>
          <span className="merchant-name">{me.merchant.displayName || me.merchant.name}</span>
          <ModeBadge mode={me.mode} />
        </div>
        <div id="topbar-tools" className="topbar-tools">
          <ModeSwitch me={me} />
          <LanguageSwitch />
          <span className="user-email">{me.user.email}</span>
          <SignOutButton />
        </div>
        {acting && <ActingBar acting={acting} />}
      </header>
      <div className="layout">
        <nav id="main-nav" className={menuOpen ? 'main-nav open' : 'main-nav'} aria-label={t('shell.navigation')}>
          <ul>
            {NAV.filter((item) => (!item.may || item.may(me.user.role as Role, me)) && (!acting || (item.scope !== undefined && acting.scopes.includes(item.scope)))).map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} end={item.to === '/'}>{t(item.label)}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {me.mode === 'test' && <p className="test-banner">{t('shell.testBanner')}</p>}
          {refusal ? <p className="notice acting-refusal">{refusal}</p> : <Suspense fallback={<Loading />}><Outlet /></Suspense>}
        </main>
      </div>
    </div>
  );
}

function ModeBadge({ mode }: { mode: Mode }) {
  const { t } = useTranslation();
  return <span className={`mode-badge ${mode}`}>{mode === 'test' ? t('shell.testBadge') : t('shell.liveBadge')}</span>;
}

function ModeSwitch({ me }: { me: Me }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const toggle = async () => {
    setBusy(true);
    try {
      const next = await api.post<Me>('/dashboard/api/mode', { mode: me.mode === 'test' ? 'live' : 'test' });
      acceptMe(queryClient, next);
      // Mandates are per mode: acting ends with the switch.
      setActing(null);
      forgetMerchantData(queryClient);
      toast(next.mode === 'live' ? t('shell.nowLive') : t('shell.nowTest'));
    } catch (error) {
      toast(errorText(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" role="switch" aria-checked={me.mode === 'live'} className="mode-switch" disabled={busy} onClick={toggle}>
      <span className="switch-track" aria-hidden="true"><span className="switch-thumb" /></span>
      {t('shell.liveMode')}
    </button>
  );
}

function LanguageSwitch() {
  const { t } = useTranslation();
  const lang = useLang();
  const names: Record<Lang, string> = { en: 'English', fr: 'Français' };
  return (
    <label className="language-switch">
      <span className="visually-hidden">{t('shell.language')}</span>
      <select value={lang} onChange={(event) => changeLang(event.target.value as Lang)}>
        {LANGS.map((code) => <option key={code} value={code} lang={code}>{names[code]}</option>)}
      </select>
    </label>
  );
}

function SignOutButton() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const signOut = async () => {
    try {
      await api.post('/dashboard/api/sign-out');
    } finally {
      setActing(null);
      queryClient.clear();
      navigate('/sign-in', { replace: true });
    }
  };
  return <button type="button" className="button secondary" onClick={signOut}>{t('shell.signOut')}</button>;
}
