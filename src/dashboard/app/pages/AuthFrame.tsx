// The frame of the pages reached signed out (sign-in, set-up): a centred card with the language switch.
import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { changeLang, useLang } from '../i18n.js';
import { LANGS, type Lang } from '../../../i18n/index.js';

export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  const { t } = useTranslation();
  const lang = useLang();
  useEffect(() => {
    document.title = `${title} · Motu`;
  }, [title]);
  const names: Record<Lang, string> = { en: 'English', fr: 'Français' };
  return (
    <div className="auth-page">
      <header className="auth-header">
        <span className="brand-name">Motu</span>
        <label className="language-switch">
          <span className="visually-hidden">{t('shell.language')}</span>
          <select value={lang} onChange={(event) => changeLang(event.target.value as Lang)}>
            {LANGS.map((code) => <option key={code} value={code} lang={code}>{names[code]}</option>)}
          </select>
        </label>
      </header>
      <main id="main" className="auth-card">
        <h1>{title}</h1>
        {children}
      </main>
    </div>
  );
}
