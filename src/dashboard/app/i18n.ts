// The application's language: the user's choice (remembered in this browser), else the browser's (French for fr*,
// English otherwise). Texts come from the catalog shared with the hosted pages (src/i18n).
import i18next from 'i18next';
import { initReactI18next, useTranslation } from 'react-i18next';
import { catalog, LANGS, type Lang } from '../../i18n/index.js';

const STORAGE_KEY = 'motu.dashboard.lang';

function initialLang(): Lang {
  const saved = localStorage.getItem(STORAGE_KEY);
  if (saved === 'fr' || saved === 'en') return saved;
  return /^fr\b/i.test(navigator.language) ? 'fr' : 'en';
}

export function setupI18n(): void {
  const lang = initialLang();
  void i18next.use(initReactI18next).init({
    resources: { en: { dashboard: catalog.en.dashboard }, fr: { dashboard: catalog.fr.dashboard } },
    lng: lang,
    fallbackLng: 'en',
    defaultNS: 'dashboard',
    ns: ['dashboard'],
    interpolation: { escapeValue: false }, // React escapes
    initAsync: false,
  });
  document.documentElement.lang = lang;
}

export function changeLang(lang: Lang): void {
  localStorage.setItem(STORAGE_KEY, lang);
  document.documentElement.lang = lang;
  void i18next.changeLanguage(lang);
}

/** The current language, typed. */
export function useLang(): Lang {
  const { i18n } = useTranslation();
  return (LANGS as readonly string[]).includes(i18n.language) ? (i18n.language as Lang) : 'en';
}

/** A mandate scope (`payments.read`) in words: its key has dots, so it is read from the catalog, not through t(). */
export function useScopeText(): (scope: string) => string {
  const lang = useLang();
  const texts = catalog[lang].dashboard.scopes as Record<string, string>;
  return (scope) => (Object.prototype.hasOwnProperty.call(texts, scope) ? texts[scope]! : scope);
}
