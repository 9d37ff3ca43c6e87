// Typed translation keys: t('…') with a key missing from the English catalog does not compile.
import 'i18next';
import type { en } from '../../i18n/en.js';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'dashboard';
    resources: { dashboard: typeof en.dashboard };
  }
}
